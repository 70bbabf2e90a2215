package handlers

import (
	"errors"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/store/rules"
	"shop/views"
	"shop/views/lang"
	"shop/views/mail"
	"shop/web/paths"
)

// Refund gives money back on an order, from the refund form of the order's
// staff page: units of its lines (back into the warehouse chosen, or
// none; of an order not shipping yet, back where they were allocated) or
// an amount, with a reason. Sent from the order's page, it only shows
// what the refund would give back and to which tender, to confirm; the
// confirmed form (confirm=yes) makes it, and "Change" (edit=1) brings the
// form back as typed. The form's key, made when it rendered, makes the
// refund once however often it is sent; a form that comes back with
// errors keeps its key, so that sending it again after a card refund that
// did not go through finishes that same refund. Bad input is a 422 with
// each field's error and nothing written.
func (h *AdminOrders) Refund(c *fiber.Ctx) error {
	by, ok := page.StaffMember(c)
	if !ok {
		return page.Forbidden(page.T(c, "admin.refunds.err.staff_only"))
	}
	id, err := pathID(c, "id", "error.not_found.order")
	if err != nil {
		return err
	}
	data, err := h.orderPage(c, id)
	if err != nil {
		return err
	}
	d := data.Details
	form, req, errs := readRefundForm(c, d, data.Warehouses)
	req.By, req.Mail = by, mail.OrderRefund(c.BaseURL(), h.Store.Now)
	if errs.Any() || page.Field(c, "edit") == "1" {
		status := fiber.StatusOK
		if errs.Any() {
			status = fiber.StatusUnprocessableEntity
		}
		data.Refund, data.Refund.Errors = form, errs
		return page.Render(c, status, page.View{Title: page.T(c, "admin.orders.order", "Order", d.Order.Label()), Page: page.Full(views.AdminOrderView, data)})
	}
	if page.Field(c, "confirm") != "yes" {
		preview, err := d.PreviewRefund(req)
		if err != nil {
			return h.refundRefused(c, d, form, req, errs, err)
		}
		inv, _ := d.Invoice()
		confirm := views.AdminRefundConfirm{Order: d.Order, Refund: preview, Payments: inv.Payments,
			RestockName: data.Warehouses[preview.RestockWarehouse], Action: paths.AdminOrderRefunds(id), Fields: form.Fields(),
			Back: paths.AdminOrder(id), CanChange: true, CSRF: page.CSRFToken(c)}
		return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "admin.refunds.confirm_page", "Order", d.Order.Label()), Page: page.Full(views.AdminRefundConfirmView, confirm)})
	}
	rf, err := h.Store.RefundOrder(c.UserContext(), req, h.Refunds)
	if err != nil {
		return h.refundRefused(c, d, form, req, errs, err)
	}
	page.Written(c, "order", id, "refund", rf.ID)
	page.Flash(c, views.FlashSuccess, refundedText(c, rf))
	return page.Redirect(c, paths.AdminOrder(id))
}

// refundRefused answers a refund the store would not plan or make: the
// order's page as it is now, with the form as sent and what was wrong.
func (h *AdminOrders) refundRefused(c *fiber.Ctx, d store.OrderDetails, form views.RefundForm, req store.OrderRefundRequest, errs views.FieldErrors, err error) error {
	id := d.Order.ID
	field := "amount"
	if len(req.Lines) > 0 {
		field = "lines"
	}
	switch {
	case errors.Is(err, store.ErrRefundExceedsCharge):
		errs[field] = page.T(c, "admin.refunds.err.exceeds", "Amount", lang.Money(c.UserContext(), d.Order.Refundable()))
		return h.renderRefund(c, id, fiber.StatusUnprocessableEntity, form, errs, "")
	case errors.Is(err, store.ErrRefundLines):
		errs["lines"] = page.T(c, "admin.refunds.err.lines")
		return h.renderRefund(c, id, fiber.StatusUnprocessableEntity, form, errs, "")
	case errors.Is(err, store.ErrShippingRefunded), errors.Is(err, store.ErrNoShipping):
		// Given back by another refund meanwhile (the page showed the
		// choice): the order as it is now, without it.
		form.Shipping = false
		return h.renderRefund(c, id, fiber.StatusConflict, form, errs, page.T(c, "admin.refunds.err.shipping_refunded"))
	case errors.Is(err, store.ErrShippingStarted):
		return h.renderRefund(c, id, fiber.StatusConflict, form, errs, page.T(c, "admin.refunds.err.shipping_started"))
	case errors.Is(err, store.ErrRefundCard):
		return h.renderRefund(c, id, fiber.StatusBadGateway, form, errs,
			page.T(c, "admin.refunds.err.card"))
	case errors.Is(err, store.ErrConflict):
		return h.renderRefund(c, id, fiber.StatusConflict, form, errs, page.T(c, "admin.refunds.err.conflict"))
	case errors.Is(err, store.ErrBadRefund):
		errs[""] = upperFirstText(err.Error()) + "."
		return h.renderRefund(c, id, fiber.StatusUnprocessableEntity, form, errs, "")
	}
	return notFoundAs(err, "error.not_found.order")
}

