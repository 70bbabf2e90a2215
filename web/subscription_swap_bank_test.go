package web_test

import (
	"context"
	"net/http"
	"net/url"
	"path"
	"strings"
	"testing"

	"shop/store"
	"shop/store/payment"
)

// A swap now whose kept card's bank asks its holder to confirm: the
// customer goes to the bank's page (HX-Redirect with htmx, a 303 without;
// a second tab to the same payment), nothing written meanwhile; approved,
// the return page writes the swap and its "Change to" receipt once (the
// event after it changes nothing); refused, nothing changes and the
// subscription takes another change.
func TestSwapNowSendsToTheBankWhenItAsks(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	s.coffeeBox(t)
	ctx := context.Background()
	tea := store.Product{ID: "sub-green-tea", Name: "Green Tea Tin", Description: "Sencha.", Category: "coffee", Price: eur(990), Subscribable: true, MonthlyPrice: eur(1450)}
	if _, err := s.env.Store.CreateProduct(ctx, tea); err != nil {
		t.Fatal(err)
	}
	now := url.Values{"product": {tea.ID}, "quantity": {"1"}, "when": {"now"}}
	subscribed := func(name string) (*browser, string, store.Subscription) {
		b, id := s.newCustomer(t, name)
		b.subscribePaying(b.subscribeForm(boxID, itoa(s.env.Store.Today().Day()), "1"), payment.CardAuthenticationRequired)
		return b, id, s.subscriptionsOf(t, id)[0]
	}
	b, ada, sub := subscribed("Ada Test")
	q := s.swapNowQuote(t, ada, 1450, 1)
	paid := len(s.providerPayments(t))

	p := s.act(t, b, sub, "swap", now, "HX-Request", "true")
	wantStatus(t, "swap now, htmx", p, http.StatusNoContent)
	bank := s.local(t, p.header.Get("HX-Redirect"))
	if !strings.HasPrefix(bank, "/test-payments/payments/") {
		t.Fatalf("sent to %q, want the bank's page", bank)
	}
	p = s.act(t, b, sub, "swap", now) // another tab, the same form
	wantStatus(t, "swap now, plain", p, http.StatusSeeOther)
	if got := s.local(t, p.header.Get("Location")); got != bank {
		t.Fatalf("the second tab went to %q, want %q", got, bank)
	}
	if got := s.current(t, ada, sub.ID); got.Version != sub.Version || got.ProductID != boxID {
		t.Fatalf("waiting on the bank wrote: %s v%d", got.ProductID, got.Version)
	}
	wantText(t, "the bank's page", b.get(bank).testid("test-payment-amount"), q.Charge.String())
	p = b.post(bank, url.Values{"challenge": {path.Base(path.Dir(bank))}, "answer": {"approve"}})
	wantStatus(t, "approved", p, http.StatusSeeOther)
	back := s.local(t, p.header.Get("Location"))
	p = b.get(back)
	wantStatus(t, "back from the bank", p, http.StatusSeeOther)
	wantText(t, "flash", b.get(s.local(t, p.header.Get("Location"))).testid("flash"), "we charged "+q.Charge.String())
	s.deliverEvents(t, nil) // its event after the return: nothing more
	r := s.receiptOf(t, ada)
	if r.Kind != store.ReceiptChange || r.Amount != q.Charge || r.ProductName != tea.Name {
		t.Fatalf("the change's receipt %+v, want %v", r, q.Charge)
	}
	if got := s.current(t, ada, sub.ID); got.ProductID != tea.ID || got.Version != sub.Version+1 {
		t.Fatalf("after the bank's yes: %s v%d", got.ProductID, got.Version)
	}
	if got := len(s.providerPayments(t)); got != paid+1 {
		t.Fatalf("%d payments at the provider, want %d", got, paid+1)
	}
	mails := 0
	for _, m := range s.mailsOf(t, store.MailReceipt) {
		if strings.Contains(m.Text, r.NumberInBooks()) {
			mails++
		}
	}
	if mails != 1 {
		t.Fatalf("%d mails of the change's receipt, want 1", mails)
	}
	wantStatus(t, "the return again", b.get(back), http.StatusSeeOther)
	if got := s.current(t, ada, sub.ID); got.Version != sub.Version+1 {
		t.Fatalf("the return again wrote: v%d", got.Version)
	}

	// Refused at the bank: nothing changes; a change from the next
	// payment goes through after it.
	bea, beaID, beaSub := subscribed("Bea Test")
	paid = len(s.providerPayments(t))
	p = s.act(t, bea, beaSub, "swap", now)
	wantStatus(t, "Bea's swap now", p, http.StatusSeeOther)
	bank = s.local(t, p.header.Get("Location"))
	p = bea.post(bank, url.Values{"challenge": {path.Base(path.Dir(bank))}, "answer": {"fail"}})
	wantStatus(t, "refused", p, http.StatusSeeOther)
	p = bea.get(s.local(t, p.header.Get("Location")))
	wantStatus(t, "back from the bank", p, http.StatusSeeOther)
	wantText(t, "refused flash", bea.get(s.local(t, p.header.Get("Location"))).testid("flash"), "did not confirm the payment of "+q.Charge.String())
	s.deliverEvents(t, nil)
	if got := s.current(t, beaID, beaSub.ID); got.Version != beaSub.Version || got.ProductID != boxID {
		t.Fatalf("a refused payment wrote: %s v%d", got.ProductID, got.Version)
	}
	if got := len(s.providerPayments(t)); got != paid {
		t.Fatalf("a refused payment was taken: %d payments, want %d", got, paid)
	}
	next := url.Values{"product": {tea.ID}, "quantity": {"1"}, "when": {"next"}}
	wantStatus(t, "a change after it", s.act(t, bea, beaSub, "swap", next), http.StatusSeeOther)
}
