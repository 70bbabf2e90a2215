package handlers

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/store/rules"
	"shop/views"
	"shop/views/lang"
	"shop/web/paths"
)

// AdminShippingStore is what the shipping zones page reads and writes.
type AdminShippingStore interface {
	Currency() string
	ShippingZones(ctx context.Context) ([]store.ShippingZone, error)
	SaveShippingZone(ctx context.Context, z store.ShippingZone) (store.ShippingZone, error)
	DeleteShippingZone(ctx context.Context, id string, version int) error
}

// AdminShipping serves /admin/shipping: the zones, their countries and
// rates, a form to add one and one to change each.
type AdminShipping struct {
	Store AdminShippingStore
}

// List is the zones and the form for a new one.
func (h *AdminShipping) List(c *fiber.Ctx) error {
	return h.render(c, fiber.StatusOK, views.AdminZoneForm{Days: "2", DaysMax: "4"})
}

// Edit is the zones with one's form filled in.
func (h *AdminShipping) Edit(c *fiber.Ctx) error {
	zones, err := h.Store.ShippingZones(c.UserContext())
	if err != nil {
		return err
	}
	for _, z := range zones {
		if z.ID == c.Params("id") {
			return h.renderWith(c, fiber.StatusOK, zones, zoneForm(z))
		}
	}
	return page.NotFound("error.not_found.shipping_zone")
}

func zoneForm(z store.ShippingZone) views.AdminZoneForm {
	f := views.AdminZoneForm{ID: z.ID, Version: strconv.Itoa(z.Version), Name: z.Name, Countries: strings.Join(z.Countries, ", "),
		Price: z.Price.Decimal(), Days: strconv.Itoa(z.DaysMin), DaysMax: strconv.Itoa(z.DaysMax)}
	if z.FreeFrom.Amount > 0 {
		f.FreeFrom = z.FreeFrom.Decimal()
	}
	return f
}

func (h *AdminShipping) render(c *fiber.Ctx, status int, f views.AdminZoneForm) error {
	zones, err := h.Store.ShippingZones(c.UserContext())
	if err != nil {
		return err
	}
	return h.renderWith(c, status, zones, f)
}

func (h *AdminShipping) renderWith(c *fiber.Ctx, status int, zones []store.ShippingZone, f views.AdminZoneForm) error {
	f.CSRF = page.CSRFToken(c)
	f.Currency = h.Store.Currency()
	if status != fiber.StatusOK && page.IsHTMX(c) {
		c.Vary("HX-Request")
		return page.Write(c, status, views.AdminZoneFormView(f))
	}
	return page.Render(c, status, page.View{Title: page.T(c, "admin.shipping.title"),
		Page: page.Full(views.AdminShippingView, views.AdminShipping{Zones: zones, Form: f})})
}

// Save adds a zone (POST /admin/shipping) or changes one (POST
// /admin/shipping/:id): each field's problem at the field in a 422 that
// writes nothing.
func (h *AdminShipping) Save(c *fiber.Ctx) error {
	v := func(k string) string { return strings.TrimSpace(page.Field(c, k)) }
	f := views.AdminZoneForm{ID: c.Params("id"), Version: v("version"), Name: v("name"), Countries: v("countries"),
		Price: v("price"), FreeFrom: v("free_from"), Days: v("days_min"), DaysMax: v("days_max")}
	z := zoneFromForm(c.UserContext(), &f, h.Store.Currency())
	if !f.Errors.Any() {
		saved, err := h.Store.SaveShippingZone(c.UserContext(), z)
		var overlap *store.ZoneOverlapError
		switch {
		case errors.As(err, &overlap):
			name, _ := rules.CountryName(overlap.Country)
			f.Errors["countries"] = page.T(c, "admin.shipping.err.overlap", "Country", name, "Zone", overlap.Zone)
		case errors.Is(err, store.ErrConflict):
			f.Errors[""] = page.T(c, "admin.shipping.err.changed")
		case errors.Is(err, store.ErrBadZone):
			f.Errors[""] = page.T(c, "admin.shipping.err.bad")
		case err != nil:
			return err
		default:
			page.Flash(c, views.FlashSuccess, page.T(c, "admin.shipping.saved", "Zone", saved.Name))
			return page.Redirect(c, paths.AdminShipping)
		}
	}
	return h.render(c, fiber.StatusUnprocessableEntity, f)
}

// zoneFromForm checks the zone form field by field, its errors in the
// language of ctx.
func zoneFromForm(ctx context.Context, f *views.AdminZoneForm, currency string) store.ShippingZone {
	f.Errors = views.FieldErrors{}
	z := store.ShippingZone{ID: f.ID, Name: f.Name}
	z.Version, _ = strconv.Atoi(f.Version)
	if n := len([]rune(f.Name)); n == 0 || n > 60 {
		f.Errors["name"] = lang.T(ctx, "admin.shipping.err.name")
	}
	for _, c := range strings.FieldsFunc(f.Countries, func(r rune) bool { return r == ',' || r == ';' || r == '\n' || r == '\r' }) {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		if rules.CountryCode(c) == "" {
			f.Errors["countries"] = lang.T(ctx, "admin.shipping.err.country", "Country", c)
			break
		}
		z.Countries = append(z.Countries, c)
	}
	if len(z.Countries) == 0 && !f.Errors.Has("countries") {
		f.Errors["countries"] = lang.T(ctx, "admin.shipping.err.countries")
	}
	var err error
	if z.Price, err = rules.ParseMoney(f.Price, currency); err != nil || f.Price == "" {
		f.Errors["price"] = lang.T(ctx, "admin.shipping.err.price", "Currency", currency)
	}
	z.FreeFrom = store.Money{Currency: currency}
	if f.FreeFrom != "" {
		if z.FreeFrom, err = rules.ParseMoney(f.FreeFrom, currency); err != nil {
			f.Errors["free_from"] = lang.T(ctx, "admin.shipping.err.price", "Currency", currency)
		}
	}
	days := func(field, s string) int {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > store.MaxZoneDays {
			f.Errors[field] = lang.T(ctx, "admin.shipping.err.days", "Max", store.MaxZoneDays)
		}
		return n
	}
	z.DaysMin, z.DaysMax = days("days_min", f.Days), days("days_max", f.DaysMax)
	if !f.Errors.Has("days_min") && !f.Errors.Has("days_max") && z.DaysMax < z.DaysMin {
		f.Errors["days_max"] = lang.T(ctx, "admin.shipping.err.days_order")
	}
	return z
}

// Delete removes a zone at the version shown.
func (h *AdminShipping) Delete(c *fiber.Ctx) error {
	version, _ := strconv.Atoi(page.Field(c, "version"))
	err := h.Store.DeleteShippingZone(c.UserContext(), c.Params("id"), version)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return page.NotFound("error.not_found.shipping_zone")
	case errors.Is(err, store.ErrConflict):
		page.Flash(c, views.FlashError, page.T(c, "admin.shipping.err.changed"))
	case err != nil:
		return err
	default:
		page.Flash(c, views.FlashSuccess, page.T(c, "admin.shipping.deleted"))
	}
	return page.Redirect(c, paths.AdminShipping)
}
