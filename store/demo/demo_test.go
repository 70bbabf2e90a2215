package demo_test

import (
	"context"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"shop/store"
	"shop/store/demo"
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
