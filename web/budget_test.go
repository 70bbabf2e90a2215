package web_test

import (
	"net/http"
	"testing"
	"time"

	"shop/store"
	"shop/store/demo"
	"shop/store/storetest"
)

// What one view of each storefront page costs in DynamoDB requests: for a
// new visitor, for that visitor again (the shop window warm), and for a
// signed-in customer (the session's read and what is theirs). No
// storefront page costs a new visitor more than 2, a warm one costs a
// visitor nothing but what is personal, and no view writes. The store's
// clock stands still, so "warm" does not depend on how fast this machine
// is today.
func TestEveryStorefrontPageKeepsItsRequestBudget(t *testing.T) {
	t.Parallel()
	var counter storetest.Counter
	clock := storetest.NewClock(time.Now(), 0)
	s := newShop(t, withStore(&counter, store.WithClock(clock.Now)), withoutBackgroundReads)
	drop := s.openDrop(t, "Budget roast", 5)
	clock.Set(time.Now().Add(time.Second)) // the drop is open, and the clock stands still again
	ada := s.browser(t)
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	ada.get("/orders") // shows (and so saves away) the welcome flash

	for _, r := range []struct {
		path                 string
		cold, warm, signedIn int
	}{
		// The categories and the whole catalogue (one Query per 1,000
		// products) into the shop window.
		{"/", 2, 0, 1},
		// Every list, in every order and to any page, and the search
		// index are cut from that copy in memory.
		{"/products?category=coffee", 0, 0, 1},
		{"/products?sort=price-desc", 0, 0, 1},
		{"/products?category=kitchen&sort=newest&page=2", 0, 0, 1},
		{"/search?q=grinder", 0, 0, 1},
		// Ada's subscribe form prices delivery: the shipping zones into
		// the window (a minute; none in this shop, so no address is read).
		{"/products/cf-light", 1, 0, 3},
		{"/products/cf-light/stock", 0, 0, 2},
		// Once the visitor has the cookie, its (maybe empty) cart is read.
		{"/cart", 0, 1, 2},
		{"/login", 0, 0, 1},
		{"/signup", 0, 0, 1},
		// The list through the shop window (a second); the gate learns its
		// two open drops from the list, with no read of each.
		{"/drops", 1, 0, 1},
		// The gate knows the drop; Ada's view also reads her ticket.
		{"/drops/" + drop.ID, 0, 0, 2},
		{"/drops/" + drop.ID + "/count", 0, 0, 0},
		{"/orders", -1, -1, 2},
		{"/subscriptions", -1, -1, 2},
		{"/receipts", -1, -1, 3},
		{"/tickets", -1, -1, 2},
	} {
		visitor := s.browser(t)
		for _, v := range []struct {
			who  string
			b    *browser
			want int
		}{{"a new visitor", visitor, r.cold}, {"the visitor again", visitor, r.warm}, {"Ada", ada, r.signedIn}} {
			if v.want < 0 {
				continue // the page is for customers: a visitor is sent to sign in
			}
			counter.Reset()
			wantStatus(t, v.who+" "+r.path, v.b.get(r.path), http.StatusOK)
			ops := counter.Ops()
			if n := counter.Total(); n != v.want || writes(ops) != 0 {
				t.Errorf("%s: %s made %d requests %v, want %d and no writes", r.path, v.who, n, ops, v.want)
			}
		}
	}

	// "Show more" and the sort control's swap, for htmx: memory too.
	visitor := s.browser(t)
	for _, h := range [][]string{{"HX-Request", "true"}, {"HX-Request", "true", "HX-Target", "catalogue-list"}} {
		counter.Reset()
		wantStatus(t, "htmx list", visitor.get("/products?sort=price&page=2", h...), http.StatusOK)
		if n := counter.Total(); n != 0 {
			t.Errorf("an htmx list %v made %d requests %v, want 0", h, n, counter.Ops())
		}
	}
}
