package handlers

import (
	"context"
	"errors"
	"regexp"
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/store"
	"shop/views/lang"
	"shop/views/pdfdoc"
)

// The documents as PDF, for the customer (their own only; another's is a
// 404 as on its page) and for staff: rendered on each download, never
// stored, in the customer's language (the one their mails are in).

// locator is the shop's zone: a document's dates are its days.
type locator interface {
	Location() *time.Location
}

// pdfCommon is what every document of a customer in language code carries.
func pdfCommon(ctx context.Context, st SellerReader, code string, loc locator) (pdfdoc.Common, error) {
	sel, err := st.Seller(ctx)
	if err != nil {
		return pdfdoc.Common{}, err
	}
	return pdfdoc.Common{Lang: lang.OrEnglish(code), Loc: loc.Location(), Seller: sel}, nil
}

// invoicePDF renders an order's invoice (ErrNotFound: it has none yet).
func invoicePDF(ctx context.Context, st SellerReader, loc locator, d store.OrderDetails) (string, []byte, error) {
	inv, ok := d.Invoice()
	if !ok {
		return "", nil, store.ErrNotFound
	}
	common, err := pdfCommon(ctx, st, d.Order.Buyer.Lang, loc)
	if err != nil {
		return "", nil, err
	}
	pdf, err := pdfdoc.Invoice(ctx, common, d, inv)
	return "invoice-" + inv.ID + ".pdf", pdf, err
}

// receiptPDF renders a receipt.
func receiptPDF(ctx context.Context, st SellerReader, loc locator, r store.Receipt) (string, []byte, error) {
	common, err := pdfCommon(ctx, st, r.Lang, loc)
	if err != nil {
		return "", nil, err
	}
	pdf, err := pdfdoc.Receipt(ctx, common, r)
	return "receipt-" + r.NumberInBooks() + ".pdf", pdf, err
}

// receiptCreditNotePDF renders the credit note numbered note of a
// receipt's refund (ErrNotFound: the receipt has none of that number).
func receiptCreditNotePDF(ctx context.Context, st SellerReader, loc locator, r store.Receipt, note string) (string, []byte, error) {
	n, ok := r.CreditNote(note)
	if !ok {
		return "", nil, store.ErrNotFound
	}
	common, err := pdfCommon(ctx, st, r.Lang, loc)
	if err != nil {
		return "", nil, err
	}
	pdf, err := pdfdoc.ReceiptCreditNote(ctx, common, r, n)
	return "credit-note-" + n.Number + ".pdf", pdf, err
}

// fileNameUnsafe is what a download's name may not hold: it keeps a download's name to letters, digits, dots and dashes.
var fileNameUnsafe = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// sendPDF answers a document as a download, private and not stored.
func sendPDF(c *fiber.Ctx, name string, pdf []byte, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return notFoundAs(err, "error.not_found.document")
	}
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, "application/pdf")
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="`+fileNameUnsafe.ReplaceAllString(name, "-")+`"`)
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	return c.Send(pdf)
}

// creditNotePDF renders the credit note of an order's refund (ErrNotFound:
// no such refund, or not numbered yet, or no invoice).
func creditNotePDF(ctx context.Context, st SellerReader, loc locator, d store.OrderDetails, key string) (string, []byte, error) {
	rf, ok := d.Refund(key)
	inv, hasInvoice := d.Invoice()
	if !ok || !hasInvoice || rf.CreditNote == "" {
		return "", nil, store.ErrNotFound
	}
	common, err := pdfCommon(ctx, st, d.Order.Buyer.Lang, loc)
	if err != nil {
		return "", nil, err
	}
	pdf, err := pdfdoc.CreditNote(ctx, common, d, inv, rf)
	return "credit-note-" + rf.CreditNote + ".pdf", pdf, err
}

// CreditNotePDF is the credit note of one of the customer's order's
// refunds.
func (h *Orders) CreditNotePDF(c *fiber.Ctx) error {
	v, err := orderViewerFor(c, c.OriginalURL())
	if err != nil || !v.SignedIn() {
		return err
	}
	d, err := h.ownOrder(c, v)
	if err != nil {
		return err
	}
	name, pdf, err := creditNotePDF(c.UserContext(), h.Store, h.Store, d, c.Params("key"))
	return sendPDF(c, name, pdf, err)
}

// AdminCreditNoteStore is what staff's credit notes read.
type AdminCreditNoteStore interface {
	OrderDetails(ctx context.Context, orderID string) (store.OrderDetails, error)
	Location() *time.Location
	SellerReader
}

// AdminCreditNotes serves a refund's credit note to staff.
type AdminCreditNotes struct {
	Store AdminCreditNoteStore
}

// PDF is the credit note of an order's refund, as its customer gets it.
func (h *AdminCreditNotes) PDF(c *fiber.Ctx) error {
	id, err := pathID(c, "id", "error.not_found.order")
	if err != nil {
		return err
	}
	d, err := h.Store.OrderDetails(c.UserContext(), id)
	if err != nil {
		return notFoundAs(err, "error.not_found.order")
	}
	name, pdf, err := creditNotePDF(c.UserContext(), h.Store, h.Store, d, c.Params("key"))
	return sendPDF(c, name, pdf, err)
}

// MailAttachmentStore is what rendering a mail's document reads.
type MailAttachmentStore interface {
	OrderDetails(ctx context.Context, orderID string) (store.OrderDetails, error)
	Receipt(ctx context.Context, customerID, number string) (store.Receipt, error)
	Location() *time.Location
	SellerReader
}

// MailAttachment renders the document a mail carries, when it is sent
// (jobs.DeliveryConfig.Attach): the order's invoice, or the receipt. A
// document that is not there (an order of a subscription's period has no
// invoice of its own) is no attachment, not a failure: the mail goes
// without.
func MailAttachment(st MailAttachmentStore) func(ctx context.Context, m store.Mail) (string, []byte, error) {
	return func(ctx context.Context, m store.Mail) (string, []byte, error) {
		name, pdf, err := mailDocument(ctx, st, m)
		if errors.Is(err, store.ErrNotFound) {
			return "", nil, nil
		}
		return name, pdf, err
	}
}

// mailDocument renders the invoice of the mail's order, or its receipt.
func mailDocument(ctx context.Context, st MailAttachmentStore, m store.Mail) (string, []byte, error) {
	if m.AttachOrder != "" {
		d, err := st.OrderDetails(ctx, m.AttachOrder)
		if err != nil {
			return "", nil, err
		}
		return invoicePDF(ctx, st, st, d)
	}
	r, err := st.Receipt(ctx, m.CustomerID, m.AttachReceipt)
	if err != nil {
		return "", nil, err
	}
	return receiptPDF(ctx, st, st, r)
}
