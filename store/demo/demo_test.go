package demo_test

import (
	"context"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"shop/store"
	"shop/store/demo"
	"shop/store/rules"
	"shop/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// A demo loaded 40 days ago and seeded again: what fell due while nobody
// ran the jobs is due today, as on the day it was loaded; nothing else moves.
func TestSeedAgainBringsTheDemoUpToToday(t *testing.T) {
	ctx := context.Background()
	loadedOn := time.Now().AddDate(0, 0, -40)
	env := storetest.New(t, store.WithClock(func() time.Time { return loadedOn }))
	if _, err := demo.Load(ctx, env.Store, bcrypt.MinCost); err != nil {
		t.Fatal(err)
	}
	later := store.New(env.Client, env.Table)
	if loaded, err := demo.Load(ctx, later, bcrypt.MinCost); err != nil || loaded {
		t.Fatalf("second load: loaded %v, %v", loaded, err)
	}
	moved, err := demo.Refresh(ctx, later)
	if err != nil || moved == 0 {
		t.Fatalf("refresh moved %d, %v", moved, err)
	}
	today := later.Today()
	due, err := later.PaymentsDue(ctx, today, 100, "")
	if err != nil {
		t.Fatal(err)
	}
	stale := 0
	for _, s := range due.Items {
		d := s.NextPaymentDate
		if s.Status == store.SubscriptionPastDue {
			d = s.RetryDate
		}
		if d.Before(today.AddDate(0, 0, -1)) {
			stale++
		}
	}
	if len(due.Items) == 0 || stale != 0 {
		t.Fatalf("%d due today after the refresh, %d still dated before it", len(due.Items), stale)
	}
	if again, err := demo.Refresh(ctx, later); err != nil || again != 0 {
		t.Fatalf("a second refresh moved %d (%v)", again, err)
	}
}

// Ada's quarterly beans were taken out twelve days before their payment
// day: their first receipt is of those days, prorated by FirstPeriod, and
// whole periods follow from the day it ends on.
func TestDemoQuarterlySubscriptionBeganWithItsFirstDaysProrated(t *testing.T) {
	ctx := context.Background()
	env := storetest.New(t)
	if _, err := demo.Load(ctx, env.Store, bcrypt.MinCost); err != nil {
		t.Fatal(err)
	}
	cred, err := env.Store.CredentialsByEmail(ctx, demo.CustomerEmail)
	if err != nil {
		t.Fatal(err)
	}
	subs, err := env.Store.Subscriptions(ctx, cred.CustomerID)
	if err != nil {
		t.Fatal(err)
	}
	var quarterly store.Subscription
	for _, s := range subs {
		if s.PeriodMonths == 3 {
			quarterly = s
		}
	}
	receipts, err := env.Store.RecentReceipts(ctx, cred.CustomerID, 100, "")
	if err != nil {
		t.Fatal(err)
	}
	var its []store.Receipt // oldest first
	for _, r := range receipts.Items {
		if r.SubscriptionID == quarterly.ID {
			its = append([]store.Receipt{r}, its...)
		}
	}
	if len(its) < 2 {
		t.Fatalf("the quarterly subscription has %d receipts", len(its))
	}
	first := its[0]
	want := rules.FirstPeriod(first.PeriodStart, quarterly.PaymentDay, 3, quarterly.Amount())
	if first.Kind != store.ReceiptFirstDays || first.Amount != want.Charge || !first.PeriodEnd.Equal(want.Next) || want.Days != 12 || first.ChargeID == "" {
		t.Fatalf("first receipt %+v, want %s", first, want.Charge)
	}
	for i, r := range its[1:] {
		if r.Kind != store.ReceiptWholePeriod || r.Amount != quarterly.Amount() || !r.PeriodStart.Equal(its[i].PeriodEnd) {
			t.Fatalf("receipt %d: %+v after %+v", i+1, r, its[i])
		}
	}
}
