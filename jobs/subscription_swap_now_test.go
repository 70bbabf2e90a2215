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

// swapNowUntilDone swaps sub to qty × p now, planning again while no card
// payment covers today yet (the job has not paid the period), its payment
// is on its way, or it moved, until the swap is written (true) or another
// swap now of the period was (false).
func swapNowUntilDone(t *testing.T, b *subBench, sub store.Subscription, p store.Product, qty int) (bool, error) {
	ctx := ctxT(t)
	for range 5000 {
		cur, err := b.env.Store.SubscriptionConsistent(ctx, sub.AccountID, sub.ID)
		if err != nil {
			return false, err
		}
		plan, err := b.env.Store.PlanSwapNow(ctx, sub.AccountID, sub.ID, cur.Version, p, qty, nil)
		if err == nil {
			_, err = b.sp.ChargeSwapNow(ctx, plan)
		}
		var stale *store.StaleError
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, store.ErrChangedNowAlready), errors.Is(err, store.ErrSameValue):
			return false, nil
		case errors.As(err, &stale), errors.Is(err, store.ErrPaymentUnderway), errors.Is(err, store.ErrNoPaidPeriod):
			time.Sleep(time.Millisecond)
		default:
			return false, err
		}
	}
	return false, errors.New("the swap now never got through")
}

// paidAt is what the provider took for one subscription: its period
// payments and its swap now's, each less what was given back.
type paidAt struct {
	periods, periodCount int
	changes              int64
	givenBack            int // swap charges refunded: their write lost
}

// ledger reads the provider's succeeded payments (and their refunds) by
// subscription.
func (b *subBench) ledger(t *testing.T) map[string]*paidAt {
	t.Helper()
	out := map[string]*paidAt{}
	seen := map[string]bool{}
	for _, ev := range b.events(t, payment.EventPaymentSucceeded) {
		if seen[ev.Payment.ID] {
			continue // an event again: the same payment
		}
		seen[ev.Payment.ID] = true
		md := ev.Payment.Metadata
		pi, err := b.env.Store.TestPayIntent(ctxT(t), ev.Payment.ID)
		if err != nil {
			t.Fatal(err)
		}
		at := out[md[payment.MetaSubscription]]
		if at == nil {
			at = &paidAt{}
			out[md[payment.MetaSubscription]] = at
		}
		switch md[payment.MetaFor] {
		case payment.ForPeriod:
			at.periods += int(pi.Amount.Amount - pi.Refunded.Amount)
			at.periodCount++
		case payment.ForChange:
			at.changes += pi.Amount.Amount - pi.Refunded.Amount
			if pi.Refunded.Amount > 0 {
				at.givenBack++
			}
		}
	}
	return out
}

