package jobs_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"shop/jobs"
	"shop/store"
	"shop/store/payment"
)

var greenTea = store.Product{ID: "tea", Name: "Green tea", Category: "tea", Subscribable: true, MonthlyPrice: eur(1450)}

// swapUntilDone swaps sub to qty × p from the next payment, reading it
// again while it is stale or its payment is on its way, until the swap is
// written (true) or another did it (false).
func swapUntilDone(t *testing.T, b *subBench, sub store.Subscription, p store.Product, qty int) (bool, error) {
	ctx := ctxT(t)
	for range 5000 {
		cur, err := b.env.Store.SubscriptionConsistent(ctx, sub.AccountID, sub.ID)
		if err != nil {
			return false, err
		}
		_, err = b.env.Store.ChangeSubscription(ctx, sub.AccountID, sub.ID, cur.Version, store.SwapProduct(p, qty, nil))
		var stale *store.StaleError
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, store.ErrSameValue):
			return false, nil
		case errors.As(err, &stale), errors.Is(err, store.ErrPaymentUnderway):
			time.Sleep(time.Millisecond)
		default:
			return false, err
		}
	}
	return false, errors.New("the swap never got through")
}

// After a swap from the next payment, the payments job charges quantity ×
// the new product's price × the period, and the receipt names the line.
func TestPaymentsChargeTheQuantityAfterASwap(t *testing.T) {
	t.Parallel()
	b := newSubBench(t, "2026-03-15")
	ctx := ctxT(t)
	c := b.customer(t)
	sub := b.seedSaved(t, c, 1, "2026-03-15", b.savedCard(t, c, payment.CardSucceeds))[0]
	if ok, err := swapUntilDone(t, b, sub, greenTea, 3); !ok || err != nil {
		t.Fatalf("swap: %v, %v", ok, err)
	}
	if _, err := b.runner("r").Run(ctx, jobs.JobPayments, day("2026-03-15"), jobs.TriggerCommandLine); err != nil {
		t.Fatal(err)
	}
	recs, err := b.env.Store.RecentReceipts(ctx, c.ID, 10, "")
	if err != nil || len(recs.Items) != 1 {
		t.Fatalf("receipts %+v, %v", recs.Items, err)
	}
	if r := recs.Items[0]; r.Amount != eur(3*1450) || r.ProductID != "tea" || r.ProductName != "3 × Green tea" {
		t.Fatalf("receipt: %v for %s %q, want €43.50 for 3 × Green tea", r.Amount, r.ProductID, r.ProductName)
	}
	paid := b.events(t, payment.EventPaymentSucceeded)
	if len(paid) != 1 || paid[0].Payment.Amount != eur(3*1450) {
		t.Fatalf("provider payments: %+v", paid)
	}
}

// A swap racing the payments job on its payment day: for each
// subscription exactly one of "the old price charged for the period, then
// the swap" or "the swap, then the new price charged", never both and never
// neither: one payment succeeded at the provider, one receipt, of the same
// amount, and the swap written.
func TestSwapRacingThePaymentsJobChargesOnce(t *testing.T) {
	t.Parallel()
	b := newSubBench(t, "2026-03-15")
	ctx := ctxT(t)
	c := b.customer(t)
	n := 12
	subs := b.seedSaved(t, c, n, "2026-03-15", b.savedCard(t, c, payment.CardSucceeds))
	var g errgroup.Group
	var mu sync.Mutex
	swapped := 0
	for i, s := range subs {
		for range 3 {
			g.Go(func() error {
				// Staggered, so that some swaps come before the runs reach
				// their subscription and some after.
				time.Sleep(time.Duration(i) * 150 * time.Millisecond)
				ok, err := swapUntilDone(t, b, s, greenTea, 2)
				if ok {
					mu.Lock()
					swapped++
					mu.Unlock()
				}
				return err
			})
		}
	}
	for i := range 2 {
		g.Go(func() error {
			_, err := b.runner("replica-"+string(rune('a'+i))).Run(ctx, jobs.JobPayments, day("2026-03-15"), jobs.TriggerCommandLine)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	// A run after: whatever the race left due is charged now.
	if _, err := b.runner("replica-c").Run(ctx, jobs.JobPayments, day("2026-03-15"), jobs.TriggerCommandLine); err != nil {
		t.Fatal(err)
	}
	if swapped != n {
		t.Fatalf("%d swaps written, want %d", swapped, n)
	}
	paid := map[string]store.Money{}
	for _, ev := range b.events(t, payment.EventPaymentSucceeded) {
		id := ev.Payment.Metadata[payment.MetaSubscription]
		if _, twice := paid[id]; twice {
			t.Fatalf("subscription %s paid twice at the provider", id)
		}
		paid[id] = ev.Payment.Amount
	}
	recs, err := b.env.Store.RecentReceipts(ctx, c.ID, 100, "")
	if err != nil {
		t.Fatal(err)
	}
	receipts := map[string]store.Receipt{}
	for _, r := range recs.Items {
		if _, twice := receipts[r.SubscriptionID]; twice {
			t.Fatalf("subscription %s has two receipts", r.SubscriptionID)
		}
		receipts[r.SubscriptionID] = r
	}
	before, after := 0, 0
	for _, s := range subs {
		r, ok := receipts[s.ID]
		switch {
		case !ok || paid[s.ID] != r.Amount:
			t.Fatalf("subscription %s: receipt %+v, provider payment %v", s.ID, r, paid[s.ID])
		case r.Amount == eur(990) && r.ProductName == "Fika beans":
			before++ // charged the old price, then swapped
		case r.Amount == eur(2*1450) && r.ProductName == "2 × Green tea":
			after++ // swapped, then charged the new price
		default:
			t.Fatalf("subscription %s: receipt of %v for %q", s.ID, r.Amount, r.ProductName)
		}
		now, err := b.env.Store.SubscriptionConsistent(ctx, c.ID, s.ID)
		if err != nil || now.ProductID != "tea" || now.Units() != 2 || now.Intent != nil || store.FormatDate(now.NextPaymentDate) != "2026-04-15" {
			t.Fatalf("subscription after the race: %+v, %v", now, err)
		}
	}
	if got := len(b.subscriptionsOf(t, c)); got != n {
		t.Fatalf("%d subscriptions, want %d (a swap moves the item, never copies it)", got, n)
	}
	t.Logf("charged the old price then swapped: %d; swapped then charged the new price: %d", before, after)
}
