package store_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"shop/store"
	"shop/store/storetest"
)

func newDrop(t *testing.T, st *store.Store, quantity int, opens, closes time.Time) store.Drop {
	t.Helper()
	d, err := st.CreateDrop(ctxT(t), store.NewDrop{Title: "Midsummer roast", Quantity: quantity, Opens: opens, Closes: closes, Published: true})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Each refusal says why, from the drop's old image in the cancelled
// transaction.
func TestClaimOutcomes(t *testing.T) {
	t.Parallel()
	clock := storetest.NewClock(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC), time.Millisecond)
	env := storetest.New(t, store.WithClock(clock.Now))
	ctx := ctxT(t)
	now := clock.Now()
	d := newDrop(t, env.Store, 2, now.Add(time.Hour), now.Add(2*time.Hour))
	claim := func(client string) error {
		_, err := env.Store.Claim(ctx, store.ClaimRequest{DropID: d.ID, Client: client, CustomerID: client}, false)
		return err
	}
	if err := claim("ada"); !errors.Is(err, store.ErrDropNotOpen) {
		t.Fatalf("before opening: %v", err)
	}
	clock.Set(now.Add(time.Hour))
	env.Once(t, "a claim", func() {
		if err := claim("ada"); err != nil {
			t.Errorf("first claim: %v", err)
		}
	})
	if err := claim("ada"); !errors.Is(err, store.ErrAlreadyClaimed) {
		t.Fatalf("second claim of one customer: %v", err)
	}
	if err := claim("bo"); err != nil {
		t.Fatal(err)
	}
	if err := claim("cy"); !errors.Is(err, store.ErrSoldOut) {
		t.Fatalf("third claim of two: %v", err)
	}
	clock.Set(now.Add(2 * time.Hour))
	if err := claim("dee"); !errors.Is(err, store.ErrDropClosed) {
		t.Fatalf("after closing: %v", err)
	}
	other := newDrop(t, env.Store, 5, clock.Now(), clock.Now().Add(time.Hour))
	if err := env.Store.SetDropStatus(ctx, other.ID, store.DropCancelled); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Store.Claim(ctx, store.ClaimRequest{DropID: other.ID, Client: "ada"}, false); !errors.Is(err, store.ErrDropCancelled) {
		t.Fatalf("a cancelled drop: %v", err)
	}
	if _, err := env.Store.Claim(ctx, store.ClaimRequest{DropID: store.NewID(), Client: "ada"}, false); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an unknown drop: %v", err)
	}
	got, err := env.Store.DropConsistent(ctx, d.ID)
	if err != nil || got.Claimed != 2 {
		t.Fatalf("drop after: %+v, %v", got, err)
	}
	page, err := env.Store.CustomerTickets(ctx, "ada", 10, "")
	if err != nil || len(page.Items) != 1 || page.Items[0].DropID != d.ID {
		t.Fatalf("ada's tickets: %+v, %v", page, err)
	}
}

// A big drop's quantity is split over counters; under a race of more
// clients than tickets, no more tickets exist than the quantity, and each
// counter holds no more than its share. -short races a quarter of it.
//
// Not parallel, and over a patient client: beside other tests' writes,
// DynamoDB Local times out the lock waits of a race like this one.
func TestBigDropNeverOversells(t *testing.T) {
	quantity, threshold, clients := 120, 50, 300
	if testing.Short() {
		quantity, threshold, clients = 30, 12, 75
	}
	env := storetest.New(t, store.WithDropCounterThreshold(threshold))
	env.Store = env.Patient(store.WithDropCounterThreshold(threshold))
	ctx := ctxT(t)
	now := time.Now()
	d := newDrop(t, env.Store, quantity, now.Add(-time.Second), now.Add(time.Hour))
	if len(d.Counters) < 2 {
		t.Fatalf("a drop of %d over a threshold of %d has %d counters", quantity, threshold, len(d.Counters))
	}
	var mu sync.Mutex
	won := 0
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := fmt.Sprintf("c%03d", i)
			// Try each counter until one takes the claim or all are full.
			for _, c := range d.Counters {
				_, err := env.Store.Claim(ctx, store.ClaimRequest{DropID: d.ID, Client: client, Counter: c.N}, true)
				switch {
				case err == nil:
					mu.Lock()
					won++
					mu.Unlock()
					return
				case errors.Is(err, store.ErrCounterFull), errors.Is(err, store.ErrClaimContended):
					continue
				default:
					t.Errorf("claim: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	got, err := env.Store.DropConsistent(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Claimed > quantity || won != got.Claimed {
		t.Fatalf("claimed %d (won %d), quantity %d", got.Claimed, won, quantity)
	}
	for _, c := range got.Counters {
		if c.Claimed > c.Quantity {
			t.Fatalf("counter %d holds %d of %d", c.N, c.Claimed, c.Quantity)
		}
	}
	if n := env.CountEntities(t, "ticket"); n != got.Claimed {
		t.Fatalf("%d tickets for %d claimed", n, got.Claimed)
	}
}

func TestCreateDropRefusesBadInput(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	now := time.Now()
	for _, tc := range []struct {
		d     store.NewDrop
		field string
	}{
		{store.NewDrop{Title: "x", Quantity: 0, Opens: now, Closes: now.Add(time.Hour)}, "quantity"},
		{store.NewDrop{Title: "x", Quantity: -3, Opens: now, Closes: now.Add(time.Hour)}, "quantity"},
		{store.NewDrop{Title: "x", Quantity: 1_000_001, Opens: now, Closes: now.Add(time.Hour)}, "quantity"},
		{store.NewDrop{Title: "x", Quantity: 5, Opens: now, Closes: now.Add(-time.Hour)}, "closes"},
		{store.NewDrop{Title: "x", Quantity: 5, Opens: now.Add(-2 * time.Minute), Closes: now.Add(time.Hour)}, "opens"},
		{store.NewDrop{Title: " ", Quantity: 5, Opens: now, Closes: now.Add(time.Hour)}, "title"},
	} {
		_, err := env.Store.CreateDrop(ctxT(t), tc.d)
		var de *store.DropError
		if !errors.As(err, &de) || de.Field != tc.field {
			t.Errorf("%+v: %v, want an error on %s", tc.d, err, tc.field)
		}
	}
	if n := env.CountEntities(t, "drop"); n != 0 {
		t.Fatalf("%d drops written", n)
	}
}