// A swap now racing the payments job on the payment day (and racing other
// tabs of the same customer): the period is paid once at its price, the
// swap now is credited from that period's receipt once, and whatever the
// provider took for swaps that lost their write was given back: the
// provider's ledger, net, is what the receipts say.
func TestSwapNowRacingThePaymentsJob(t *testing.T) {
	t.Parallel()
	b := newSubBench(t, "2026-03-15")
	ctx := ctxT(t)
	c := b.customer(t)
	n := 8
	subs := b.seedSaved(t, c, n, "2026-03-15", b.savedCard(t, c, payment.CardSucceeds))
	var g errgroup.Group
	var mu sync.Mutex
	swapped := map[string]int{}
	for i, s := range subs {
		for range 3 {
			g.Go(func() error {
				time.Sleep(time.Duration(i) * 100 * time.Millisecond)
				ok, err := swapNowUntilDone(t, b, s, greenTea, 2)
				if ok {
					mu.Lock()
					swapped[s.ID]++
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
	recs, err := b.env.Store.RecentReceipts(ctx, c.ID, 100, "")
	if err != nil {
		t.Fatal(err)
	}
	periods, changes := map[string]store.Receipt{}, map[string]store.Receipt{}
	for _, r := range recs.Items {
		into := periods
		if r.Kind == store.ReceiptChange {
			into = changes
		}
		if _, twice := into[r.SubscriptionID]; twice {
			t.Fatalf("subscription %s has two receipts of kind %q", r.SubscriptionID, r.Kind)
		}
		into[r.SubscriptionID] = r
	}
	ledger := b.ledger(t)
	for _, s := range subs {
		p, ch, at := periods[s.ID], changes[s.ID], ledger[s.ID]
		want := store.QuoteSwapNow(eur(990), eur(2*1450), day("2026-03-15"), day("2026-04-15"), day("2026-03-15"))
		switch {
		case swapped[s.ID] < 1:
			// More than one: tabs that planned on one version at once
			// share the change's key, so its one payment and receipt.
			t.Fatalf("subscription %s was not swapped now", s.ID)
		case at == nil || at.periodCount != 1 || int64(at.periods) != p.Amount.Amount || p.Amount != eur(990):
			t.Fatalf("subscription %s: period receipt %v, provider %+v", s.ID, p.Amount, at)
		case ch.Amount != want.Charge || at.changes != ch.Amount.Amount:
			t.Fatalf("subscription %s: change receipt %v (want %v), provider took %d net", s.ID, ch.Amount, want.Charge, at.changes)
		}
		now, err := b.env.Store.SubscriptionConsistent(ctx, c.ID, s.ID)
		if err != nil || now.ProductID != "tea" || now.Units() != 2 || now.Intent != nil || store.FormatDate(now.NextPaymentDate) != "2026-04-15" {
			t.Fatalf("subscription after the race: %+v, %v", now, err)
		}
	}
	if got := len(b.subscriptionsOf(t, c)); got != n {
		t.Fatalf("%d subscriptions, want %d", got, n)
	}
	back := 0
	for _, at := range ledger {
		back += at.givenBack
	}
	t.Logf("swap charges given back after losing their write: %d", back)
}

// One tab's form sent twice at once (the same version and choice): one
// payment at the provider (its key names the change), one receipt, and
// both answers say the swap is done. A subscription that moved between the
// plan and the record gets its charge given back; a declined card, or a
// bank asking its holder to confirm (until they do), changes nothing.
func TestSwapNowTwiceAtOnceChargesOnce(t *testing.T) {
	t.Parallel()
	b := newSubBench(t, "2026-03-15")
	ctx := ctxT(t)
	c := b.customer(t)
	subs := b.seedSaved(t, c, 2, "2026-03-15", b.savedCard(t, c, payment.CardSucceeds))
	if _, err := b.runner("r").Run(ctx, jobs.JobPayments, day("2026-03-15"), jobs.TriggerCommandLine); err != nil {
		t.Fatal(err)
	}
	sub, err := b.env.Store.SubscriptionConsistent(ctx, c.ID, subs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := b.env.Store.PlanSwapNow(ctx, c.ID, sub.ID, sub.Version, greenTea, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var g errgroup.Group
	for range 4 {
		g.Go(func() error {
			_, err := b.sp.ChargeSwapNow(ctx, plan)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatalf("a double submit: %v", err)
	}
	if at := b.ledger(t)[sub.ID]; at == nil || at.changes != plan.Quote.Charge.Amount {
		t.Fatalf("the provider took %+v for the swap, want %v once", at, plan.Quote.Charge)
	}

	// The subscription moved between the plan and the record (another
	// tab changed its day): the charge is given back, nothing written.
	other, err := b.env.Store.SubscriptionConsistent(ctx, c.ID, subs[1].ID)
	if err != nil {
		t.Fatal(err)
	}
	plan, err = b.env.Store.PlanSwapNow(ctx, c.ID, other.ID, other.Version, greenTea, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if other, err = b.env.Store.ChangeSubscription(ctx, c.ID, other.ID, other.Version, store.ChangeDay(20)); err != nil {
		t.Fatal(err)
	}
	var stale *store.StaleError
	if _, err := b.sp.ChargeSwapNow(ctx, plan); !errors.As(err, &stale) {
		t.Fatalf("a swap now over a moved subscription: %v", err)
	}
	if at := b.ledger(t)[other.ID]; at == nil || at.changes != 0 || at.givenBack != 1 {
		t.Fatalf("the provider's ledger after a lost swap now: %+v, want its charge given back", at)
	}
	if now, err := b.env.Store.SubscriptionConsistent(ctx, c.ID, other.ID); err != nil || now.Version != other.Version || now.ProductID != "beans" {
		t.Fatalf("a lost swap now wrote: %+v, %v", now, err)
	}

	// A declined card: nothing written, the bank's word answered.
	other, err = b.env.Store.ChangeSubscription(ctx, c.ID, other.ID, other.Version, store.ChangeCard(b.savedCard(t, c, payment.CardInsufficientFunds)))
	if err != nil {
		t.Fatal(err)
	}
	plan, err = b.env.Store.PlanSwapNow(ctx, c.ID, other.ID, other.Version, greenTea, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.sp.ChargeSwapNow(ctx, plan); !errors.Is(err, payment.ErrInsufficientFunds) {
		t.Fatalf("a declined swap now: %v", err)
	}
	if now, err := b.env.Store.SubscriptionConsistent(ctx, c.ID, other.ID); err != nil || now.Version != other.Version || now.ProductID != "beans" {
		t.Fatalf("a declined swap now wrote: %+v, %v", now, err)
	}

	// A bank that asks its holder to confirm: the customer is sent to its
	// page; until they answer nothing is taken and nothing written.
	other, err = b.env.Store.ChangeSubscription(ctx, c.ID, other.ID, other.Version, store.ChangeCard(b.savedCard(t, c, payment.CardAuthenticationRequired)))
	if err != nil {
		t.Fatal(err)
	}
	plan, err = b.env.Store.PlanSwapNow(ctx, c.ID, other.ID, other.Version, greenTea, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var bank *jobs.ConfirmAtBank
	if _, err := b.sp.ChargeSwapNow(ctx, plan); !errors.As(err, &bank) {
		t.Fatalf("a swap now the bank asks about: %v", err)
	}
	if now, err := b.env.Store.SubscriptionConsistent(ctx, c.ID, other.ID); err != nil || now.Version != other.Version || now.ProductID != "beans" {
		t.Fatalf("a swap now the bank asked about wrote: %+v, %v", now, err)
	}
	if at := b.ledger(t)[other.ID]; at != nil && at.changes != 0 {
		t.Fatalf("the provider took %d for swaps that were refused", at.changes)
	}
}
