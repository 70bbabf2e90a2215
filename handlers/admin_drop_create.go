package handlers

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/store/rules"
	"shop/views"
	"shop/web/paths"
)

func parseLocal(s string, loc *time.Location) (time.Time, bool) {
	for _, layout := range []string{datetimeLocal, datetimeLocal + ":05"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// Create makes a drop from the form. Every field is checked before
// anything is written: a problem brings the form back with a message at
// its field and a 422.
func (h *AdminDrops) Create(c *fiber.Ctx) error {
	form, nd := h.readDropForm(c)
	h.checkEveryField(c, &form, nd)
	if form.Errors.Any() {
		return h.formAgain(c, form)
	}
	d, err := h.Store.CreateDrop(c.UserContext(), nd)
	if refusedAtField(c.UserContext(), form.Errors, err) { // the clock moved past the opening, no such product, too little stock
		return h.formAgain(c, form)
	}
	if err != nil {
		return err
	}
	h.Gate.Forget(d.ID)
	page.Flash(c, views.FlashSuccess, page.T(c, "admin.drops.created", "Title", d.Title))
	return page.Redirect(c, paths.AdminDrop(d.ID))
}

// readDropForm reads the form as typed and the drop it asks for; a field
// that does not parse gets its message here.
func (h *AdminDrops) readDropForm(c *fiber.Ctx) (views.AdminDropForm, store.NewDrop) {
	loc := h.Store.Location()
	val := func(k string) string { return strings.TrimSpace(page.Field(c, k)) }
	form := views.AdminDropForm{
		Quantity: val("quantity"), Opens: val("opens"), Closes: val("closes"),
		ProductID: val("product_id"), Price: val("price"), RedeemHours: val("redeem_hours"),
		Published: page.Field(c, "published") != "", Audience: val("audience"),
		Zone: loc.String(), CSRF: page.CSRFToken(c), Errors: views.FieldErrors{},
	}
	if form.Audience == "" { // a form from before the choice: the customers'
		form.Audience = store.DropAudienceShop
	}
	form.Title = formTextIn(c.UserContext(), form.Errors, "title", page.Field(c, "title"), oneLine)
	form.Description = formTextIn(c.UserContext(), form.Errors, "description", page.Field(c, "description"), multiLine)
	staff := page.Viewer(c).ID
	nd := store.NewDrop{Title: form.Title, Description: form.Description, Audience: form.Audience, CreatedBy: store.DropByStaff(staff), Published: form.Published, StaffID: staff}
	if form.ProductID != "" { // a product drop: its price and how long a ticket buys
		nd.ProductID = form.ProductID
		if form.RedeemHours == "" {
			form.RedeemHours = defaultRedeemHours
		}
		if hours, err := strconv.Atoi(form.RedeemHours); err == nil {
			nd.RedeemWithin = time.Duration(hours) * time.Hour
		} else {
			form.Errors["redeem"] = page.T(c, "admin.drops.err.redeem")
		}
		if m, err := rules.ParseMoney(form.Price, h.Store.Currency()); err == nil {
			nd.Price = m
		} else {
			form.Errors["price"] = page.T(c, "admin.drops.err.price")
		}
	}
	if n, err := strconv.Atoi(form.Quantity); err == nil {
		nd.Quantity = n
	} else {
		form.Errors["quantity"] = page.T(c, "admin.drops.err.quantity", "Max", store.MaxDropQuantity)
	}
	var ok bool
	if nd.Opens, ok = parseLocal(form.Opens, loc); !ok {
		form.Errors["opens"] = page.T(c, "admin.drops.err.opens")
	}
	if nd.Closes, ok = parseLocal(form.Closes, loc); !ok {
		form.Errors["closes"] = page.T(c, "admin.drops.err.closes")
	}
	return form, nd
}

// checkEveryField asks the store's own check. It names one field at a
// time: ask again with that field made good, so the form shows each
// field's problem at once (a parse error stays its field's message).
func (h *AdminDrops) checkEveryField(c *fiber.Ctx, form *views.AdminDropForm, nd store.NewDrop) {
	for range 8 {
		err := h.Store.ValidateDrop(nd)
		var de *store.DropError
		if !errors.As(err, &de) {
			return
		}
		if _, seen := form.Errors[de.Field]; !seen {
			form.Errors[de.Field] = refusalText(c.UserContext(), de)
		}
		switch de.Field { // get past this field to find the next one's
		case "audience":
			if de.Kind == "audience" {
				nd.Audience = store.DropAudienceShop
			}
			nd.Published, nd.ProductID = false, ""
		case "title":
			nd.Title = "x"
		case "description":
			nd.Description = ""
		case "quantity":
			nd.Quantity = 1
		case "opens": // move the window to now, keeping its length
			now := h.Store.Now()
			if !nd.Opens.IsZero() && !nd.Closes.IsZero() {
				nd.Closes = nd.Closes.Add(now.Sub(nd.Opens))
			}
			nd.Opens = now
		case "closes":
			nd.Closes = nd.Opens.Add(time.Hour)
		case "product":
			nd.ProductID = ""
		case "price":
			nd.Price = store.Money{Amount: 1, Currency: h.Store.Currency()}
		case "redeem":
			nd.RedeemWithin = store.DefaultRedeemWithin
		}
	}
}

// formAgain brings the form back with its errors: in place for htmx, on
// the list for a plain form.
func (h *AdminDrops) formAgain(c *fiber.Ctx, form views.AdminDropForm) error {
	if page.IsHTMX(c) {
		if err := h.withIntegrations(c, &form); err != nil {
			return err
		}
		return page.Write(c, fiber.StatusUnprocessableEntity, views.AdminDropFormView(form))
	}
	return h.renderList(c, fiber.StatusUnprocessableEntity, form)
}
