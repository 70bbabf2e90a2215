package handlers

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/store/rules"
	"shop/views"
	"shop/views/lang"
	"shop/web/paths"
)

// AdminSubscriptionSettingsStore is what staff's subscription settings and
// price changes read and write.
type AdminSubscriptionSettingsStore interface {
	// Currency is the ISO 4217 code the shop prices in.
	Currency() string
	SubscriptionSettings(ctx context.Context) (store.SubscriptionSettings, error)
	SaveSubscriptionSettings(ctx context.Context, set store.SubscriptionSettings) (store.SubscriptionSettings, error)
	PriceChanges(ctx context.Context) ([]store.PriceChange, error)
	Product(ctx context.Context, id string) (store.Product, error)
	SchedulePriceChange(ctx context.Context, p store.Product, newPrice store.Money, effective time.Time, by string) (store.PriceChange, error)
	Today() time.Time
}

// AdminSubscriptionSettings serves /admin/subscriptions/settings and
// /admin/subscriptions/prices.
type AdminSubscriptionSettings struct {
	Store AdminSubscriptionSettingsStore
}

// Settings shows whether cancelling now refunds the unused days.
func (h *AdminSubscriptionSettings) Settings(c *fiber.Ctx) error {
	set, err := h.Store.SubscriptionSettings(c.UserContext())
	if err != nil {
		return err
	}
	return h.renderSettings(c, fiber.StatusOK, views.AdminSubscriptionSettingsPage{Settings: set})
}

func (h *AdminSubscriptionSettings) renderSettings(c *fiber.Ctx, status int, p views.AdminSubscriptionSettingsPage) error {
	p.CSRF = page.CSRFToken(c)
	return page.Render(c, status, page.View{Title: page.T(c, "admin.subrefunds.settings.title"), Page: page.Full(views.AdminSubscriptionSettingsView, p)})
}

// SaveSettings saves the settings over the version the form showed; a
// change by someone else meanwhile comes back as it is now, with a 409.
func (h *AdminSubscriptionSettings) SaveSettings(c *fiber.Ctx) error {
	version, err := strconv.Atoi(page.Field(c, "version"))
	refund := page.Field(c, "refund_unused")
	if err != nil || version < 0 || (refund != "yes" && refund != "no") {
		return page.BadRequest("error.form_broken")
	}
	ctx := c.UserContext()
	saved, err := h.Store.SaveSubscriptionSettings(ctx, store.SubscriptionSettings{
		RefundUnusedOnCancel: refund == "yes", ChangedBy: page.Viewer(c).Name, Version: version,
	})
	if errors.Is(err, store.ErrConflict) {
		now, rerr := h.Store.SubscriptionSettings(ctx)
		if rerr != nil {
			return rerr
		}
		return h.renderSettings(c, fiber.StatusConflict, views.AdminSubscriptionSettingsPage{Settings: now, Error: page.T(c, "admin.subrefunds.settings.conflict")})
	}
	if err != nil {
		return err
	}
	msg := page.T(c, "admin.subrefunds.settings.saved_keep")
	if saved.RefundUnusedOnCancel {
		msg = page.T(c, "admin.subrefunds.settings.saved_refund")
	}
	page.Flash(c, views.FlashSuccess, msg)
	return page.Redirect(c, paths.AdminSubscriptionSettings)
}

// Prices lists the scheduled price changes with the form to schedule one.
func (h *AdminSubscriptionSettings) Prices(c *fiber.Ctx) error {
	return h.renderPrices(c, fiber.StatusOK, views.AdminPriceForm{ProductID: c.Query("product"), Errors: views.FieldErrors{}})
}

func (h *AdminSubscriptionSettings) renderPrices(c *fiber.Ctx, status int, f views.AdminPriceForm) error {
	f.CSRF = page.CSRFToken(c)
	f.Earliest = store.FormatDate(h.Store.Today().AddDate(0, 0, store.PriceNoticeDays))
	changes, err := h.Store.PriceChanges(c.UserContext())
	if err != nil {
		return err
	}
	p := views.AdminPriceChangesPage{Changes: changes, Form: f, Today: h.Store.Today()}
	return page.Render(c, status, page.View{Title: page.T(c, "admin.subs.tab.prices"), Page: page.Full(views.AdminPriceChangesView, p)})
}

// SchedulePrice schedules a product's new monthly price from a day at
// least 30 days away. Bad input comes back at its field with a 422.
func (h *AdminSubscriptionSettings) SchedulePrice(c *fiber.Ctx) error {
	val := func(k string) string { return strings.TrimSpace(page.Field(c, k)) }
	f := views.AdminPriceForm{ProductID: val("product"), Price: val("price"), Date: val("date"), Errors: views.FieldErrors{}}
	ctx := c.UserContext()
	var p store.Product
	if !store.ValidID(f.ProductID) {
		f.Errors["product"] = page.T(c, "admin.subrefunds.prices.product_empty")
	} else if prod, err := h.Store.Product(ctx, f.ProductID); errors.Is(err, store.ErrNotFound) {
		f.Errors["product"] = page.T(c, "admin.subrefunds.prices.product_none")
	} else if err != nil {
		return err
	} else {
		p = prod
	}
	cur := h.Store.Currency()
	price, err := rules.ParseMoney(f.Price, cur)
	if err != nil || price.Amount <= 0 {
		f.Errors["price"] = page.T(c, "admin.subrefunds.prices.price_bad", "Currency", cur)
	}
	day, err := rules.ParseDate(f.Date)
	if err != nil {
		f.Errors["date"] = page.T(c, "admin.subrefunds.prices.date_bad")
	}
	if f.Errors.Any() {
		return h.renderPrices(c, fiber.StatusUnprocessableEntity, f)
	}
	pc, err := h.Store.SchedulePriceChange(ctx, p, price, day, page.Viewer(c).Name)
	if r, ok := formRefusal(ctx, err); ok {
		// At its field: too soon, the same price, no subscriptions; an
		// announced change stands (409).
		f.Errors[r.Field] = r.Text
		return h.renderPrices(c, r.Status, f)
	}
	if err != nil {
		return err
	}
	page.Flash(c, views.FlashSuccess, page.T(c, "admin.subrefunds.prices.scheduled", "Product", pc.ProductName, "Price", lang.Money(ctx, pc.New), "Day", store.FormatDate(pc.EffectiveOn), "Mailed", store.FormatDate(pc.AnnounceOn())))
	return page.Redirect(c, paths.AdminPriceChanges)
}
