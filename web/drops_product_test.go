package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"shop/store"
)

// A product drop end to end: staff create it (its quantity leaves stock),
// a customer claims a ticket, /tickets offers the unit at the drop's
// price, the button puts it in the cart, checkout charges the drop's price
// and redeems the ticket, and the ticket buys no second time.
func TestProductDropTicketBuysThroughCheckout(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := context.Background()
	const product = "cf-grinder" // €54.90 in the demo shop
	stockOf := func() int {
		levels, err := s.env.Store.ProductStock(ctx, product)
		if err != nil {
			t.Fatal(err)
		}
		return store.TotalStock(levels)
	}
	before := stockOf()
	if before < 2 {
		t.Fatalf("the demo shop holds %d of %s", before, product)
	}

	staff := s.staff(t)
	staff.get("/admin/drops")
	loc := s.env.Store.Location()
	// With seconds: the drop opens just now, whatever the minute.
	at := func(d time.Duration) string { return time.Now().Add(d).In(loc).Format("2006-01-02T15:04:05") }
	form := func(qty string) url.Values {
		return url.Values{"title": {"Grinder drop"}, "quantity": {qty}, "opens": {at(-10 * time.Second)}, "closes": {at(24 * time.Hour)},
			"published": {"on"}, "product_id": {product}, "price": {"40"}, "redeem_hours": {"48"}}
	}
	p := staff.post("/admin/drops", form(itoa(before+1)))
	wantStatus(t, "a drop of more than the stock", p, http.StatusUnprocessableEntity)
	wantText(t, "short stock", p.testid("error-quantity"), "Only "+itoa(before)+" of Hand Grinder in stock")
	p = staff.post("/admin/drops", form("2"))
	wantStatus(t, "create a product drop", p, http.StatusSeeOther)
	dropID := strings.TrimPrefix(p.header.Get("Location"), "/admin/drops/")
	if got := stockOf(); got != before-2 {
		t.Fatalf("stock %d after setting 2 aside, want %d", got, before-2)
	}
	wantText(t, "staff's drop page", staff.get("/admin/drops/"+dropID).testid("admin-drop-product"), "€40.00")

	ada, adaID := s.newCustomer(t, "Ada Drops")
	wantStatus(t, "claim", ada.claim(dropID, false), http.StatusOK)
	p = ada.get("/tickets")
	wantText(t, "the ticket's offer", p.testid("ticket-buy"), "Add to cart for €40.00")
	p = ada.post("/tickets/"+dropID+"/buy", url.Values{})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/cart" {
		t.Fatalf("buy: %d to %q", p.status, p.header.Get("Location"))
	}
	cart := ada.get("/cart")
	if cart.testid("line-ticket").Length() != 1 || cart.testid("cart-line").Length() != 1 {
		t.Fatalf("cart:\n%s", trim(cart.testid("cart").Text()))
	}
	wantText(t, "cart total", cart.testid("cart-total"), "€40.00")
	// In the cart, the ticket offers the cart, not "Add to cart" again: on
	// /tickets and on its drop's page, in each language.
	for _, tc := range []struct{ lang, says string }{{"ko", "장바구니에 담겨"}, {"id", "Sudah di keranjang"}, {"en", "In your cart"}} {
		for _, path := range []string{"/tickets", "/drops/" + dropID} {
			p := ada.get(path + "?lang=" + tc.lang)
			if n := p.testid("ticket-buy").Length(); n != 0 {
				t.Errorf("%s %s: a ticket in the cart is offered Add to cart (%d)", tc.lang, path, n)
			}
			wantText(t, tc.lang+" "+path+": in the cart", p.testid("ticket-in-cart"), tc.says)
			if href := attr(p.testid("ticket-cart-link"), "href"); href != "/cart" {
				t.Errorf("%s %s: the ticket's link goes to %q", tc.lang, path, href)
			}
		}
	}

	key, total := ada.checkoutPage()
	if total != "4000" {
		t.Fatalf("checkout total %q, want 4000", total)
	}
	p = s.placeOrder(t, ada, checkoutForm(key, total))
	wantStatus(t, "place the order", p, http.StatusSeeOther)
	orderID := strings.TrimPrefix(p.header.Get("Location"), "/orders/")
	items, err := s.env.Store.OrderItems(ctx, orderID)
	if err != nil || len(items) != 1 || items[0].Price.Amount != 4000 || items[0].DropID != dropID || items[0].ProductID != product {
		t.Fatalf("order items %+v, %v", items, err)
	}
	tk, err := s.env.Store.Ticket(ctx, dropID, adaID)
	if err != nil || tk.Status != store.TicketRedeemed || tk.OrderID != orderID {
		t.Fatalf("ticket %+v, %v", tk, err)
	}
	if got := stockOf(); got != before-2 {
		t.Fatalf("stock %d after the ticket's order, want %d (its unit was set aside)", got, before-2)
	}

	// Redeemed: no offer, and the button's address refuses.
	if ada.get("/tickets").testid("ticket-buy").Length() != 0 {
		t.Fatal("a redeemed ticket still offers to buy")
	}
	ada.get("/tickets")
	p = ada.post("/tickets/"+dropID+"/buy", url.Values{})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/tickets" {
		t.Fatalf("buy with a redeemed ticket: %d to %q", p.status, p.header.Get("Location"))
	}
	if ada.get("/cart").testid("cart-line").Length() != 0 {
		t.Fatal("a redeemed ticket went into the cart")
	}
}
