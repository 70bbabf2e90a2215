package web_test

import (
	"bytes"
	"context"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"shop/store"
	"shop/web/paths"
)

// A customer reading the shop in Korean reads what they buy by its Korean
// name wherever it is theirs: the cart, its messages, the checkout's
// summary, the order page and its shipment, the confirmation and refund
// mails and the invoice; staff's pages keep the English they wrote. The
// names are kept on the cart's and the order's lines, so none of this
// reads the product again.
func TestBoughtProductsAreNamedInTheBuyersLanguage(t *testing.T) {
	t.Parallel()
	s := newShopWithoutHistory(t)
	ctx := context.Background()
	const en, ko = "Hand Grinder", "핸드 그라인더"
	b, _ := s.cartOf(t, "Kim Minji", "cf-grinder", 1)

	wantText(t, "the cart in English", b.get("/cart?lang=en").testid("cart-line"), en)
	cart := b.get("/cart?lang=ko")
	wantText(t, "the cart in Korean", cart.testid("cart-line"), ko)
	if v, _ := cart.testid("line-quantity").Attr("aria-label"); !strings.Contains(v, ko) {
		t.Errorf("the quantity's label is %q, want the Korean name in it", v)
	}
	s.setStock(t, "cf-grinder", 3)
	short := b.addToCart("cf-grinder", "5", "HX-Request", "true")
	wantText(t, "too many, in Korean", short.testid("add-error"), ko)
	wantText(t, "the checkout's summary", b.get("/checkout").testid("summary-line"), ko)

	placed := s.placeOrder(t, b, b.freshCheckoutForm())
	wantStatus(t, "place the order", placed, http.StatusSeeOther)
	orderID := strings.TrimPrefix(placed.header.Get("Location"), "/orders/")
	if _, err := s.env.Store.CreateShipments(ctx, orderID, "Standard"); err != nil {
		t.Fatal(err)
	}
	op := b.get(paths.Order(orderID))
	wantText(t, "the order's line", op.testid("order-item"), ko)
	wantText(t, "the order's shipment", op.testid("shipment"), ko)
	if strings.Contains(op.doc.Find("main").Text(), en) {
		t.Errorf("the Korean order page still names %q", en)
	}
	wantText(t, "the order's line, read in English", b.get(paths.Order(orderID)+"?lang=en").testid("order-item"), en)

	mail, err := s.env.Store.Mail(ctx, store.MailID("order", orderID))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(mail.Text, "1 × "+ko) || !strings.Contains(mail.HTML, "1 × "+ko) {
		t.Errorf("the confirmation mail does not name %q:\n%s", ko, mail.Text)
	}
	if pdf := b.get(paths.OrderInvoicePDF(orderID) + "?lang=ko"); !strings.Contains(pdfText(t, pdf.body), ko) {
		t.Errorf("the invoice does not name %q:\n%s", ko, pdfText(t, pdf.body))
	}

	staff := s.staff(t)
	sp := staff.get(paths.AdminOrder(orderID))
	wantText(t, "staff's order page, in English", sp.doc.Find("main"), en)
	done := staff.post(paths.AdminOrderRefunds(orderID), refundForm(t, sp, "units-cf-grinder", "1", "reason", "Arrived broken"))
	wantStatus(t, "refund the grinder", done, http.StatusSeeOther)
	d := s.order(t, orderID)
	if len(d.Refunds) != 1 {
		t.Fatalf("%d refunds", len(d.Refunds))
	}
	refund, err := s.env.Store.Mail(ctx, store.MailID("refund", orderID, d.Refunds[0].ID))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(refund.Text, "1 × "+ko) {
		t.Errorf("the refund mail does not name %q:\n%s", ko, refund.Text)
	}
}

// pdfText is a PDF's text as pdftotext reads it (poppler-utils, which
// .ci/run installs).
func pdfText(t *testing.T, pdf string) string {
	t.Helper()
	if !strings.HasPrefix(pdf, "%PDF-") {
		t.Fatalf("not a PDF: %q", trim(pdf))
	}
	cmd := exec.Command("pdftotext", "-layout", "-", "-")
	cmd.Stdin = bytes.NewReader([]byte(pdf))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(out)
}
