package web_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"shop/store"
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

// A receipt's refund is a credit note: staff refund a receipt, and the
// customer's and staff's receipt pages link its PDF, numbered in the
// credit notes' series and referring to the receipt; the net row says
// what the receipt came to. Another customer's, or a number the receipt
// does not hold, is a 404.
func TestReceiptCreditNoteDownloads(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := context.Background()
	ada := s.customerID(t, demo.CustomerEmail)
	recs, err := s.env.Store.Receipts(ctx, ada, "2000-01-01", "2100-01-01", 10, "")
	if err != nil {
		t.Fatal(err)
	}
	var r store.Receipt
	for _, it := range recs.Items {
		if it.Refund == nil && it.Amount.Amount > 500 {
			r = it
			break
		}
	}
	if r.Number == "" {
		t.Fatal("the demo's Ada has no receipt to refund")
	}
	b := s.staff(t)
	staffPage := paths.AdminCustomerReceipt(ada, r.Number)
	refund := b.post(paths.AdminReceiptRefund(ada, r.Number), refundForm(t, b.get(staffPage), "amount", "5.00", "reason", "Beans arrived stale"))
	wantStatus(t, "refund the receipt", refund, http.StatusSeeOther)
	done, err := s.env.Store.Receipt(ctx, ada, r.Number)
	if err != nil || done.Refund == nil || !strings.HasPrefix(done.Refund.CreditNote, "CN") {
		t.Fatalf("the receipt's refund has no credit note: %+v %v", done.Refund, err)
	}
	note := done.Refund.CreditNote
	net := r.Amount
	net.Amount -= 500
	sp := b.get(staffPage)
	if href, _ := sp.testid("receipt-credit-note-pdf").Attr("href"); href != paths.AdminReceiptCreditNotePDF(ada, r.Number, note) {
		t.Fatalf("staff's receipt page links the credit note at %q", href)
	}
	wantText(t, "staff's net row", sp.testid("receipt-net"), net.String())
	staffPDF := b.get(paths.AdminReceiptCreditNotePDF(ada, r.Number, note))
	wantPDFDownload(t, "staff's receipt credit note", staffPDF, "credit-note-"+note+".pdf")
	text := strings.Join(strings.Fields(pdfText(t, staffPDF.body)), " ")
	for _, want := range []string{note, r.NumberInBooks(), "Beans arrived stale"} {
		if !strings.Contains(text, want) {
			t.Errorf("the credit note lacks %q:\n%s", want, text)
		}
	}

	c := s.browser(t)
	c.signIn(demo.CustomerEmail, demo.CustomerPassword)
	mine := c.get(paths.Receipt(r.Number))
	wantText(t, "customer's credit note link", mine.testid("receipt-credit-note-pdf"), note)
	wantText(t, "customer's net row", mine.testid("receipt-net"), net.String())
	wantPDFDownload(t, "customer's receipt credit note", c.get(paths.ReceiptCreditNotePDF(r.Number, note)), "credit-note-"+note+".pdf")
	wantStatus(t, "a note the receipt does not hold", c.get(paths.ReceiptCreditNotePDF(r.Number, "CN2000-000001")), http.StatusNotFound)
	other := s.browser(t)
	other.signIn("henrik@fikafield.example", "customer-demo-password")
	wantStatus(t, "another's credit note", other.get(paths.ReceiptCreditNotePDF(r.Number, note)), http.StatusNotFound)
}
