package web_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"shop/store/demo"
	"shop/web/paths"
)

// The customer's statement tells the truth about an order with a refund:
// what was paid with, once (a refund is no second card payment), and the
// net amount with what the refund gave back of the total.
func TestReceiptsSayWhatARefundGaveBack(t *testing.T) {
	t.Parallel()
	s := newShopWithoutHistory(t)
	staff := s.staff(t)
	m := newOrderMaker(t, s.env.Store)
	ada := s.customerID(t, demo.CustomerEmail)
	o := m.place(s.env.Store, ada, line("cf-grinder", 1)) // €54.90
	p := staff.get(paths.AdminOrder(o.ID))
	wantStatus(t, "staff refund €5", staff.post(paths.AdminOrderRefunds(o.ID), refundForm(t, p, "amount", "5.00", "reason", "Scratched")), http.StatusSeeOther)

	b := s.browser(t)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	list := b.get("/receipts")
	wantStatus(t, "receipts", list, http.StatusOK)
	var found bool
	list.testid("receipt-row").Each(func(_ int, row *goquerySelection) {
		if href, _ := row.Find(sel("invoice-link")).Attr("href"); href != paths.Order(o.ID) {
			return
		}
		found = true
		if with := text(row.Find(sel("invoice-row-paid-with"))); with != "Visa •••• 4242" {
			t.Errorf("paid with %q, want the card once", with)
		}
		wantText(t, "net amount", row.Find(sel("invoice-row-amount")), "€49.90")
		wantText(t, "the refund", row.Find(sel("invoice-row-refund")), "less a refund of €5.00 (was €54.90)")
	})
	if !found {
		t.Fatalf("no row of the order on /receipts:\n%s", trim(list.testid("receipts").Text()))
	}
}

// A placed order's page does not say it is being packed while it offers
// to cancel "until we start packing".
func TestAPlacedOrderIsNotSaidToBeBeingPacked(t *testing.T) {
	t.Parallel()
	s := newShopWithoutHistory(t)
	m := newOrderMaker(t, s.env.Store)
	o := m.place(s.env.Store, s.customerID(t, demo.CustomerEmail), line("cf-grinder", 1))
	b := s.browser(t)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	p := b.get(paths.Order(o.ID))
	wantStatus(t, "order page", p, http.StatusOK)
	status := text(p.testid("order-status"))
	if strings.Contains(status, "being packed") || !strings.Contains(status, "to be packed") {
		t.Fatalf("the status says %q beside the offer to cancel until packing starts", status)
	}
	if !strings.Contains(p.body, "Until we start packing") {
		t.Fatal("no offer to cancel on a placed order")
	}
	// Nor does the shipments part: nothing is packed before staff start.
	if got := text(p.testid("no-shipments")); strings.Contains(got, "We are packing") || !strings.Contains(got, "not packed yet") {
		t.Fatalf("the shipments part says %q beside the offer to cancel until packing starts", got)
	}
	for _, l := range []string{"ko", "id"} {
		if got, en := text(b.get(paths.Order(o.ID)+"?lang="+l).testid("no-shipments")), text(p.testid("no-shipments")); got == "" || got == en {
			t.Errorf("%s: the shipments part says %q", l, got)
		}
	}
}

// The subscribe confirmation names the receipt by its number in the books,
// which its page and the statement show too; a card change with htmx takes
// the page's earlier banner away (out of band) as it brings its own notice.
func TestSubscriptionMessagesNameTheBooksAndDoNotLinger(t *testing.T) {
	t.Parallel()
	s, b, ada, sub := subscribedShop(t, "")
	rec := s.receiptOf(t, ada)
	if !regexp.MustCompile(`^R\d{4}-\d{6}$`).MatchString(rec.BookNumber) {
		t.Fatalf("receipt's number in the books %q", rec.BookNumber)
	}
	// The confirmation, as subscribedShop's b.subscribe saw it once; a
	// second subscription with the kept card says it again.
	form := b.subscribeForm(boxID, "5", "1")
	form.Set("card", sub.Card.Token)
	wantStatus(t, "second subscription", b.post("/subscriptions", form), http.StatusSeeOther)
	list := b.get("/subscriptions")
	flash := text(list.testid("flash"))
	if m := regexp.MustCompile(`receipt (R\d{4}-\d{6})`).FindStringSubmatch(flash); m == nil {
		t.Fatalf("the confirmation %q does not name the receipt by its number in the books", flash)
	}
	rp := b.get(paths.Receipt(rec.Number))
	wantText(t, "receipt page", rp.testid("receipt-number"), rec.BookNumber)
	wantText(t, "statement", b.get("/receipts").testid("receipts"), rec.BookNumber)

	p := s.act(t, b, sub, "period", map[string][]string{"period": {"2"}}, "HX-Request", "true")
	wantStatus(t, "change period", p, http.StatusOK)
	// The banner's place stays (empty, hidden), so the next htmx answer's
	// swap finds it too: a deleted #flash gives htmx no target the second
	// time (oobErrorNoTarget) and the first action's banner would be the
	// last one taken away.
	gone := p.doc.Find(`#flash[hx-swap-oob="outerHTML"]`)
	if gone.Length() != 1 || gone.AttrOr("hidden", "no") == "no" || trim(gone.Text()) != "" {
		t.Fatalf("the htmx answer does not put an empty banner in the earlier one's place:\n%s", trim(p.body))
	}
	p = s.act(t, b, s.current(t, ada, sub.ID), "period", map[string][]string{"period": {"3"}}, "HX-Request", "true")
	wantStatus(t, "change period again", p, http.StatusOK)
	if p.doc.Find(`#flash[hx-swap-oob="outerHTML"]`).Length() != 1 {
		t.Fatalf("the second htmx answer does not take the banner's place:\n%s", trim(p.body))
	}
}
