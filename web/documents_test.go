package web_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"shop/store/demo"
	"shop/web/paths"
)

// wantPDFDownload checks a document's download: a PDF, to save, private
// and not stored, named as the document.
func wantPDFDownload(t *testing.T, what string, p page, name string) {
	t.Helper()
	wantStatus(t, what, p, http.StatusOK)
	if ct := p.header.Get("Content-Type"); ct != "application/pdf" {
		t.Errorf("%s: Content-Type %q", what, ct)
	}
	if cc := p.header.Get("Cache-Control"); cc != "private, no-store" {
		t.Errorf("%s: Cache-Control %q", what, cc)
	}
	if cd := p.header.Get("Content-Disposition"); cd != `attachment; filename="`+name+`"` {
		t.Errorf("%s: Content-Disposition %q, want the file %s", what, cd, name)
	}
	if !bytes.HasPrefix([]byte(p.body), []byte("%PDF-")) {
		t.Errorf("%s: not a PDF: %q", what, trim(p.body))
	}
}

// A customer downloads their order's invoice and their receipt as PDFs
// from the pages that show them; another customer's are 404s; staff
// download both from theirs.
func TestDocumentPDFDownloads(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := context.Background()
	m := newOrderMaker(t, s.env.Store)
	ada := s.customerID(t, demo.CustomerEmail)
	o := m.place(s.env.Store, ada, line("kt-mug", 1))
	d, err := s.env.Store.OrderDetails(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	inv, _ := d.Invoice()

	c := s.browser(t)
	c.signIn(demo.CustomerEmail, demo.CustomerPassword)
	op := c.get(paths.Order(o.ID))
	if href, _ := op.testid("invoice-pdf").Attr("href"); href != paths.OrderInvoicePDF(o.ID) {
		t.Fatalf("the order page links the invoice's PDF at %q", href)
	}
	wantPDFDownload(t, "customer's invoice", c.get(paths.OrderInvoicePDF(o.ID)), "invoice-"+inv.ID+".pdf")

	recs, err := s.env.Store.Receipts(ctx, ada, "2000-01-01", "2100-01-01", 1, "")
	if err != nil || len(recs.Items) == 0 {
		t.Fatalf("the demo's Ada has no receipt: %v", err)
	}
	r := recs.Items[0]
	rp := c.get(paths.Receipt(r.Number))
	if href, _ := rp.testid("receipt-pdf").Attr("href"); href != paths.ReceiptPDF(r.Number) {
		t.Fatalf("the receipt page links its PDF at %q", href)
	}
	wantPDFDownload(t, "customer's receipt", c.get(paths.ReceiptPDF(r.Number)), "receipt-"+r.NumberInBooks()+".pdf")

	other := s.browser(t)
	other.signIn("henrik@fikafield.example", "customer-demo-password")
	wantStatus(t, "another's invoice", other.get(paths.OrderInvoicePDF(o.ID)), http.StatusNotFound)
	wantStatus(t, "another's receipt", other.get(paths.ReceiptPDF(r.Number)), http.StatusNotFound)
	if p := s.browser(t).get(paths.OrderInvoicePDF(o.ID)); p.status == http.StatusOK || strings.HasPrefix(p.body, "%PDF") {
		t.Fatalf("a visitor got the invoice: %d", p.status)
	}

	b := s.staff(t)
	ip := b.get(paths.AdminInvoice(inv.ID))
	if href, _ := ip.testid("invoice-pdf").Attr("href"); href != paths.AdminInvoicePDF(inv.ID) {
		t.Fatalf("staff's invoice page links its PDF at %q", href)
	}
	wantPDFDownload(t, "staff's invoice", b.get(paths.AdminInvoicePDF(inv.ID)), "invoice-"+inv.ID+".pdf")
	wantPDFDownload(t, "staff's receipt", b.get(paths.AdminReceiptPDF(ada, r.Number)), "receipt-"+r.NumberInBooks()+".pdf")
	wantStatus(t, "staff's unknown invoice", b.get(paths.AdminInvoicePDF("2026-999999")), http.StatusNotFound)

	// A refund is a credit note: linked on both order pages once numbered.
	orderPage := paths.AdminOrder(o.ID)
	wantStatus(t, "refund", b.post(paths.AdminOrderRefunds(o.ID), refundForm(t, b.get(orderPage), "amount", "3.80", "reason", "Late delivery")), http.StatusSeeOther)
	d, err = s.env.Store.OrderDetails(ctx, o.ID)
	if err != nil || len(d.Refunds) != 1 || !strings.HasPrefix(d.Refunds[0].CreditNote, "CN") {
		t.Fatalf("the refund has no credit note: %+v, %v", d.Refunds, err)
	}
	rf := d.Refunds[0]
	if href, _ := b.get(orderPage).testid("credit-note-pdf").Attr("href"); href != paths.AdminCreditNotePDF(o.ID, rf.ID) {
		t.Fatalf("staff's order page links the credit note at %q", href)
	}
	wantPDFDownload(t, "staff's credit note", b.get(paths.AdminCreditNotePDF(o.ID, rf.ID)), "credit-note-"+rf.CreditNote+".pdf")
	mine := c.get(paths.Order(o.ID))
	wantText(t, "customer's credit note", mine.testid("credit-note-pdf"), rf.CreditNote)
	wantPDFDownload(t, "customer's credit note", c.get(paths.OrderCreditNotePDF(o.ID, rf.ID)), "credit-note-"+rf.CreditNote+".pdf")
	wantStatus(t, "another's credit note", other.get(paths.OrderCreditNotePDF(o.ID, rf.ID)), http.StatusNotFound)
	wantStatus(t, "no such refund", c.get(paths.OrderCreditNotePDF(o.ID, "nosuchrefund")), http.StatusNotFound)
}
