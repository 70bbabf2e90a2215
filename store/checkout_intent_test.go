package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"shop/store"
	"shop/store/payment"
)

var errCrash = errors.New("the process died after the charge")

// crashAfterFirstCharge makes the gateway's first charge "kill" the
// checkout between the charge and the order's write.
func crashAfterFirstCharge(g *payment.TestGateway) {
	var crashed atomic.Bool
	g.AfterCharge = func(context.Context, string) error {
		if crashed.CompareAndSwap(false, true) {
			return errCrash
		}
		return nil
	}
}

// crashedCheckout is a shop with 5 of product p at €10.00 in which ada's
// checkout of quantity p, under key, died after the charge.
func crashedCheckout(t *testing.T, key string, quantity int) (shopFixture, store.CheckoutRequest) {
	t.Helper()
	f := newFixture(t, map[string][2]int{"p": {5, 0}}, 1000)
	crashAfterFirstCharge(f.gateway)
	req := request(key, "ada", store.CheckoutLine{ProductID: "p", Quantity: quantity})
	req.Card = f.card
	if _, err := f.env.Store.Checkout(ctxT(t), req, f.gateway); !errors.Is(err, errCrash) {
		t.Fatalf("checkout: %v, want the crash", err)
	}
	return f, req
}

func settle(t *testing.T, f shopFixture, in store.CheckoutIntent) store.CheckoutIntentStatus {
	t.Helper()
	ctx := ctxT(t)
	st, err := f.env.Store.SettleCheckoutIntent(ctx, in,
		func(key string) (store.GatewayCharge, error) { return f.gateway.Lookup(ctx, key) },
		func(id string) error { return f.gateway.Void(ctx, id) })
	if err != nil {
		t.Fatalf("settle %s: %v", in.Key, err)
	}
	return st
}

func openIntents(t *testing.T, f shopFixture) []store.CheckoutIntent {
	t.Helper()
	var open []store.CheckoutIntent
	var err error
	f.env.Costs(t, "open checkout intents", store.DefaultListShards, func() {
		open, err = f.env.Store.OpenCheckoutIntents(ctxT(t), time.Now().Add(time.Second), 10)
	})
	if err != nil {
		t.Fatal(err)
	}
	return open
}

func cardPayment(t *testing.T, f shopFixture, orderID string) store.Payment {
	t.Helper()
	inv, err := f.env.Store.OrderInvoices(ctxT(t), orderID)
	if err != nil || len(inv) != 1 {
		t.Fatalf("invoice of %s: %v", orderID, err)
	}
	for _, p := range inv[0].Payments {
		if p.Type != "GiftCard" {
			return p
		}
	}
	t.Fatalf("no card payment on %s", orderID)
	return store.Payment{}
}

// The process dies after the charge: the intent stays charging and the
// reconcile step finds it, voids the charge (the customer was told it
// failed) and marks it voided. The same form sent again then places the
// order with a fresh charge, once.
func TestCheckoutCrashAfterChargeIsVoidedThenRetried(t *testing.T) {
	t.Parallel()
	f, req := crashedCheckout(t, "crash-then-settle", 2)
	ctx, st := ctxT(t), f.env.Store
	if n, _, _ := f.gateway.Captured(); n != 1 || f.env.CountEntities(t, "order") != 0 || f.stockOf(t, "p") != 5 {
		t.Fatalf("after the crash: %d charges, %d orders, stock %d", n, f.env.CountEntities(t, "order"), f.stockOf(t, "p"))
	}
	if _, err := st.OrderForKey(ctx, req.Key, "ada"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("order for a charging key: %v", err)
	}
	if old, err := st.OpenCheckoutIntents(ctx, time.Now().Add(-time.Hour), 10); err != nil || len(old) != 0 {
		t.Fatalf("intents older than an hour: %+v, %v", old, err)
	}
	open := openIntents(t, f)
	if len(open) != 1 {
		t.Fatalf("open intents %+v", open)
	}
	in := open[0]
	if in.Key != req.Key || in.CustomerID != "ada" || in.Status != store.CheckoutCharging || in.Attempt != 1 ||
		in.ChargeKey != "checkout-"+req.Key || in.Amount != eur(2000) {
		t.Fatalf("intent %+v", in)
	}
	// Someone else's checkout with that key is refused while it charges.
	other := request(req.Key, "eve", store.CheckoutLine{ProductID: "p", Quantity: 1})
	other.Card = f.card
	if _, err := st.Checkout(ctx, other, f.gateway); !errors.Is(err, store.ErrBadCheckoutKey) {
		t.Fatalf("another customer's checkout on the key: %v", err)
	}

	if got := settle(t, f, in); got != store.CheckoutVoided {
		t.Fatalf("settled as %q, want voided", got)
	}
	if n, _, _ := f.gateway.Captured(); n != 0 {
		t.Fatalf("%d charges kept after settling", n)
	}
	if charge, err := f.gateway.Lookup(ctx, in.ChargeKey); err != nil || !charge.Voided {
		t.Fatalf("ledger: %+v, %v; want the charge voided", charge, err)
	}
	if len(openIntents(t, f)) != 0 {
		t.Fatal("a settled intent is still open")
	}
	if got := settle(t, f, in); got != store.CheckoutVoided {
		t.Fatalf("settled twice: %q", got)
	}

	// The same form again: attempt 2, a fresh charge key.
	o, err := st.Checkout(ctx, req, f.gateway)
	if err != nil {
		t.Fatal(err)
	}
	pay := cardPayment(t, f, o.ID)
	if n, total, _ := f.gateway.Captured(); n != 1 || total != 2000 || !strings.Contains(pay.Reference, "ch_") {
		t.Fatalf("after the retry: %d charges of %d, payment %+v", n, total, pay)
	}
	if _, err := f.gateway.Lookup(ctx, "checkout-"+req.Key+"-2"); err != nil {
		t.Fatalf("the retry's charge key: %v", err)
	}
	again, err := st.Checkout(ctx, req, f.gateway)
	if err != nil || again.ID != o.ID {
		t.Fatalf("submitted once more: %+v, %v; want order %s", again, err, o.ID)
	}
	if f.env.CountEntities(t, "order") != 1 || f.stockOf(t, "p") != 3 {
		t.Fatal("the retry placed more than one order")
	}
	if got := settle(t, f, in); got != "" {
		t.Fatalf("the first attempt's intent, after the second placed: %q", got)
	}
}

