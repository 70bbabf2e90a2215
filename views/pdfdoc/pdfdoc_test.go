package pdfdoc_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"shop/store"
	"shop/store/rules"
	"shop/views/lang"
	"shop/views/pdfdoc"
)

var seller = store.Seller{LegalName: "Fika & Field AB", Address: "Hamngatan 12\n411 11 Göteborg\nSweden", VATNumber: "SE556677889901", Version: 1}

func eur(c int64) store.Money { return store.Money{Amount: c, Currency: "EUR"} }

// sampleOrder is an order of two lines at two rates, delivered, paid with
// a gift card and a card.
func sampleOrder() (store.OrderDetails, store.Invoice) {
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	o := store.Order{ID: "01jd8k2m3n4p5q6r7s8t", Number: "FF-7K3Q92", PlacedAt: at, Subtotal: eur(5670), Total: eur(6160), Shipping: eur(490),
		ShipTo: store.Address{Name: "김민준", Street: "Storgatan", Number: "1", ZipCode: "50330", City: "Borås", Country: "Sweden"}}
	items := []store.OrderItem{
		{ProductName: "Kaffekopp (머그컵)", Price: eur(1890), Quantity: 2, VATRate: 2500},
		{ProductName: "Bryggkaffe", Price: eur(1890), Quantity: 1, VATRate: 1200},
	}
	inv := store.Invoice{ID: "2026-000123", OrderID: o.ID, Buyer: store.Buyer{Name: "김민준", Email: "minjun@fikafield.example"}, Date: at,
		Amount: eur(6160), Shipping: eur(490),
		Payments: []store.Payment{{Type: "GiftCard", Amount: eur(1000), Reference: "•••• FT20"}, {Type: "Visa", Amount: eur(5160), Reference: "ch_1 •••• 4242"}},
		VAT:      rules.VATBreakdown([]rules.Taxed{{Rate: 2500, Gross: eur(3780 + 490)}, {Rate: 1200, Gross: eur(1890)}}, store.Money{})}
	return store.OrderDetails{Order: o, Items: items, Invoices: []store.Invoice{inv}}, inv
}

// text is the document's text as pdftotext reads it (poppler-utils).
func text(t *testing.T, pdf []byte) string {
	t.Helper()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Fatal("pdftotext is not installed (apt-get install poppler-utils; .ci/run installs it)")
	}
	cmd := exec.Command("pdftotext", "-layout", "-", "-")
	cmd.Stdin = bytes.NewReader(pdf)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(out)
}

func wantPDF(t *testing.T, what string, pdf []byte, pages int, texts ...string) string {
	t.Helper()
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Fatalf("%s: no PDF header: %q", what, pdf[:min(len(pdf), 16)])
	}
	if n := bytes.Count(pdf, []byte("/Type /Page\n")) + bytes.Count(pdf, []byte("/Type /Page ")); n != pages {
		t.Errorf("%s: %d pages, want %d", what, n, pages)
	}
	got := text(t, pdf)
	flat := strings.Join(strings.Fields(got), " ")
	for _, w := range texts {
		if !strings.Contains(flat, w) {
			t.Errorf("%s: no %q in\n%s", what, w, got)
		}
	}
	return got
}

func TestInvoicePDF(t *testing.T) {
	d, inv := sampleOrder()
	for _, c := range []struct {
		lang  lang.Lang
		texts []string
	}{
		{lang.English, []string{"Invoice 2026-000123", "Order FF-7K3Q92", "VAT number SE556677889901", "Fika & Field AB", "Hamngatan 12", "Billed to", "김민준", "Storgatan 1", "50330 Borås", "Kaffekopp (머그컵)", "€61.60", "25 %", "12 %", "Gift card ending FT20", "Visa ending in 4242"}},
		{lang.Korean, []string{"청구서 2026-000123", "부가가치세 번호 SE556677889901", "판매자", "청구 대상", "김민준", "머그컵", "품목", "단가"}},
		{lang.Indonesian, []string{"Faktur 2026-000123", "Nomor PPN SE556677889901", "Ditagihkan kepada"}},
	} {
		pdf, err := pdfdoc.Invoice(context.Background(), pdfdoc.Common{Lang: c.lang, Seller: seller, Options: pdfdoc.Options{Uncompressed: true}}, d, inv)
		if err != nil {
			t.Fatal(err)
		}
		wantPDF(t, "invoice "+string(c.lang), pdf, 1, c.texts...)
		keep(t, "invoice-"+string(c.lang)+".pdf", pdf)
	}
}

