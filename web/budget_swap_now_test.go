package web_test

import (
	"context"
	"net/http"
	"net/url"
	"path"
	"testing"

	"shop/store"
	"shop/store/payment"
	"shop/store/storetest"
	"shop/web/paths"
)

// What a swap now costs the shop in DynamoDB requests (docs/access-patterns.md, docs/cost.md):
// the htmx preview with "Now" chosen, and "Confirm" with a charge to the
// kept card and with a refund. The provider's own records (the test
// provider keeps them in the table) are not counted: they are not the
// shop's cost. The catalogue's copy in the shop window is warm.
func TestSwapNowKeepsItsRequestBudget(t *testing.T) {
	t.Parallel()
	var counter storetest.Counter
	s := newShop(t, withStore(&counter), withoutBackgroundReads)
	s.coffeeBox(t)
	for _, p := range []store.Product{
		{ID: "sub-green-tea", Name: "Green Tea Tin", Description: "Sencha.", Category: "coffee", Price: eur(990), Subscribable: true, MonthlyPrice: eur(1450)},
		{ID: "sub-small-tea", Name: "Small Tea", Description: "A little.", Category: "coffee", Price: eur(490), Subscribable: true, MonthlyPrice: eur(500)},
	} {
		if _, err := s.env.Store.CreateProduct(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	today := itoa(s.env.Store.Today().Day())
	b, ada := s.newCustomer(t, "Ada Budget")
	b.subscribe(boxID, today, "1")
	sub := s.subscriptionsOf(t, ada)[0]
	bea, beaID := s.newCustomer(t, "Bea Budget")
	bea.subscribe(boxID, today, "1")
	beaSub := s.subscriptionsOf(t, beaID)[0]
	cy, cyID := s.newCustomer(t, "Cy Budget")
	cy.subscribePaying(cy.subscribeForm(boxID, today, "1"), payment.CardAuthenticationRequired)
	cySub := s.subscriptionsOf(t, cyID)[0]
	b.get(paths.Subscriptions) // the window's catalogue, warm

	measure := func(what string, budget int, f func()) {
		t.Helper()
		counter.Reset()
		f()
		n := counter.Total()
		t.Logf("%s: %d requests %v", what, n, counter.Ops())
		if n > budget {
			t.Errorf("%s made %d DynamoDB requests, budget %d: %v", what, n, budget, counter.Ops())
		}
	}
	htmx := []string{"HX-Request", "true"}
	measure("htmx preview, now", 6, func() {
		wantStatus(t, "preview", b.get(paths.SubscriptionSwap(sub.ID)+"?product=sub-green-tea&quantity=1&when=now", htmx...), http.StatusOK)
	})
	measure("confirm now with a charge (htmx)", 8, func() {
		p := s.act(t, b, sub, "swap", url.Values{"product": {"sub-green-tea"}, "quantity": {"1"}, "when": {"now"}}, htmx...)
		wantStatus(t, "swap now", p, http.StatusOK)
	})
	// The refund's credit note reads its series' counter (a GetItem) to
	// number it in the transaction that records the refund.
	measure("confirm now with a refund (htmx)", 10, func() {
		p := s.act(t, bea, beaSub, "swap", url.Values{"product": {"sub-small-tea"}, "quantity": {"1"}, "when": {"now"}}, htmx...)
		wantStatus(t, "swap now", p, http.StatusOK)
	})
	var bank string
	measure("confirm now, the bank asks (htmx)", 7, func() {
		p := s.act(t, cy, cySub, "swap", url.Values{"product": {"sub-green-tea"}, "quantity": {"1"}, "when": {"now"}}, htmx...)
		wantStatus(t, "swap now", p, http.StatusNoContent)
		bank = s.local(t, p.header.Get("HX-Redirect"))
	})
	p := cy.post(bank, url.Values{"challenge": {path.Base(path.Dir(bank))}, "answer": {"approve"}})
	wantStatus(t, "approved", p, http.StatusSeeOther)
	measure("back from the bank's page", 4, func() {
		wantStatus(t, "back", cy.get(s.local(t, p.header.Get("Location"))), http.StatusSeeOther)
	})
}