// The process dies after the charge and the customer sends the same form
// again before any reconcile: the gateway's ledger gives back the same
// charge, the order is placed once, and the reconcile step then finds it
// placed and leaves the charge alone.
func TestCheckoutCrashAfterChargeThenRetryUsesTheSameCharge(t *testing.T) {
	t.Parallel()
	f, req := crashedCheckout(t, "crash-then-retry", 1)
	ctx, st := ctxT(t), f.env.Store
	stale := openIntents(t, f)
	if len(stale) != 1 {
		t.Fatalf("open intents %+v", stale)
	}
	first, err := f.gateway.Lookup(ctx, stale[0].ChargeKey)
	if err != nil {
		t.Fatal(err)
	}
	o, err := st.Checkout(ctx, req, f.gateway)
	if err != nil {
		t.Fatal(err)
	}
	if pay := cardPayment(t, f, o.ID); !strings.HasPrefix(pay.Reference, first.ID+" ") {
		t.Fatalf("the order paid with %q, want the first charge %s", pay.Reference, first.ID)
	}
	if n, total, attempts := f.gateway.Captured(); n != 1 || total != 1000 || attempts != 1 {
		t.Fatalf("gateway: %d charges of %d, %d attempts; want the one", n, total, attempts)
	}
	if got := settle(t, f, stale[0]); got != store.CheckoutPlaced {
		t.Fatalf("settled as %q, want placed", got)
	}
	if n, _, _ := f.gateway.Captured(); n != 1 || len(openIntents(t, f)) != 0 {
		t.Fatal("settling a placed order's intent voided its charge or left it open")
	}
	if f.env.CountEntities(t, "order") != 1 || f.stockOf(t, "p") != 4 {
		t.Fatal("not exactly one order")
	}
}

// A declined card leaves an intent with nothing in the ledger: another card
// on the same form overwrites it and pays. Left alone, it is abandoned.
func TestCheckoutDeclinedCardIntentNeitherBlocksNorLingers(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string][2]int{"p": {5, 0}}, 1000)
	ctx, st := ctxT(t), f.env.Store
	bad, err := f.gateway.Tokenize(ctx, payment.CardDeclined, "12/99", "123")
	if err != nil {
		t.Fatal(err)
	}
	declined := &bad
	for i, then := range []string{"another card", "abandon"} {
		req := request(fmt.Sprintf("declined-%d", i), "ada", store.CheckoutLine{ProductID: "p", Quantity: 1})
		req.Card = declined
		if _, err := st.Checkout(ctx, req, f.gateway); !errors.Is(err, payment.ErrDeclined) {
			t.Fatalf("%s: %v, want declined", then, err)
		}
		if then == "another card" {
			req.Card = f.card
			if _, err := st.Checkout(ctx, req, f.gateway); err != nil {
				t.Fatalf("another card on the same form: %v", err)
			}
			continue
		}
		open := openIntents(t, f)
		if len(open) != 1 || open[0].Key != req.Key {
			t.Fatalf("open intents %+v", open)
		}
		if got := settle(t, f, open[0]); got != store.CheckoutAbandoned {
			t.Fatalf("a declined intent settled as %q", got)
		}
		req.Card = f.card // the same form still works after
		if _, err := st.Checkout(ctx, req, f.gateway); err != nil {
			t.Fatalf("the form after its intent was abandoned: %v", err)
		}
	}
	if n, _, _ := f.gateway.Captured(); n != 2 || f.env.CountEntities(t, "order") != 2 || len(openIntents(t, f)) != 0 {
		t.Fatalf("%d charges, %d orders", n, f.env.CountEntities(t, "order"))
	}
}

