package handlers

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/jobs"
	"shop/store"
	"shop/views"
	"shop/web/paths"
)

// Refund gives money back on an order, from the refund form of the order's
// staff page: units of its lines (back into the warehouse chosen, or
// none) or an amount, with a reason. The form's key, made when it
// rendered, makes the refund once however often it is sent; a form that
// comes back with errors keeps its key, so that sending it again after a
// card refund that did not go through finishes that same refund. Bad input
// is a 422 with each field's error and nothing written.
func (h *AdminOrders) Refund(c *fiber.Ctx) error {
	by, ok := page.StaffMember(c)
	if !ok {
		return page.Forbidden("Only staff refund orders.")
	}
	id, err := pathID(c, "id", "That order")
	if err != nil {
		return err
	}
	data, err := h.orderPage(c, id)
	if err != nil {
		return err
	}
	d := data.Details
	form, req, errs := readRefundForm(c, d, data.Warehouses)
	req.By, req.Mail = by, jobs.RefundMail(c.BaseURL(), h.Store.Now)
	if errs.Any() {
		data.Refund, data.Refund.Errors = form, errs
		return page.Render(c, fiber.StatusUnprocessableEntity, page.View{Title: "Order " + d.Order.Label(), Page: page.Full(views.AdminOrderView, data)})
	}
	rf, err := h.Store.RefundOrder(c.UserContext(), req, h.Gateway)
	field := "amount"
	if len(req.Lines) > 0 {
		field = "lines"
	}
	switch {
	case errors.Is(err, store.ErrRefundExceedsCharge):
		errs[field] = "That is more than is left to refund: at most " + d.Order.Refundable().String() + "."
		return h.renderRefund(c, id, fiber.StatusUnprocessableEntity, form, errs, "")
	case errors.Is(err, store.ErrRefundLines):
		errs["lines"] = "A line gives back at most the units not refunded yet (someone may have just refunded some)."
		return h.renderRefund(c, id, fiber.StatusUnprocessableEntity, form, errs, "")
	case errors.Is(err, store.ErrRefundCard):
		return h.renderRefund(c, id, fiber.StatusBadGateway, form, errs,
			"The refund is recorded, but the card's bank did not answer yet. Send the form again to finish it; it will not refund twice.")
	case errors.Is(err, store.ErrConflict):
		return h.renderRefund(c, id, fiber.StatusConflict, form, errs, "The order changed while refunding (another refund at the same moment). Look at it again and send the form once more.")
	case errors.Is(err, store.ErrBadRefund):
		errs[""] = upperFirstText(err.Error()) + "."
		return h.renderRefund(c, id, fiber.StatusUnprocessableEntity, form, errs, "")
	case err != nil:
		return notFoundAs(err, "That order")
	}
	page.Flash(c, views.FlashSuccess, refundedText(rf))
	return page.Redirect(c, paths.AdminOrder(id))
}

// refundedText says what a refund gave back, and where.
func refundedText(rf store.Refund) string {
	msg := "Refunded " + rf.Amount.String()
	switch {
	case rf.GiftCard.Amount > 0 && rf.Card.Amount > 0:
		msg += ": " + rf.GiftCard.String() + " to the gift card, " + rf.Card.String() + " to the card"
	case rf.GiftCard.Amount > 0:
		msg += " to the gift card"
	case rf.Card.Amount > 0:
		msg += " to the card"
	}
	if rf.RestockWarehouse != "" {
		msg += "; the units are back in stock"
	}
	return msg + "."
}

func upperFirstText(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// readRefundForm checks the refund form against the order: per line a
// number of units (at most those not refunded yet), or an amount (above
// zero, at most what is left), a reason, and a known warehouse to restock
// into, if any.
func readRefundForm(c *fiber.Ctx, d store.OrderDetails, warehouses map[string]string) (views.RefundForm, store.OrderRefundRequest, views.FieldErrors) {
	form := views.RefundForm{
		Key: c.FormValue("key"), Amount: strings.TrimSpace(c.FormValue("amount")), Reason: c.FormValue("reason"),
		Restock: c.FormValue("restock"), Units: map[string]string{},
	}
	errs := views.FieldErrors{}
	req := store.OrderRefundRequest{OrderID: d.Order.ID, Key: form.Key, Reason: strings.TrimSpace(form.Reason), RestockWarehouse: form.Restock}
	if !store.ValidID(form.Key) || len(form.Key) > 36 {
		errs[""] = "This form is out of date. It is renewed below: check it and send it again."
		form.Key = store.NewID()
	}
	for _, it := range d.Items {
		name := views.RefundUnitsField(it)
		v := strings.TrimSpace(c.FormValue(name))
		form.Units[name] = v
		if v == "" || v == "0" {
			continue
		}
		left := it.Quantity - it.Refunded
		n, err := strconv.Atoi(v)
		switch {
		case err != nil || n < 0:
			errs[name] = "Enter a whole number of units."
		case n > left:
			errs[name] = fmt.Sprintf("At most %d (the units not refunded yet).", left)
		default:
			req.Lines = append(req.Lines, store.RefundLine{ProductID: it.ProductID, DropID: it.DropID, Quantity: n})
		}
	}
	if form.Amount != "" {
		m, err := store.ParseMoney(form.Amount, d.Order.Total.Currency)
		switch {
		case err != nil:
			errs["amount"] = "Enter an amount like 12.50."
		case m.Amount == 0:
			errs["amount"] = "Enter an amount above zero."
		case m.Amount > d.Order.Refundable().Amount:
			errs["amount"] = "At most " + d.Order.Refundable().String() + " is left to refund."
		case len(req.Lines) > 0:
			errs["amount"] = "Refund units of the lines or an amount, not both."
		default:
			req.Amount = m
		}
	} else if len(req.Lines) == 0 && !errs.Any() {
		errs["amount"] = "Choose units to refund above, or enter an amount."
	}
	switch {
	case req.Reason == "":
		errs["reason"] = "Say why: the customer reads it in the refund's mail."
	case len([]rune(req.Reason)) > 500:
		errs["reason"] = "Keep the reason under 500 characters."
	}
	if _, known := warehouses[form.Restock]; form.Restock != "" && !known {
		errs["restock"] = "Choose a warehouse from the list."
	} else if form.Restock != "" && len(req.Lines) == 0 && form.Amount != "" {
		errs["restock"] = "Only refunded units go back into stock: choose units, or no warehouse."
	}
	return form, req, errs
}

// renderRefund shows the order's page as it is now, with the refund form
// as it was sent.
func (h *AdminOrders) renderRefund(c *fiber.Ctx, id string, status int, form views.RefundForm, errs views.FieldErrors, problem string) error {
	data, err := h.orderPage(c, id)
	if err != nil {
		return err
	}
	form.Errors = errs
	data.Refund, data.Error = form, problem
	return page.Render(c, status, page.View{Title: "Order " + data.Details.Order.Label(), Page: page.Full(views.AdminOrderView, data)})
}