// refundedText says what a refund gave back, and where.
func refundedText(c *fiber.Ctx, rf store.Refund) string {
	ctx := c.UserContext()
	amount, gift, card := lang.Money(ctx, rf.Amount), lang.Money(ctx, rf.GiftCard), lang.Money(ctx, rf.Card)
	restock := rf.RestockWarehouse != "" || rf.BackWhereAllocated && len(rf.Lines) > 0
	switch {
	case rf.GiftCard.Amount > 0 && rf.Card.Amount > 0 && restock:
		return page.T(c, "admin.refunds.done.both_restock", "Amount", amount, "GiftCard", gift, "Card", card)
	case rf.GiftCard.Amount > 0 && rf.Card.Amount > 0:
		return page.T(c, "admin.refunds.done.both", "Amount", amount, "GiftCard", gift, "Card", card)
	case rf.GiftCard.Amount > 0 && restock:
		return page.T(c, "admin.refunds.done.gift_restock", "Amount", amount)
	case rf.GiftCard.Amount > 0:
		return page.T(c, "admin.refunds.done.gift", "Amount", amount)
	case rf.Card.Amount > 0 && restock:
		return page.T(c, "admin.refunds.done.card_restock", "Amount", amount)
	case rf.Card.Amount > 0:
		return page.T(c, "admin.refunds.done.card", "Amount", amount)
	case restock:
		return page.T(c, "admin.refunds.done.restock", "Amount", amount)
	}
	return page.T(c, "admin.refunds.done", "Amount", amount)
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
// into, if any. A form made while the order was placed has no warehouse:
// its units go back where they were allocated, and it says so (placed) so
// that the store refuses it if the order is shipping by now.
func readRefundForm(c *fiber.Ctx, d store.OrderDetails, warehouses map[string]string) (views.RefundForm, store.OrderRefundRequest, views.FieldErrors) {
	form := views.RefundForm{
		Key: page.Field(c, "key"), Amount: strings.TrimSpace(page.Field(c, "amount")), Reason: page.Field(c, "reason"),
		Restock: page.Field(c, "restock"), Units: map[string]string{}, Shipping: page.Field(c, "shipping") == "1",
		Placed: page.Field(c, "placed") == "1",
	}
	errs := views.FieldErrors{}
	req := store.OrderRefundRequest{OrderID: d.Order.ID, Key: form.Key, Reason: strings.TrimSpace(form.Reason), RestockWarehouse: form.Restock,
		SawPlaced: page.Field(c, "placed") == "1" || d.Order.Status == store.OrderPlaced, Shipping: form.Shipping}
	if req.SawPlaced {
		form.Restock, req.RestockWarehouse = "", ""
	}
	if !store.ValidID(form.Key) || len(form.Key) > 36 {
		errs[""] = page.T(c, "admin.refunds.err.stale")
		form.Key = store.NewID()
	}
	for _, it := range d.Items {
		name := views.RefundUnitsField(it)
		v := strings.TrimSpace(page.Field(c, name))
		form.Units[name] = v
		if v == "" || v == "0" {
			continue
		}
		n, problem := parseRefundUnits(v, it.Quantity-it.Refunded)
		if problem != "" {
			errs[name] = page.T(c, problem, "Left", it.Quantity-it.Refunded)
			continue
		}
		req.Lines = append(req.Lines, store.RefundLine{ProductID: it.ProductID, DropID: it.DropID, Quantity: n})
	}
	if form.Amount != "" {
		m, err := rules.ParseMoney(form.Amount, d.Order.Total.Currency)
		switch {
		case err != nil:
			errs["amount"] = page.T(c, "admin.refunds.err.amount")
		case m.Amount == 0:
			errs["amount"] = page.T(c, "admin.refunds.err.amount_zero")
		case m.Amount > d.Order.Refundable().Amount:
			errs["amount"] = page.T(c, "admin.refunds.err.amount_most", "Amount", lang.Money(c.UserContext(), d.Order.Refundable()))
		case len(req.Lines) > 0:
			errs["amount"] = page.T(c, "admin.refunds.err.both")
		default:
			req.Amount = m
		}
	} else if len(req.Lines) == 0 && !req.Shipping && !errs.Any() {
		errs["amount"] = page.T(c, "admin.refunds.err.neither")
	}
	switch {
	case req.Reason == "":
		errs["reason"] = page.T(c, "admin.refunds.err.reason")
	case len([]rune(req.Reason)) > 500:
		errs["reason"] = page.T(c, "admin.refunds.err.reason_long")
	}
	if _, known := warehouses[form.Restock]; form.Restock != "" && !known {
		errs["restock"] = page.T(c, "admin.refunds.err.restock")
	} else if form.Restock != "" && len(req.Lines) == 0 && form.Amount != "" {
		errs["restock"] = page.T(c, "admin.refunds.err.restock_amount")
	}
	return form, req, errs
}

// parseRefundUnits reads a line's units to refund as typed: a whole number
// from 1 to left, or the message id of what is wrong with it (its value
// Left).
func parseRefundUnits(s string, left int) (int, string) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	switch {
	case err != nil || n < 1:
		return 0, "admin.refunds.err.units_whole"
	case n > left:
		return 0, "admin.refunds.err.units_most"
	}
	return n, ""
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
	return page.Render(c, status, page.View{Title: page.T(c, "admin.orders.order", "Order", data.Details.Order.Label()), Page: page.Full(views.AdminOrderView, data)})
}