// A reconcile step that runs while a (slow) checkout is between its charge
// and its write voids the charge first: the checkout's write then fails on
// the intent, and no order is placed with a voided charge.
func TestSettleWhileTheCheckoutIsStillRunning(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string][2]int{"p": {5, 0}}, 1000)
	ctx, st := ctxT(t), f.env.Store
	charger := &hookCharger{TestGateway: f.gateway, hook: func() {
		open := openIntents(t, f)
		if len(open) != 1 {
			t.Errorf("open intents %+v", open)
			return
		}
		if got := settle(t, f, open[0]); got != store.CheckoutVoided {
			t.Errorf("settled as %q", got)
		}
	}}
	req := request("slow", "ada", store.CheckoutLine{ProductID: "p", Quantity: 1})
	req.Card = f.card
	if _, err := st.Checkout(ctx, req, charger); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("checkout: %v, want a conflict", err)
	}
	if n, _, _ := f.gateway.Captured(); n != 0 || f.env.CountEntities(t, "order") != 0 || f.stockOf(t, "p") != 5 {
		t.Fatal("an order or a charge is left")
	}
}

// The largest order there can be, placed for real: fifteen lines of 99,
// each from four warehouses, a discount code, a gift card and a card, and
// the cart emptied, in one transaction.
func TestLargestCheckoutIsPlaced(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, 0)
	ctx, st := ctxT(t), f.env.Store
	var ws []string
	for i := 3; i <= 8; i++ { // w1 and w2 come with the fixture
		w := fmt.Sprintf("w%d", i)
		if err := st.PutWarehouse(ctx, store.Warehouse{ID: w, Name: "Warehouse " + w, Address: store.Address{City: w}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= 8; i++ {
		ws = append(ws, fmt.Sprintf("w%d", i))
	}
	owner := store.CustomerOwner("big")
	req := request("largest", "big")
	for i := range store.MaxCartLines {
		p := store.Product{ID: fmt.Sprintf("p%02d", i), Name: fmt.Sprintf("Product %02d", i), Category: "c", Price: eur(100)}
		if err := st.PutProduct(ctx, p); err != nil {
			t.Fatal(err)
		}
		for _, w := range ws {
			if err := st.PutStockLevel(ctx, store.StockLevel{ProductID: p.ID, ProductName: p.Name, WarehouseID: w, WarehouseName: w, Quantity: 25}); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.AddToCart(ctx, owner, p, store.MaxLineQty); err != nil {
			t.Fatal(err)
		}
		req.Lines = append(req.Lines, store.CheckoutLine{ProductID: p.ID, Quantity: store.MaxLineQty})
	}
	if _, err := st.CreateGiftCard(ctx, store.GiftCard{Code: "GIFT-BIG1", Balance: eur(1000)}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateDiscountCode(ctx, store.DiscountCode{Code: "BIG", Kind: store.DiscountPercent, Percent: 10,
		ExpiresAt: time.Now().Add(time.Hour), UsageLimit: 1}); err != nil {
		t.Fatal(err)
	}
	req.CartOwner, req.DiscountCode, req.GiftCardCode, req.Card = owner, "BIG", "GIFT-BIG1", f.card
	d := f.checkoutInOneTransaction(t, req)
	if len(d.Items) != store.MaxCartLines {
		t.Fatalf("order details %+v", d)
	}
	for _, it := range d.Items {
		if len(it.Allocations) != store.MaxLineWarehouses {
			t.Fatalf("%s leaves from %d warehouses", it.ProductID, len(it.Allocations))
		}
	}
	if c := must(st.Cart(ctx, owner)); len(c.Lines) != 0 {
		t.Fatalf("cart not emptied: %d lines", len(c.Lines))
	}
	if n, total, _ := f.gateway.Captured(); n != 1 || total != 15*99*100*9/10-1000 {
		t.Fatalf("gateway: %d charges of %d", n, total)
	}
}
