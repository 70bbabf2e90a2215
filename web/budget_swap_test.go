package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"shop/store"
	"shop/store/storetest"
	"shop/web/paths"
)

// What a swap costs in DynamoDB requests (docs/cost.md): the htmx preview
// as the choice changes, the plain form's "Preview", and "Confirm" for
// another product (the item moves to its new key) and for a quantity
// alone. The catalogue's copy in the shop window is warm, as it is on a
// busy shop.
func TestSwapKeepsItsRequestBudget(t *testing.T) {
	t.Parallel()
	var counter storetest.Counter
	s := newShop(t, withStore(&counter), withoutBackgroundReads)
	s.coffeeBox(t)
	if _, err := s.env.Store.CreateProduct(context.Background(), store.Product{ID: "sub-green-tea", Name: "Green Tea Tin", Description: "Sencha.",
		Category: "coffee", Price: store.Money{Amount: 990, Currency: "EUR"}, Subscribable: true, MonthlyPrice: store.Money{Amount: 1450, Currency: "EUR"}}); err != nil {
		t.Fatal(err)
	}
	b, ada := s.newCustomer(t, "Ada Budget")
	b.subscribe(boxID, itoa(s.env.Store.Today().Day()), "1")
	sub := s.subscriptionsOf(t, ada)[0]
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
	measure("htmx preview", 4, func() {
		wantStatus(t, "preview", b.get(paths.SubscriptionSwap(sub.ID)+"?product=sub-green-tea&quantity=2&when=next", htmx...), http.StatusOK)
	})
	measure("plain Preview", 5, func() {
		p := s.act(t, b, sub, "swap", url.Values{"product": {"sub-green-tea"}, "quantity": {"2"}, "when": {"next"}, "preview": {"1"}})
		wantStatus(t, "preview", p, http.StatusOK)
	})
	measure("confirm another product (htmx)", 6, func() {
		p := s.act(t, b, sub, "swap", url.Values{"product": {"sub-green-tea"}, "quantity": {"2"}, "when": {"next"}}, htmx...)
		wantStatus(t, "swap", p, http.StatusOK)
	})
	sub = s.current(t, ada, sub.ID)
	measure("confirm a quantity (htmx)", 6, func() {
		p := s.act(t, b, sub, "swap", url.Values{"product": {"sub-green-tea"}, "quantity": {"3"}, "when": {"next"}}, htmx...)
		wantStatus(t, "quantity", p, http.StatusOK)
	})
}