func TestReceiptPDF(t *testing.T) {
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	r := store.Receipt{Number: "R0000000000AA", BookNumber: "R2026-000024", ProductName: "Kaffe varje månad", Email: "ada@fikafield.example",
		ProcessedAt: at, PeriodStart: at, PeriodEnd: at.AddDate(0, 1, 0), Amount: eur(1490), Card: store.Card{Brand: "Visa", Last4: "4242"}, ChargeID: "ch_9",
		VAT: rules.VATBreakdown([]rules.Taxed{{Rate: 1200, Gross: eur(1490)}}, store.Money{})}
	pdf, err := pdfdoc.Receipt(context.Background(), pdfdoc.Common{Lang: lang.Korean, Seller: seller}, r)
	if err != nil {
		t.Fatal(err)
	}
	keep(t, "receipt-ko.pdf", pdf)
	wantPDF(t, "receipt", pdf, 1, "영수증 R2026-000024", "SE556677889901", "Kaffe varje månad", "ada@fikafield.example", "12 %")
}

// keep writes a document into $SHOP_PDF_OUT, if set, to look at.
func keep(t *testing.T, name string, pdf []byte) {
	if dir := os.Getenv("SHOP_PDF_OUT"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, name), pdf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCreditNotePDF(t *testing.T) {
	d, inv := sampleOrder()
	d.Items[0].ProductID = "kt-mug"
	rf := store.Refund{ID: "rf-1", Amount: eur(1890 + 300), Card: eur(2190), Reason: "Arrived chipped", Status: store.RefundDone,
		CreditNote: "CN2026-000001", CreditNoteAt: time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC),
		Lines: []store.RefundLine{{ProductID: "kt-mug", ProductName: "Kaffekopp (머그컵)", Quantity: 1, Amount: eur(1890)}}}
	for _, c := range []struct {
		lang  lang.Lang
		texts []string
	}{
		{lang.English, []string{"Credit note CN2026-000001", "Corrects invoice 2026-000123", "Kaffekopp (머그컵)", "-1", "−€18.90", "Refund: Arrived chipped", "−€21.90", "Back to the card", "SE556677889901"}},
		{lang.Korean, []string{"대변표 CN2026-000001", "청구서 2026-000123", "환불 합계"}},
	} {
		pdf, err := pdfdoc.CreditNote(context.Background(), pdfdoc.Common{Lang: c.lang, Seller: seller}, d, inv, rf)
		if err != nil {
			t.Fatal(err)
		}
		keep(t, "credit-note-"+string(c.lang)+".pdf", pdf)
		wantPDF(t, "credit note "+string(c.lang), pdf, 1, c.texts...)
	}
	if v := d.CreditVAT(rf, inv); len(v) != 2 || v[0].Rate != 2500 || v[0].Gross.Amount+v[1].Gross.Amount != 2190 {
		t.Fatalf("the credit note's VAT: %+v", v)
	}
}

// A receipt's refund is a credit note of its own number, referring to the
// receipt's number in the books, with the VAT of the receipt's rate.
func TestReceiptCreditNotePDF(t *testing.T) {
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	r := store.Receipt{Number: "R0000000000AA", BookNumber: "R2026-000024", ProductName: "Kaffe varje månad", Email: "ada@fikafield.example",
		ProcessedAt: at, PeriodStart: at, PeriodEnd: at.AddDate(0, 1, 0), Amount: eur(1490), Card: store.Card{Brand: "Visa", Last4: "4242"}, ChargeID: "ch_9",
		VAT: rules.VATBreakdown([]rules.Taxed{{Rate: 1200, Gross: eur(1490)}}, store.Money{})}
	n := store.ReceiptCreditNote{Number: "CN2026-000007", At: at.AddDate(0, 0, 9), Amount: eur(500), Reason: "Beans arrived stale"}
	for _, c := range []struct {
		lang  lang.Lang
		texts []string
	}{
		{lang.English, []string{"Credit note CN2026-000007", "Corrects receipt R2026-000024", "Refund: Beans arrived stale", "12 %", "−€5.00", "Given back", "Visa •••• 4242", "€5.00", "SE556677889901"}},
		{lang.Korean, []string{"대변표 CN2026-000007", "영수증 R2026-000024 정정", "환불 합계"}},
		{lang.Indonesian, []string{"Nota kredit CN2026-000007", "Mengoreksi kuitansi R2026-000024"}},
	} {
		pdf, err := pdfdoc.ReceiptCreditNote(context.Background(), pdfdoc.Common{Lang: c.lang, Seller: seller}, r, n)
		if err != nil {
			t.Fatal(err)
		}
		keep(t, "receipt-credit-note-"+string(c.lang)+".pdf", pdf)
		wantPDF(t, "receipt's credit note "+string(c.lang), pdf, 1, c.texts...)
	}
}
