package handlers

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/web/paths"
)

// AdminInvoiceStore is what the staff invoice pages read.
type AdminInvoiceStore interface {
	Invoice(ctx context.Context, invoiceID string) (store.Invoice, error)
	OrderDetails(ctx context.Context, orderID string) (store.OrderDetails, error)
	Location() *time.Location
	SellerReader
}

// AdminInvoices serves /admin/invoices.
type AdminInvoices struct {
	Store AdminInvoiceStore
}

// Lookup is the find-an-invoice form; with ?id= it opens that invoice, or
// says at the field why it cannot.
func (h *AdminInvoices) Lookup(c *fiber.Ctx) error {
	f := views.AdminInvoiceLookup{Errors: views.FieldErrors{}}
	status := fiber.StatusOK
	if c.Context().QueryArgs().Has("id") {
		f.ID = store.InvoiceID(strings.TrimSpace(c.Query("id")))
		status = fiber.StatusUnprocessableEntity
		switch {
		case f.ID == "":
			f.Errors["id"] = page.T(c, "admin.invoices.err.empty")
		case !store.ValidID(f.ID):
			f.Errors["id"] = page.T(c, "admin.invoices.err.shape")
		default:
			_, err := h.Store.Invoice(c.UserContext(), f.ID)
			switch {
			case errors.Is(err, store.ErrNotFound):
				status = fiber.StatusNotFound
				f.Errors["id"] = page.T(c, "admin.invoices.err.unknown", "Number", f.ID)
			case err != nil:
				return err
			default:
				return page.Redirect(c, paths.AdminInvoice(f.ID))
			}
		}
	}
	return page.Render(c, status, page.View{Title: page.T(c, "admin.invoices.title"), Page: page.Full(views.AdminInvoiceLookupView, f)})
}

// Show is one invoice and its payments (access patterns 10 and 11).
func (h *AdminInvoices) Show(c *fiber.Ctx) error {
	id, err := pathID(c, "id", "error.not_found.invoice")
	if err != nil {
		return err
	}
	inv, err := h.Store.Invoice(c.UserContext(), id)
	if err != nil {
		return notFoundAs(err, "error.not_found.invoice")
	}
	ctx := c.UserContext()
	d, err := h.Store.OrderDetails(ctx, inv.OrderID)
	if err != nil && !errors.Is(err, store.ErrNotFound) { // an imported invoice's order may be gone
		return err
	}
	sel, err := h.Store.Seller(ctx)
	if err != nil {
		return err
	}
	p := views.AdminInvoicePage{Invoice: inv, Order: d, Seller: sel}
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "admin.invoices.invoice", "Invoice", id), Page: page.Full(views.AdminInvoiceView, p)})
}

// PDF is the invoice as a PDF, as its customer gets it.
func (h *AdminInvoices) PDF(c *fiber.Ctx) error {
	id, err := pathID(c, "id", "error.not_found.invoice")
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	inv, err := h.Store.Invoice(ctx, id)
	if err != nil {
		return notFoundAs(err, "error.not_found.invoice")
	}
	d, err := h.Store.OrderDetails(ctx, inv.OrderID)
	if err != nil {
		return notFoundAs(err, "error.not_found.invoice")
	}
	d.Invoices = []store.Invoice{inv} // the one asked for
	name, pdf, err := invoicePDF(ctx, h.Store, h.Store, d)
	return sendPDF(c, name, pdf, err)
}
