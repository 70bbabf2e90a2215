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

// dayFigures is a day's totals as "orders/revenue/refunded" in cents.
func dayFigures(d store.DayTotal) string {
	return fmt.Sprintf("%s %d/%d/%d", d.Day.Format(time.DateOnly), d.Orders, d.Revenue.Amount, d.Refunded.Amount)
}

// A refund counts on the day it gives money back, in the shop's zone, and
// leaves the order's revenue on the day it was placed; a cancel the same.
func TestRefundsCountOnTheirOwnDay(t *testing.T) {
	t.Parallel()
	stockholm, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, map[string][2]int{"p": {100, 0}}, 1250, store.WithTimeZone(stockholm))
	ctx := ctxT(t)
	clock := storetest.NewClock(time.Date(2026, 3, 27, 22, 30, 0, 0, time.UTC), time.Millisecond) // 27 Mar, 23:30 CET
	st := store.New(f.env.Client, f.env.Table, store.WithTimeZone(stockholm), store.WithClock(clock.Now))
	place := func(key string, n int) store.Order {
		t.Helper()
		req := request(key, "c1", store.CheckoutLine{ProductID: "p", Quantity: n})
		o, err := paytest.New(t, st).Checkout(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	first := place("day-a", 2)                                // €25.00 on the 27th
	clock.Set(time.Date(2026, 3, 27, 23, 30, 0, 0, time.UTC)) // 28 Mar, 00:30 CET
	if _, err := st.RefundOrder(ctx, store.OrderRefundRequest{OrderID: first.ID, Key: "rf-a", Reason: "Goodwill", By: refunder, Amount: eur(1000)}, f.pay.Refunds()); err != nil {
		t.Fatal(err)
	}
	clock.Set(time.Date(2026, 3, 28, 12, 0, 0, 0, time.UTC))
	second := place("day-b", 3) // €37.50 on the 28th
	clock.Set(time.Date(2026, 3, 30, 8, 0, 0, 0, time.UTC))
	if _, err := st.CancelOrder(ctx, second.ID, "c1", "cancel-b", nil, f.pay.Refunds()); err != nil {
		t.Fatal(err)
	}
	// A refund refused writes nothing to the totals.
	if _, err := st.RefundOrder(ctx, store.OrderRefundRequest{OrderID: first.ID, Key: "rf-too-much", Reason: "Goodwill", By: refunder, Amount: eur(1501)}, f.pay.Refunds()); !errors.Is(err, store.ErrRefundExceedsCharge) {
		t.Fatalf("refunding more than is left: %v", err)
	}
	days, err := f.env.Store.DayTotals(ctx, time.Date(2026, 3, 27, 12, 0, 0, 0, stockholm), time.Date(2026, 3, 30, 12, 0, 0, 0, stockholm))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"2026-03-27 1/2500/0", "2026-03-28 1/3750/1000", "2026-03-29 0/0/0", "2026-03-30 0/0/3750"}
	if len(days) != len(want) {
		t.Fatalf("%d days: %+v", len(days), days)
	}
	for i, w := range want {
		if got := dayFigures(days[i]); got != w {
			t.Errorf("day %d: %s, want %s", i, got, w)
		}
	}
	if net := days[1].Net(); net != eur(2750) {
		t.Errorf("net of the 28th %v", net)
	}
	if net := days[3].Net(); net != eur(-3750) {
		t.Errorf("net of the 30th %v", net)
	}
}

// A subscription's period that ships counts in its day through its order,
// so a refund of its receipt counts on the refund's day; one that ships
// nothing counts neither.
func TestReceiptRefundsCountWhenTheirPeriodShipped(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 5, 18, 9, 0, 0, 0, time.UTC))
	ctx, st := ctxT(t), f.env.Store
	f.subscribe(t, "nothing-ships", 18, 1)
	f.stock(t, map[string]int{"gbg": 10})
	f.subscribe(t, "ships", 18, 1)
	f.clock.Set(time.Date(2026, 5, 20, 9, 0, 0, 0, time.UTC))
	for _, c := range []string{"nothing-ships", "ships"} {
		rec := firstReceipt(t, f, c)
		if _, err := st.RefundReceipt(ctx, store.RefundRequest{CustomerID: c, Number: rec.Number, Amount: eur(300), Reason: "stale", By: "staff@x", Key: "k-" + c}, f.pay.Refunds(), nil); err != nil {
			t.Fatal(err)
		}
	}
	days, err := st.DayTotals(ctx, time.Date(2026, 5, 18, 9, 0, 0, 0, time.UTC), time.Date(2026, 5, 20, 9, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"2026-05-18 1/1299/0", "2026-05-19 0/0/0", "2026-05-20 0/0/300"}
	for i, w := range want {
		if got := dayFigures(days[i]); got != w {
			t.Errorf("day %d: %s, want %s", i, got, w)
		}
	}
}

// Many partial refunds of several orders at once, on one day: the day's
// Refunded is the sum of the refund records, whichever refunds won.
//
// Not parallel: beside other tests' writes, DynamoDB Local times out
// the lock waits of a race like this one.
func TestDayRefundedRace(t *testing.T) {
	f := newFixture(t, map[string][2]int{"p": {100, 0}}, 1000)
	ctx := ctxT(t)
	var orders []store.Order
	for i := range 4 {
		req := request(fmt.Sprintf("race-%d", i), "c1", store.CheckoutLine{ProductID: "p", Quantity: 2})
		o, err := f.pay.Checkout(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		orders = append(orders, o)
	}
	const perOrder = 8 // €3.00 each against €20.00: some are refused
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, len(orders)*perOrder)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			o := orders[i%len(orders)]
			_, errs[i] = f.env.Store.RefundOrder(ctx, store.OrderRefundRequest{OrderID: o.ID, Key: fmt.Sprintf("part-%02d", i), Reason: "Goodwill", By: refunder, Amount: eur(300)}, f.pay.Refunds())
		}()
	}
	close(start)
	wg.Wait()
	made := 0
	for _, err := range errs {
		switch {
		case err == nil:
			made++
		case errors.Is(err, store.ErrRefundExceedsCharge), errors.Is(err, store.ErrConflict):
		default:
			t.Errorf("refund: %v", err)
		}
	}
	var recorded int64
	for _, o := range orders {
		d, err := f.env.Store.OrderDetails(ctx, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range d.Refunds {
			recorded += r.Amount.Amount
		}
	}
	days, err := f.env.Store.DayTotals(ctx, time.Now(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if made == 0 || recorded != int64(made)*300 || days[0].Refunded.Amount != recorded {
		t.Fatalf("%d refunds made, records sum %d, the day's Refunded %v", made, recorded, days[0].Refunded)
	}
	if days[0].Orders != 4 || days[0].Revenue != eur(8000) {
		t.Fatalf("today %s", dayFigures(days[0]))
	}
	t.Logf("%d of %d refunds made", made, len(errs))
}
