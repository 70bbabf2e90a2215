package store_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"shop/store"
	"shop/store/storetest"
	"shop/store/storetest/paytest"
)

// shippingFixture is a shop whose one product "a" costs €10.00, with the
// test zones (Sweden: €4.90, free from €50.00), at a fixed clock.
func shippingFixture(t *testing.T) shopFixture {
	t.Helper()
	clock := storetest.NewClock(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC), 0)
	f := newFixture(t, map[string][2]int{"a": {40, -1}}, 1000, store.WithClock(clock.Now), store.WithListShards(2))
	for _, z := range testZones {
		if _, err := f.env.Store.SaveShippingZone(ctxT(t), z); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// refundedToday is what today's totals gave back.
func refundedToday(t *testing.T, st *store.Store) int64 {
	t.Helper()
	days, err := st.DayTotals(ctxT(t), st.Now(), st.Now())
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, d := range days {
		n += d.Refunded.Amount
	}
	return n
}

// Staff give delivery back with a partial refund, once: its money is in
// the refund, the order, the invoice's refunds and the day's totals; a
// second refund of it is refused, and the order's last unit then gives
// the rest of the goods only. A refund of every unit left, and of an
// order not shipped yet, gives delivery back without being asked.
func TestRefundGivesDeliveryBackOnce(t *testing.T) {
	t.Parallel()
	f := shippingFixture(t)
	st, ctx := f.env.Store, ctxT(t)
	d := deliveredOrder(t, f, "three", 3) // 3 × €10.00 + €4.90
	o := d.Order
	if o.Shipping != eur(490) || o.Total != eur(3490) || o.ShippingRefundable() != eur(490) {
		t.Fatalf("order: shipping %v total %v", o.Shipping, o.Total)
	}
	before := refundedToday(t, st)
	refund := func(key string, units int, shipping bool) (store.Refund, error) {
		req := store.OrderRefundRequest{OrderID: o.ID, Key: key, Reason: "Late", By: sam, Shipping: shipping}
		if units > 0 {
			req.Lines = []store.RefundLine{{ProductID: "a", Quantity: units}}
		}
		return st.RefundOrder(ctx, req, f.pay.Refunds())
	}
	rf, err := refund("one", 1, false)
	if err != nil || rf.Amount != eur(1000) || rf.Shipping.Amount != 0 {
		t.Fatalf("a unit without delivery: %+v, %v", rf, err)
	}
	rf, err = refund("one-and-delivery", 1, true)
	if err != nil || rf.Amount != eur(1490) || rf.Shipping != eur(490) || rf.Card != eur(1490) {
		t.Fatalf("a unit with delivery: %+v, %v", rf, err)
	}
	if _, err := refund("delivery-again", 0, true); !errors.Is(err, store.ErrShippingRefunded) {
		t.Fatalf("delivery a second time: %v", err)
	}
	if _, err := refund("unit-and-delivery-again", 1, true); !errors.Is(err, store.ErrShippingRefunded) {
		t.Fatalf("a unit with delivery a second time: %v", err)
	}
	rf, err = refund("last", 1, false)
	if err != nil || rf.Amount != eur(1000) || rf.Shipping.Amount != 0 {
		t.Fatalf("the last unit after delivery went back: %+v, %v", rf, err)
	}
	d, err = st.OrderDetails(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	inv, _ := d.Invoice()
	if d.Order.Refunded != eur(3490) || d.Order.RefundedShipping != eur(490) || inv.Paid().Amount != 0 || len(d.Refunds) != 3 {
		t.Fatalf("after all: refunded %v (delivery %v), invoice paid %v, %d refunds", d.Order.Refunded, d.Order.RefundedShipping, inv.Paid(), len(d.Refunds))
	}
	for _, r := range d.Refunds {
		if want := map[string]int64{"one-and-delivery": 490}[r.ID]; r.Shipping.Amount != want {
			t.Fatalf("refund %s read back with delivery %v, want %d", r.ID, r.Shipping, want)
		}
	}
	if got := refundedToday(t, st) - before; got != 3490 {
		t.Fatalf("the day's totals gave back %d, want 3490", got)
	}

	// Every unit at once: delivery back with them, unasked.
	whole := deliveredOrder(t, f, "whole", 2)
	rf, err = st.RefundOrder(ctx, store.OrderRefundRequest{OrderID: whole.Order.ID, Key: "all", Reason: "Wrong order", By: sam,
		Lines: []store.RefundLine{{ProductID: "a", Quantity: 2}}}, f.pay.Refunds())
	if err != nil || rf.Amount != eur(2490) || rf.Shipping != eur(490) {
		t.Fatalf("every unit: %+v, %v", rf, err)
	}
	// Delivery alone, on an order not shipped yet; then its units, which
	// cancel it, give the goods back.
	placed, err := paytest.New(t, st).Checkout(ctx, request("placed", "c", store.CheckoutLine{ProductID: "a", Quantity: 1}))
	if err != nil {
		t.Fatal(err)
	}
	rf, err = st.RefundOrder(ctx, store.OrderRefundRequest{OrderID: placed.ID, Key: "ship", Reason: "Sorry", By: sam, Shipping: true}, f.pay.Refunds())
	if err != nil || rf.Amount != eur(490) || rf.Shipping != eur(490) || len(rf.Lines) != 0 {
		t.Fatalf("delivery alone: %+v, %v", rf, err)
	}
	rf, err = st.RefundOrder(ctx, store.OrderRefundRequest{OrderID: placed.ID, Key: "units", Reason: "Out of stock", By: sam, SawPlaced: true,
		Lines: []store.RefundLine{{ProductID: "a", Quantity: 1}}}, f.pay.Refunds())
	if err != nil || rf.Amount != eur(1000) || rf.Shipping.Amount != 0 {
		t.Fatalf("the units after delivery: %+v, %v", rf, err)
	}
	if d, err := st.OrderDetails(ctx, placed.ID); err != nil || d.Order.Status != store.OrderCancelled || d.Order.Refundable().Amount != 0 {
		t.Fatalf("unshipped order after both: %s, left %v (%v)", d.Order.Status, d.Order.Refundable(), err)
	}
	// An order that paid nothing for delivery has none to give back.
	free := deliveredOrder(t, f, "free", 5) // €50.00: free delivery
	if _, err := st.RefundOrder(ctx, store.OrderRefundRequest{OrderID: free.Order.ID, Key: "ship", Reason: "x", By: sam, Shipping: true}, f.pay.Refunds()); !errors.Is(err, store.ErrNoShipping) {
		t.Fatalf("delivery of a free-delivery order: %v", err)
	}
}

// A return's refund gives delivery back only when staff choose it, even
// when every unit comes back; a cancellation always does.
func TestReturnRefundsDeliveryOnlyWhenChosen(t *testing.T) {
	t.Parallel()
	f := shippingFixture(t)
	st, ctx := f.env.Store, ctxT(t)
	returned := func(key string, how store.ReturnRefund) (store.Return, store.OrderDetails) {
		t.Helper()
		d := deliveredOrder(t, f, key, 2)
		r, err := one(t)(st.RequestReturn(ctx, d.Order.ID, "c", askA(2)))
		if err != nil {
			t.Fatal(err)
		}
		mail := func(r store.Return) store.Mail {
			return store.Mail{To: "c@example.com", Kind: store.MailReturnReceived, CreatedAt: r.ReceivedAt, Status: store.MailPending}
		}
		if r, err = st.ReceiveReturn(ctx, d.Order.ID, r.ID, 1, sam, mail); err != nil {
			t.Fatal(err)
		}
		if r, err = st.InspectReturn(ctx, d.Order.ID, r.ID, 2, sam, store.Inspection{Verdicts: []store.ReturnVerdict{store.VerdictAccepted}, Notes: []string{""}}); err != nil {
			t.Fatal(err)
		}
		if r, err = st.RefundReturn(ctx, d.Order.ID, r.ID, 3, how, sam, f.pay.Refunds(), nil); err != nil {
			t.Fatal(err)
		}
		if d, err = st.OrderDetails(ctx, d.Order.ID); err != nil {
			t.Fatal(err)
		}
		return r, d
	}
	r, d := returned("kept", store.ReturnRefund{Warehouse: "w1"})
	if r.Refunded != eur(2000) || r.RefundedShipping.Amount != 0 || d.Order.Refundable() != eur(490) || d.Order.RefundedShipping.Amount != 0 {
		t.Fatalf("every unit returned, delivery not chosen: return refunded %v (delivery %v), order left %v", r.Refunded, r.RefundedShipping, d.Order.Refundable())
	}
	if d.Order.ShippingRefundable() != eur(490) {
		t.Fatalf("delivery left to refund %v", d.Order.ShippingRefundable())
	}
	r, d = returned("back", store.ReturnRefund{Warehouse: "w1", Shipping: true})
	if r.Refunded != eur(2490) || r.RefundedShipping != eur(490) || d.Order.Refundable().Amount != 0 || d.Refunds[0].Shipping != eur(490) {
		t.Fatalf("delivery chosen: return refunded %v (delivery %v), order left %v", r.Refunded, r.RefundedShipping, d.Order.Refundable())
	}

	placed, err := paytest.New(t, st).Checkout(ctx, request("cancel", "c", store.CheckoutLine{ProductID: "a", Quantity: 1}))
	if err != nil {
		t.Fatal(err)
	}
	rf, err := st.CancelOrder(ctx, placed.ID, "c", "cancel-1", nil, f.pay.Refunds())
	if err != nil || rf.Amount != eur(1490) || rf.Shipping != eur(490) {
		t.Fatalf("cancelled: %+v, %v", rf, err)
	}
}

// Staff refunding delivery at once, from many forms (delivery alone, or
// with a unit): it goes back once; the others are told it went back and
// refund nothing, and the order, the day's totals and the provider's
// refunds agree.
//
// Not parallel: beside other tests' writes, DynamoDB Local times out the
// lock waits of a race like this one.
func TestRefundsOfDeliveryRaceGiveItBackOnce(t *testing.T) {
	f := shippingFixture(t)
	st, ctx := f.env.Store, ctxT(t)
	d := deliveredOrder(t, f, "race", 4) // €40.00 + €4.90
	before := refundedToday(t, st)
	_, providerBefore := paytest.ProviderRefunds(t, f.env)
	const staff = 12
	refunds := make([]store.Refund, staff)
	errs := make([]error, staff)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range staff {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := store.OrderRefundRequest{OrderID: d.Order.ID, Key: fmt.Sprintf("staff-%02d", i), Reason: "Late", By: sam, Shipping: true}
			if i%2 == 1 {
				req.Lines = []store.RefundLine{{ProductID: "a", Quantity: 1}}
			}
			<-start
			refunds[i], errs[i] = st.RefundOrder(ctx, req, f.pay.Refunds())
		}()
	}
	close(start)
	wg.Wait()
	var made int
	var sum int64
	for i, err := range errs {
		switch {
		case err == nil:
			made++
			sum += refunds[i].Amount.Amount
			if refunds[i].Shipping != eur(490) {
				t.Errorf("refund %d gave delivery back as %v", i, refunds[i].Shipping)
			}
		case errors.Is(err, store.ErrShippingRefunded), errors.Is(err, store.ErrConflict):
		default:
			t.Errorf("refund %d: %v", i, err)
		}
	}
	if made != 1 {
		t.Fatalf("%d refunds gave delivery back, want 1", made)
	}
	d, err := st.OrderDetails(ctx, d.Order.ID)
	if err != nil {
		t.Fatal(err)
	}
	inv, _ := d.Invoice()
	_, provider := paytest.ProviderRefunds(t, f.env)
	if len(d.Refunds) != 1 || d.Order.Refunded.Amount != sum || d.Order.RefundedShipping != eur(490) || inv.Paid().Amount != 4490-sum ||
		refundedToday(t, st)-before != sum || provider-providerBefore != sum {
		t.Fatalf("%d refunds, order refunded %v (delivery %v), invoice paid %v, day %d, provider %d; want %d once",
			len(d.Refunds), d.Order.Refunded, d.Order.RefundedShipping, inv.Paid(), refundedToday(t, st)-before, provider-providerBefore, sum)
	}
}
