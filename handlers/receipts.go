package handlers

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/web/paths"
)

// ReceiptStore is what the receipt pages read.
type ReceiptStore interface {
	Statement(ctx context.Context, customerID string, limit int, cursor string) (store.Page[store.StatementLine], error)
	Receipt(ctx context.Context, customerID, number string) (store.Receipt, error)
	Location() *time.Location
	SellerReader
}

const receiptsPageSize = 20

// Receipts serves /receipts: what a customer paid in the last six months,
// their subscriptions' receipts and their orders' invoices together.
type Receipts struct {
	Store ReceiptStore
}

// List is the statement, newest first, a page at a time; htmx asks for the
// next page's rows only.
func (h *Receipts) List(c *fiber.Ctx) error {
	v, err := signedInFor(c, paths.Receipts)
	if err != nil || !v.SignedIn() {
		return err
	}
	lines, err := h.Store.Statement(c.UserContext(), v.ID, receiptsPageSize, c.Query("after"))
	if err != nil {
		return err
	}
	data := views.ReceiptsPage{Lines: lines.Items, Loc: h.Store.Location()}
	data.NextURL = paths.More(paths.Receipts, lines.Next)
	return page.List(c, page.T(c, "receipts.title"), views.ReceiptsView, views.ReceiptRows, data)
}

// PDF is one of the customer's receipts as a PDF; another's is a 404.
func (h *Receipts) PDF(c *fiber.Ctx) error {
	v, err := signedInFor(c, c.OriginalURL())
	if err != nil || !v.SignedIn() {
		return err
	}
	r, err := h.ownReceipt(c, v)
	if err != nil {
		return err
	}
	name, pdf, err := receiptPDF(c.UserContext(), h.Store, h.Store, r)
	return sendPDF(c, name, pdf, err)
}

// CreditNotePDF is the credit note of one of the customer's receipts'
// refunds; another's is a 404.
func (h *Receipts) CreditNotePDF(c *fiber.Ctx) error {
	v, err := signedInFor(c, c.OriginalURL())
	if err != nil || !v.SignedIn() {
		return err
	}
	r, err := h.ownReceipt(c, v)
	if err != nil {
		return err
	}
	name, pdf, err := receiptCreditNotePDF(c.UserContext(), h.Store, h.Store, r, c.Params("note"))
	return sendPDF(c, name, pdf, err)
}

// Show is one receipt, by its number. Another customer's number is a 404,
// the same as one that does not exist.
func (h *Receipts) Show(c *fiber.Ctx) error {
	v, err := signedInFor(c, c.OriginalURL())
	if err != nil || !v.SignedIn() {
		return err
	}
	r, err := h.ownReceipt(c, v)
	if err != nil {
		return err
	}
	sel, err := h.Store.Seller(c.UserContext())
	if err != nil {
		return err
	}
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "receipts.receipt.title", "Number", r.NumberInBooks()), Page: page.Full(views.ReceiptView, views.ReceiptPage{Receipt: r, Loc: h.Store.Location(), Seller: sel})})
}

// ownReceipt reads the viewer's receipt of the path's number; another
// customer's number is a 404, the same as one that does not exist.
func (h *Receipts) ownReceipt(c *fiber.Ctx, v views.Viewer) (store.Receipt, error) {
	number := c.Params("number")
	if !store.ValidID(number) {
		return store.Receipt{}, page.NotFound("error.not_found.receipt")
	}
	r, err := h.Store.Receipt(c.UserContext(), v.ID, number)
	if err != nil {
		return store.Receipt{}, notFoundAs(err, "error.not_found.receipt")
	}
	return r, nil
}
