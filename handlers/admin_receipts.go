package handlers

import (
	"context"
	"errors"
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

// AdminReceiptStore is what staff's receipt page reads and writes.
type AdminReceiptStore interface {
	Receipt(ctx context.Context, customerID, number string) (store.Receipt, error)
	RefundReceipt(ctx context.Context, req store.RefundRequest, refunder store.Refunder, mail func(store.Receipt) *store.Mail) (store.Receipt, error)
	Location() *time.Location
	SellerReader
}

// AdminReceipts serves a customer's receipt for staff, and its refund.
type AdminReceipts struct {
	Store    AdminReceiptStore
	Refunder store.Refunder
	// Mail is the refund's mail to the customer (mail.ReceiptRefund).
	Mail func(store.Receipt) *store.Mail
}

// Show is the receipt with its refund, or the form to refund it.
func (h *AdminReceipts) Show(c *fiber.Ctx) error {
	r, err := h.receipt(c)
	if err != nil {
		return err
	}
	f := views.AdminRefundForm{Key: store.NewID(), Amount: r.Amount.Decimal(), Errors: views.FieldErrors{}}
	return h.render(c, fiber.StatusOK, r, f)
}

// PDF is the receipt as a PDF, as its customer gets it.
func (h *AdminReceipts) PDF(c *fiber.Ctx) error {
	r, err := h.receipt(c)
	if err != nil {
		return err
	}
	name, pdf, err := receiptPDF(c.UserContext(), h.Store, h.Store, r)
	return sendPDF(c, name, pdf, err)
}

// CreditNotePDF is the credit note of the receipt's refund, as its
// customer gets it.
func (h *AdminReceipts) CreditNotePDF(c *fiber.Ctx) error {
	r, err := h.receipt(c)
	if err != nil {
		return err
	}
	name, pdf, err := receiptCreditNotePDF(c.UserContext(), h.Store, h.Store, r, c.Params("note"))
	return sendPDF(c, name, pdf, err)
}

func (h *AdminReceipts) receipt(c *fiber.Ctx) (store.Receipt, error) {
	customer, number := c.Params("id"), c.Params("number")
	if !store.ValidID(customer) || !store.ValidID(number) {
		return store.Receipt{}, page.NotFound("error.not_found.receipt")
	}
	r, err := h.Store.Receipt(c.UserContext(), customer, number)
	if err != nil {
		return store.Receipt{}, notFoundAs(err, "error.not_found.receipt")
	}
	return r, nil
}

func (h *AdminReceipts) render(c *fiber.Ctx, status int, r store.Receipt, f views.AdminRefundForm) error {
	f.CSRF = page.CSRFToken(c)
	sel, err := h.Store.Seller(c.UserContext())
	if err != nil {
		return err
	}
	data := views.AdminReceiptPage{Receipt: r, Form: f, Loc: h.Store.Location(), Seller: sel}
	return page.Render(c, status, page.View{Title: page.T(c, "admin.subrefunds.receipt_n", "Number", r.NumberInBooks()), Page: page.Full(views.AdminReceiptView, data)})
}

// Refund gives back the amount typed (the whole payment, or part of it)
// with a reason, once per receipt, after staff confirm it (confirm=yes;
// edit=1 brings the form back as typed): the form's key makes a double
// submit one refund, and a second refund of the receipt is refused. Bad input comes
// back at its field with a 422 and nothing written.
func (h *AdminReceipts) Refund(c *fiber.Ctx) error {
	r, err := h.receipt(c)
	if err != nil {
		return err
	}
	f := views.AdminRefundForm{
		Key: strings.TrimSpace(page.Field(c, "key")), Amount: strings.TrimSpace(page.Field(c, "amount")),
		Reason: strings.TrimSpace(page.Field(c, "reason")), Errors: views.FieldErrors{},
	}
	finish := page.Field(c, "finish") == "yes"
	if !store.ValidID(f.Key) || len(f.Key) > 36 {
		return page.BadRequest("error.form_broken")
	}
	amount, err := rules.ParseMoney(f.Amount, r.Amount.Currency)
	switch {
	case finish:
		if r.Refund == nil || r.Refund.Status != store.ReceiptRefundPending {
			return page.BadRequest(page.T(c, "admin.subrefunds.nothing_to_finish"))
		}
		amount, f.Reason = r.Refund.Amount, r.Refund.Reason
	case f.Amount == "":
		f.Errors["amount"] = page.T(c, "admin.subrefunds.amount_empty", "Example", r.Amount.Decimal())
	case err != nil:
		f.Errors["amount"] = page.T(c, "admin.subrefunds.amount_bad")
	case amount.Amount <= 0 || amount.Amount > r.Amount.Amount:
		f.Errors["amount"] = page.T(c, "admin.subrefunds.amount_range", "Paid", lang.Money(c.UserContext(), r.Amount))
	}
	if !finish && (f.Reason == "" || len([]rune(f.Reason)) > 500) {
		f.Errors["reason"] = page.T(c, "admin.subrefunds.reason_bad")
	}
	if f.Errors.Any() {
		return h.render(c, fiber.StatusUnprocessableEntity, r, f)
	}
	if page.Field(c, "edit") == "1" {
		return h.render(c, fiber.StatusOK, r, f)
	}
	if !finish && r.Refund == nil && page.Field(c, "confirm") != "yes" {
		// Asked from the receipt's page: what would go back, to confirm.
		// (A receipt refunded already goes on to the store, which tells
		// a double submit from a second refund.)
		f.CSRF = page.CSRFToken(c)
		data := views.AdminReceiptRefundConfirm{Receipt: r, Amount: amount, Form: f}
		return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "admin.refunds.confirm_crumb"), Page: page.Full(views.AdminReceiptRefundConfirmView, data)})
	}
	done, err := h.Store.RefundReceipt(c.UserContext(), store.RefundRequest{
		CustomerID: r.AccountID, Number: r.Number, Amount: amount, Reason: f.Reason, By: page.Viewer(c).Name, Key: f.Key, Finish: finish,
	}, h.Refunder, h.Mail)
	switch {
	case err == nil && done.Refund != nil && done.Refund.Status == store.ReceiptRefundPending:
		// The provider took it and confirms it later (its event, the job).
		page.Written(c, "customer", r.AccountID, "receipt", r.Number)
		page.Flash(c, views.FlashSuccess, page.T(c, "admin.cardrefunds.provider_pending", "Amount", lang.Money(c.UserContext(), done.Refund.Amount)))
		return page.Redirect(c, paths.AdminCustomerReceipt(r.AccountID, r.Number))
	case err == nil:
		page.Written(c, "customer", r.AccountID, "receipt", r.Number)
		page.Flash(c, views.FlashSuccess, page.T(c, "admin.subrefunds.done", "Amount", lang.Money(c.UserContext(), done.Refunded()), "Card", done.Card.Label()))
		return page.Redirect(c, paths.AdminCustomerReceipt(r.AccountID, r.Number))
	case errors.Is(err, store.ErrAlreadyRefunded):
		f.Errors[""] = page.T(c, "admin.subrefundsx.already")
		return h.render(c, fiber.StatusConflict, done, f)
	case errors.Is(err, store.ErrRefundUnderWay):
		f.Errors[""] = page.T(c, "admin.subrefundsx.under_way")
		return h.render(c, fiber.StatusConflict, done, f)
	case errors.Is(err, store.ErrRefundAmount):
		f.Errors["amount"] = page.T(c, "admin.subrefundsx.amount")
		return h.render(c, fiber.StatusUnprocessableEntity, done, f)
	case errors.Is(err, store.ErrRefundRefused), errors.Is(err, store.ErrRefundExceedsCharge), errors.Is(err, store.ErrBadRefund), errors.Is(err, store.ErrNotFound):
		f.Errors[""] = page.T(c, "admin.subrefunds.refused", "Reason", err.Error())
		return h.render(c, fiber.StatusUnprocessableEntity, r, f)
	case done.Refund != nil && done.Refund.Status == store.ReceiptRefundPending:
		// The gateway did not answer: the refund waits on the receipt.
		f.Errors[""] = page.T(c, "admin.subrefunds.no_answer")
		return h.render(c, fiber.StatusServiceUnavailable, done, f)
	}
	return notFoundAs(err, "error.not_found.receipt")
}
