package store_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"shop/store"
	"shop/store/payment"
	"shop/store/storetest"
	"shop/store/storetest/paytest"
)

// productDropFixture is a shop on a clock with warehouses w1 and w2 and
// one product "tea" at €20 with the given stock in each.
type productDropFixture struct {
	env     storetest.Env
	clock   *testClock
	gateway *payment.TestGateway
	card    *store.Card
	pay     *paytest.Payer
}

func newProductDropFixture(t *testing.T, w1, w2 int) productDropFixture {
	t.Helper()
	clock := storetest.NewClock(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC), time.Millisecond)
	env := storetest.New(t, store.WithClock(clock.Now))
	ctx := ctxT(t)
	for _, w := range []string{"w1", "w2"} {
		if err := env.Store.PutWarehouse(ctx, store.Warehouse{ID: w, Name: "Warehouse " + w, Address: store.Address{City: w}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := env.Store.PutProduct(ctx, store.Product{ID: "tea", Name: "Tea", Category: "c", Price: eur(2000)}); err != nil {
		t.Fatal(err)
	}
	for w, q := range map[string]int{"w1": w1, "w2": w2} {
		if err := env.Store.PutStockLevel(ctx, store.StockLevel{ProductID: "tea", ProductName: "Tea", WarehouseID: w, WarehouseName: "Warehouse " + w, Quantity: q}); err != nil {
			t.Fatal(err)
		}
	}
	g := payment.NewTestGateway(env.Store)
	card := paytest.LegacyCard(t, env.Store, payment.CardSucceeds, "12/99") // a card an older version kept
	return productDropFixture{env: env, clock: clock, gateway: g, card: &card, pay: paytest.New(t, env.Store)}
}

func (f productDropFixture) stock(t *testing.T) map[string]int {
	t.Helper()
	levels, err := f.env.Store.ProductStock(ctxT(t), "tea")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, l := range levels {
		out[l.WarehouseID] = l.Quantity
	}
	return out
}

func (f productDropFixture) adjustments(t *testing.T, w string) []store.StockAdjustment {
	t.Helper()
	p, err := f.env.Store.StockAdjustments(ctxT(t), w, 50, "")
	if err != nil {
		t.Fatal(err)
	}
	return p.Items
}

// teaDrop is an open product drop of quantity tea at €15, redeemable for
// 48 hours.
func (f productDropFixture) teaDrop(t *testing.T, quantity int) (store.Drop, error) {
	now := f.clock.Now()
	return f.env.Store.CreateDrop(ctxT(t), store.NewDrop{Title: "Tea drop", Quantity: quantity, Opens: now, Closes: now.Add(24 * time.Hour),
		Published: true, ProductID: "tea", Price: eur(1500), RedeemWithin: store.DefaultRedeemWithin, StaffID: "staff-1"})
}

func (f productDropFixture) claim(t *testing.T, d store.Drop, customer string) {
	t.Helper()
	if _, err := f.env.Store.Claim(ctxT(t), store.ClaimRequest{DropID: d.ID, Client: customer, CustomerID: customer, DropTitle: d.Title}, false); err != nil {
		t.Fatal(err)
	}
}

// adaHoldsATicket makes a tea drop of two and claims one for ada.
func (f productDropFixture) adaHoldsATicket(t *testing.T) store.Drop {
	t.Helper()
	d, err := f.teaDrop(t, 2)
	if err != nil {
		t.Fatal(err)
	}
	f.claim(t, d, "ada")
	return d
}

// Creating a product drop takes its quantity from stock, the warehouse
// holding most first, logged; too little stock refuses it and writes
// nothing.
func TestProductDropSetsStockAside(t *testing.T) {
	t.Parallel()
	f := newProductDropFixture(t, 3, 5)
	d, err := f.teaDrop(t, 6)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.stock(t); got["w1"] != 2 || got["w2"] != 0 {
		t.Fatalf("stock after setting 6 aside: %v, want w1 2, w2 0", got)
	}
	if fmt.Sprint(d.SetAside) != "[{w2 5} {w1 1}]" {
		t.Fatalf("set aside %v", d.SetAside)
	}
	stored, err := f.env.Store.DropConsistent(ctxT(t), d.ID)
	if err != nil || fmt.Sprint(stored.SetAside) != fmt.Sprint(d.SetAside) || stored.Price != eur(1500) || stored.ProductID != "tea" {
		t.Fatalf("stored drop %+v, %v", stored, err)
	}
	for w, delta := range map[string]int{"w1": -1, "w2": -5} {
		adj := f.adjustments(t, w)
		if len(adj) != 1 || adj[0].Delta != delta || adj[0].Reason != "set aside for drop Tea drop" || adj[0].ProductID != "tea" || adj[0].StaffID != "staff-1" {
			t.Fatalf("adjustments of %s: %+v", w, adj)
		}
	}

	_, err = f.teaDrop(t, 3)
	var de *store.DropError
	if !errors.As(err, &de) || de.Field != "quantity" || !strings.Contains(de.Msg, "only 2 of Tea") {
		t.Fatalf("a drop of 3 with 2 in stock: %v", err)
	}
	if got := f.stock(t); got["w1"] != 2 || got["w2"] != 0 {
		t.Fatalf("stock after a refused drop: %v", got)
	}
	if n := len(f.adjustments(t, "w1")); n != 1 {
		t.Fatalf("%d adjustments of w1 after a refused drop", n)
	}
	if n := f.env.CountEntities(t, "drop"); n != 1 {
		t.Fatalf("%d drops written, want the first only", n)
	}
	if _, err := f.env.Store.CreateDrop(ctxT(t), store.NewDrop{Title: "x", Quantity: 1, Opens: f.clock.Now(), Closes: f.clock.Now().Add(time.Hour),
		ProductID: "nope", Price: eur(100), RedeemWithin: time.Hour}); !errors.As(err, &de) || de.Field != "product" {
		t.Fatalf("an unknown product: %v", err)
	}
}

// Closing a product drop early gives back what was not claimed to the
// warehouses it came from, most first; the claimed units stay aside.
func TestClosingProductDropReturnsTheUnclaimed(t *testing.T) {
	t.Parallel()
	f := newProductDropFixture(t, 4, 4)
	d, err := f.teaDrop(t, 6) // w1 4, w2 2 (equal stock: the lower id first)
	if err != nil {
		t.Fatal(err)
	}
	f.claim(t, d, "ada")
	f.claim(t, d, "bo")
	if err := f.env.Store.SetDropStatus(ctxT(t), d.ID, store.DropClosed); err != nil {
		t.Fatal(err)
	}
	// 4 unclaimed: all 4 back to w1 (it gave most), none to w2.
	if got := f.stock(t); got["w1"] != 4 || got["w2"] != 2 {
		t.Fatalf("stock after closing: %v, want w1 4, w2 2", got)
	}
	adj := f.adjustments(t, "w1")
	if len(adj) != 2 || adj[0].Delta != 4 || adj[0].Reason != "returned from closed drop Tea drop" {
		t.Fatalf("adjustments of w1: %+v", adj)
	}
	if n := len(f.adjustments(t, "w2")); n != 1 {
		t.Fatalf("%d adjustments of w2, want the set-aside only", n)
	}
	if err := f.env.Store.SetDropStatus(ctxT(t), d.ID, store.DropCancelled); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("cancelling a closed drop: %v", err)
	}
	if got := f.stock(t); got["w1"] != 4 || got["w2"] != 2 {
		t.Fatalf("stock after a refused cancel: %v", got)
	}

	// Cancelling one with five of six unclaimed: 4 to w1, then 1 to w2.
	d2, err := f.teaDrop(t, 6) // w1 4, w2 2
	if err != nil {
		t.Fatal(err)
	}
	f.claim(t, d2, "ada")
	if err := f.env.Store.SetDropStatus(ctxT(t), d2.ID, store.DropCancelled); err != nil {
		t.Fatal(err)
	}
	if got := f.stock(t); got["w1"] != 4 || got["w2"] != 1 {
		t.Fatalf("stock after cancelling: %v, want w1 4, w2 1", got)
	}
}

func ticketCheckout(f productDropFixture, key, customer string, d store.Drop, cart bool) store.CheckoutRequest {
	req := request(key, customer, store.CheckoutLine{ProductID: "tea", Quantity: 1, DropID: d.ID})
	if cart {
		req.CartOwner = store.CustomerOwner(customer)
	}
	return req
}

// A ticket buys one unit at the drop's price: the order records it, takes
// no stock for it, redeems the ticket and takes the line out of the cart;
// the same ticket cannot buy twice.
func TestTicketRedeemedAtCheckout(t *testing.T) {
	t.Parallel()
	f := newProductDropFixture(t, 5, 0)
	ctx := ctxT(t)
	d := f.adaHoldsATicket(t)
	owner := store.CustomerOwner("ada")
	p, err := f.env.Store.Product(ctx, "tea")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.env.Store.AddTicketToCart(ctx, owner, d, p); err != nil {
		t.Fatal(err)
	}
	if err := f.env.Store.AddToCart(ctx, owner, p, 1); err != nil { // the same product at its own price
		t.Fatal(err)
	}
	cart, err := f.env.Store.Cart(ctx, owner)
	if err != nil || len(cart.Lines) != 2 || cart.Total() != eur(3500) {
		t.Fatalf("cart %+v, %v", cart, err)
	}
	req := request("redeem-1", "ada")
	req.CartOwner = owner
	for _, l := range cart.Lines {
		req.Lines = append(req.Lines, store.CheckoutLine{ProductID: l.ProductID, Quantity: l.Quantity, DropID: l.DropID})
	}
	order, err := f.pay.Checkout(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if order.Total != eur(3500) {
		t.Fatalf("order total %v, want €35.00", order.Total)
	}
	items, err := f.env.Store.OrderItems(ctx, order.ID)
	if err != nil || len(items) != 2 {
		t.Fatalf("order items %+v, %v", items, err)
	}
	for _, it := range items {
		switch {
		case it.ProductID != "tea":
			t.Fatalf("item of product %q", it.ProductID)
		case it.DropID == d.ID && (it.Price != eur(1500) || it.Quantity != 1 || fmt.Sprint(it.Allocations) != "[{w1 1}]"):
			t.Fatalf("ticket line %+v", it)
		case it.DropID == "" && it.Price != eur(2000):
			t.Fatalf("product line %+v", it)
		}
	}
	tk, err := f.env.Store.Ticket(ctx, d.ID, "ada")
	if err != nil || tk.Status != store.TicketRedeemed || tk.OrderID != order.ID {
		t.Fatalf("ticket after checkout %+v, %v", tk, err)
	}
	if got := f.stock(t); got["w1"] != 2 { // 5 - 2 set aside - 1 bought at its price
		t.Fatalf("stock %v, want 2", got)
	}
	// The ticket's unit ships from where the drop set it aside.
	shs, err := f.env.Store.CreateShipments(ctx, order.ID, "Standard")
	if err != nil || len(shs) != 1 || len(shs[0].Items) != 2 || shs[0].WarehouseID != "w1" {
		t.Fatalf("shipments %+v, %v", shs, err)
	}
	if cart, err := f.env.Store.Cart(ctx, owner); err != nil || len(cart.Lines) != 0 {
		t.Fatalf("cart after checkout %+v, %v", cart, err)
	}
	if _, err := f.pay.Checkout(ctx, ticketCheckout(f, "redeem-2", "ada", d, false)); !errors.Is(err, store.ErrTicketNotRedeemable) {
		t.Fatalf("a second checkout with a redeemed ticket: %v", err)
	}
	if n, _ := paytest.Payments(t, f.env); n != 1 {
		t.Fatalf("%d payments at the provider, want 1", n)
	}
}

// Two tabs check out one ticket at once: exactly one order; the other is
// told, before anything is paid.
func TestTicketCheckoutRace(t *testing.T) {
	t.Parallel()
	f := newProductDropFixture(t, 5, 0)
	ctx := ctxT(t)
	d := f.adaHoldsATicket(t)
	// Both quote before either writes, so both reach the hold's
	// transaction, where the ticket's condition decides.
	var reqs [2]store.CheckoutRequest
	for i := range reqs {
		reqs[i] = ticketCheckout(f, fmt.Sprintf("tab-%d", i), "ada", d, false)
		q, err := f.env.Store.QuoteCheckout(ctx, reqs[i])
		if err != nil {
			t.Fatal(err)
		}
		reqs[i].Quote = &q
	}
	var wg sync.WaitGroup
	errs := make([]error, len(reqs))
	start := make(chan struct{})
	for i := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = f.pay.Checkout(ctx, reqs[i])
		}()
	}
	close(start)
	wg.Wait()
	ok, refused := 0, 0
	for i, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, store.ErrTicketNotRedeemable):
			refused++
		default:
			t.Errorf("tab %d: %v", i, err)
		}
	}
	if ok != 1 || refused != 1 {
		t.Fatalf("%d placed, %d refused; want one each (%v)", ok, refused, errs)
	}
	if n, total := paytest.Payments(t, f.env); n != 1 || total != 1500 {
		t.Fatalf("the provider holds %d payments of %d cents; want 1 of 1500", n, total)
	}
	if n := f.env.CountEntities(t, "order"); n != 1 {
		t.Fatalf("%d orders", n)
	}
}

