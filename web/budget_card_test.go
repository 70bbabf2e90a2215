package web_test

import (
	"net/http"
	"net/url"
	"testing"

	"shop/store"
	"shop/store/demo"
	"shop/store/payment"
	"shop/store/storetest"
)

// What a card checkout costs the shop in DynamoDB requests, step by step:
// the hold ("Place order" up to the redirect to the provider's page), the
// provider's webhook that places the order, the order page's poll while
// it waits, and a release (the customer cancelling). The provider's own
// records (the test provider keeps them in the table; Stripe keeps them at
// Stripe) are counted apart: they are not the shop's cost.
func TestCardCheckoutKeepsItsRequestBudget(t *testing.T) {
	t.Parallel()
	var counter storetest.Counter // the shop's requests only
	s := newShop(t, withStore(&counter), withoutBackgroundReads)
	b := s.browser(t)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	b.addToCart("cf-grinder", "1")
	form := b.freshCheckoutForm()

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
	var held page
	measure("hold", 11, func() { held = b.post("/checkout", form) }) // 10 before the shipping zones' Query
	o := s.heldOrder(t, held)
	path := s.paymentPage(held)
	b.get(path)
	wantStatus(t, "pay", b.post(path, cardFields(payment.CardSucceeds)), http.StatusSeeOther)
	measure("poll while it waits", 2, func() {
		wantStatus(t, "poll", b.get("/orders/"+o.ID+"/payment", "HX-Request", "true"), http.StatusOK)
	})
	events := s.dueEvents(t)
	measure("webhook completion", 3, func() { s.postEvents(t, events) })
	s.markDelivered(t, events)
	if d := s.order(t, o.ID); d.Order.Status != store.OrderPlaced {
		t.Fatalf("order %s", d.Order.Status)
	}
	measure("the same event again", 1, func() { s.postEvents(t, events) })
	measure("poll once placed", 2, func() {
		wantStatus(t, "poll", b.get("/orders/"+o.ID+"/payment", "HX-Request", "true"), http.StatusNoContent)
	})

	// A release: the customer cancels the next one.
	b.addToCart("cf-grinder", "1")
	held = b.post("/checkout", b.freshCheckoutForm())
	o = s.heldOrder(t, held)
	b.get("/orders/" + o.ID)
	measure("release (the customer cancels)", 7, func() {
		wantStatus(t, "cancel", b.post("/orders/"+o.ID+"/cancel", url.Values{}), http.StatusSeeOther)
	})
	if d := s.order(t, o.ID); d.Order.Status != store.OrderExpired {
		t.Fatalf("order %s", d.Order.Status)
	}
}
