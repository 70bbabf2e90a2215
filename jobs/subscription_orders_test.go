package jobs_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"shop/jobs"
	"shop/store"
)

// stockBeans makes the seeded subscriptions' product one the shop stocks,
// so each paid period ships an order.
func (b *billing) stockBeans(t *testing.T, levels map[string]int) {
	t.Helper()
	ctx := ctxT(t)
	if err := b.env.Store.PutProduct(ctx, store.Product{ID: "beans", Name: "Fika beans", Category: "coffee", Price: eur(1200), Subscribable: true, MonthlyPrice: eur(990)}); err != nil {
		t.Fatal(err)
	}
	for w, q := range levels {
		if err := b.env.Store.PutStockLevel(ctx, store.StockLevel{ProductID: "beans", ProductName: "Fika beans", WarehouseID: w, WarehouseName: w, Quantity: q}); err != nil {
			t.Fatal(err)
		}
	}
}

func (b *billing) beansLeft(t *testing.T) int {
	t.Helper()
	levels, err := b.env.Store.ProductStock(ctxT(t), "beans")
	if err != nil {
		t.Fatal(err)
	}
	return store.TotalStock(levels)
}

// Charges that crash between the gateway and the shop's write leave their
// intents; the next run charges them again with the same key and writes
// the receipt with its order. Another run after that, and the reconcile
// step, find every period paid: one order a period, however often the job
// ran, and stock taken once for each; with too little stock the rest
// await it, nothing taken.
func TestPaymentsRerunAfterACrashPlaceOneOrderAPeriod(t *testing.T) {
	t.Parallel()
	const n, units = 30, 20
	b := newBilling(t, "2026-03-15")
	b.stockBeans(t, map[string]int{"gbg": units})
	subs := b.seed(t, n, "2026-03-15", b.good)
	ctx := ctxT(t)
	var crashes atomic.Int32
	b.gateway.AfterCharge = func(ctx context.Context, key string) error {
		if crashes.Add(1) <= 8 {
			return errors.New("the process died after the charge")
		}
		return nil
	}
	first, err := b.runner("r1").Run(ctx, jobs.JobPayments, day("2026-03-15"), jobs.TriggerCommandLine)
	if err != nil {
		t.Fatal(err)
	}
	if first.Counts.Failed != 8 || first.Counts.Charged != n-8 {
		t.Fatalf("the first run charged %d and failed %d, want %d and 8", first.Counts.Charged, first.Counts.Failed, n-8)
	}
	b.gateway.AfterCharge = nil
	for _, replica := range []string{"r2", "r3"} {
		if _, err := b.runner(replica).Run(ctx, jobs.JobPayments, day("2026-03-15"), jobs.TriggerCommandLine); err != nil {
			t.Fatal(err)
		}
	}
	b.clock.Set(b.clock.Now().Add(time.Hour))
	if _, err := b.runner("r4").Reconcile(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	if got := b.env.CountEntities(t, "receipt"); got != n {
		t.Fatalf("%d receipts, want %d", got, n)
	}
	if got := b.env.CountEntities(t, "gatewayCharge"); got != n {
		t.Fatalf("%d charges, want %d", got, n)
	}
	if got := b.env.CountEntities(t, "order"); got != n {
		t.Fatalf("%d orders, want one a period: %d", got, n)
	}
	placed, awaiting := 0, 0
	for _, s := range subs {
		now := b.reread(t, s)
		if len(now.Orders) != 1 {
			t.Fatalf("subscription %s links %d orders", s.ID, len(now.Orders))
		}
		d, err := b.env.Store.OrderDetails(ctx, now.Orders[0].OrderID)
		if err != nil {
			t.Fatal(err)
		}
		switch d.Order.Status {
		case store.OrderPlaced:
			placed++
		case store.OrderAwaitingStock:
			awaiting++
		}
	}
	if placed != units || awaiting != n-units || b.beansLeft(t) != 0 {
		t.Fatalf("%d placed, %d awaiting stock, %d left: want %d, %d, 0", placed, awaiting, b.beansLeft(t), units, n-units)
	}
	waiting, err := b.env.Store.OrdersAwaitingStock(ctx, 100, "")
	if err != nil || len(waiting.Items) != n-units {
		t.Fatalf("%d listed awaiting stock (%v), want %d", len(waiting.Items), err, n-units)
	}
}