// An expired ticket is refused: by the quote, and by the transaction's
// condition when it expires between the quote and the write.
func TestExpiredTicketIsRefused(t *testing.T) {
	t.Parallel()
	f := newProductDropFixture(t, 5, 0)
	ctx := ctxT(t)
	d := f.adaHoldsATicket(t)
	req := ticketCheckout(f, "late-1", "ada", d, false)
	q, err := f.env.Store.QuoteCheckout(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Set(f.clock.Now().Add(store.DefaultRedeemWithin))
	if _, err := f.env.Store.QuoteCheckout(ctx, req); !errors.Is(err, store.ErrTicketNotRedeemable) || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("quote of an expired ticket: %v", err)
	}
	req.Quote = &q // quoted in time, written too late
	if _, err := f.pay.Checkout(ctx, req); !errors.Is(err, store.ErrTicketNotRedeemable) {
		t.Fatalf("checkout of an expired ticket: %v", err)
	}
	if n, _ := paytest.Payments(t, f.env); n != 0 {
		t.Fatalf("%d payments for an expired ticket", n)
	}
	if tk, err := f.env.Store.Ticket(ctx, d.ID, "ada"); err != nil || tk.Status != store.TicketValid {
		t.Fatalf("ticket %+v, %v", tk, err)
	}
	if n := f.env.CountEntities(t, "order"); n != 0 {
		t.Fatalf("%d orders", n)
	}
}
