package dropgate_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"shop/store"
	"shop/store/dropgate"
	"shop/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// raceClaims sends 4 claims of each of 500 customers at once through one
// gate on a drop of 100, and checks the outcome in the table: exactly 100
// tickets, each to a different customer, the count at 100, and every other
// claim told why. -short races a fifth of it.
func raceClaims(t *testing.T, opts ...store.Option) {
	const each = 4
	quantity, customers := 100, 500
	if testing.Short() {
		quantity, customers = 20, 100
	}
	env := storetest.New(t, opts...)
	st := env.Patient(opts...)
	ctx := ctxT(t, 4*time.Minute)
	now := time.Now()
	d, err := st.CreateDrop(ctx, store.NewDrop{Title: "Race", Quantity: quantity, Opens: now, Closes: now.Add(time.Hour), Published: true})
	if err != nil {
		t.Fatal(err)
	}
	g := dropgate.New(st, nil)
	env.Counter.Reset()

	type result struct {
		customer string
		ticket   store.Ticket
		err      error
	}
	results := make(chan result, customers*each)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range customers {
		id := fmt.Sprintf("c%03d", i)
		for range each {
			wg.Go(func() {
				<-start
				tk, err := g.Claim(ctx, store.ClaimRequest{DropID: d.ID, Client: id, CustomerID: id, DropTitle: d.Title})
				results <- result{id, tk, err}
			})
		}
	}
	began := time.Now()
	close(start)
	wg.Wait()
	close(results)
	took := time.Since(began)

	won := map[string]int{}
	reasons := map[string]int{}
	for r := range results {
		if r.err == nil {
			won[r.customer]++
			if r.ticket.Client != r.customer || r.ticket.Status != store.TicketValid {
				t.Errorf("ticket of %s: %+v", r.customer, r.ticket)
			}
			continue
		}
		reason := store.ClaimReason(r.err)
		if reason == "" {
			t.Errorf("a claim of %s failed without a reason: %v", r.customer, r.err)
		}
		reasons[reason]++
	}
	if len(won) != quantity {
		t.Errorf("%d customers got a ticket, want %d", len(won), quantity)
	}
	for c, n := range won {
		if n != 1 {
			t.Errorf("%s was told %d times it got a ticket", c, n)
		}
	}
	if refused := customers*each - len(won); reasons["sold_out"]+reasons["already_claimed"] != refused {
		t.Errorf("refusals %v, want %d in all, each sold_out or already_claimed", reasons, refused)
	}
	t.Logf("%d claims in %v: %d tickets, refused %v, %d DynamoDB requests %v",
		customers*each, took.Round(time.Millisecond), len(won), reasons, env.Counter.Total(), env.Counter.Ops())

	// The table agrees: the count, and one ticket per winner in claim order.
	stored, err := st.DropConsistent(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Claimed != quantity {
		t.Errorf("the drop counts %d claimed, want %d", stored.Claimed, quantity)
	}
	holders := map[string]bool{}
	cursor := ""
	for {
		page, err := st.DropTickets(ctx, d.ID, 40, cursor)
		if err != nil {
			t.Fatal(err)
		}
		for _, tk := range page.Items {
			if holders[tk.Client] {
				t.Errorf("%s holds two tickets", tk.Client)
			}
			holders[tk.Client] = true
			if won[tk.Client] != 1 {
				t.Errorf("%s holds a ticket it was not told of", tk.Client)
			}
		}
		if page.Next == "" {
			break
		}
		cursor = page.Next
	}
	if n := env.CountEntities(t, "ticket"); len(holders) != quantity || n != quantity {
		t.Errorf("%d holders listed, %d tickets in the table; want %d", len(holders), n, quantity)
	}
	if c, err := g.Count(ctx, d.ID); err != nil || c.Claimed != quantity || c.Left() != 0 {
		t.Errorf("the gate counts %d claimed (%v), want %d", c.Claimed, err, quantity)
	}
	stats := g.Stats(d.ID)
	if stats.Claims != quantity || stats.Rejected["sold_out"]+stats.Rejected["already_claimed"] != customers*each-quantity {
		t.Errorf("stats: %+v", stats)
	}
}

// Not parallel, nor the race below: beside other tests' writes, DynamoDB
// Local times out the lock waits of a race like this one.
func TestRaceOnADropOf100(t *testing.T) { raceClaims(t) }

// The same race on a drop whose quantity is split over counter items.
func TestRaceOnADropWithCounters(t *testing.T) {
	threshold := 30
	if testing.Short() {
		threshold = 6 // the same four counters for a fifth of the quantity
	}
	raceClaims(t, store.WithDropCounterThreshold(threshold))
}

// Claims before the opening and from the closing on are refused, by the
// gate from memory and by DynamoDB's conditions when asked directly; the
// last millisecond before the closing still claims.
func TestClaimsOnlyWithinTheWindow(t *testing.T) {
	t.Parallel()
	clk := storetest.NewClock(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC), 0)
	env := storetest.New(t, store.WithClock(clk.Now))
	ctx := ctxT(t, time.Minute)
	start := clk.Now()
	opens, closes := start.Add(time.Hour), start.Add(2*time.Hour)
	d, err := env.Store.CreateDrop(ctx, store.NewDrop{Title: "Window", Quantity: 10, Opens: opens, Closes: closes, Published: true})
	if err != nil {
		t.Fatal(err)
	}
	g := dropgate.New(env.Store, clk.Now)
	viaGate := func(client string) error {
		_, err := g.Claim(ctx, store.ClaimRequest{DropID: d.ID, Client: client, CustomerID: client, DropTitle: d.Title})
		return err
	}
	direct := func(client string) error {
		_, err := env.Store.Claim(ctx, store.ClaimRequest{DropID: d.ID, Client: client, CustomerID: client, DropTitle: d.Title}, false)
		return err
	}

	clk.Set(opens.Add(-time.Millisecond))
	if err := viaGate("early"); !errors.Is(err, store.ErrDropNotOpen) {
		t.Fatalf("a millisecond before the opening, through the gate: %v", err)
	}
	env.Counter.Reset()
	if err := viaGate("early-2"); !errors.Is(err, store.ErrDropNotOpen) || env.Counter.Total() != 0 {
		t.Fatalf("the gate asked DynamoDB (%d requests) about a drop not open: %v", env.Counter.Total(), err)
	}
	if err := direct("early"); !errors.Is(err, store.ErrDropNotOpen) {
		t.Fatalf("a millisecond before the opening, in DynamoDB: %v", err)
	}

	clk.Set(opens)
	if err := viaGate("first"); err != nil {
		t.Fatalf("at the opening: %v", err)
	}
	clk.Set(closes.Add(-time.Millisecond))
	if err := viaGate("last"); err != nil {
		t.Fatalf("a millisecond before the closing: %v", err)
	}

	clk.Set(closes)
	if err := viaGate("late"); !errors.Is(err, store.ErrDropClosed) {
		t.Fatalf("at the closing, through the gate: %v", err)
	}
	if err := direct("late"); !errors.Is(err, store.ErrDropClosed) {
		t.Fatalf("at the closing, in DynamoDB: %v", err)
	}
	if stored, err := env.Store.DropConsistent(ctx, d.ID); err != nil || stored.Claimed != 2 {
		t.Fatalf("claimed %d (%v), want 2", stored.Claimed, err)
	}
}

// A drop staff close early or cancel on another replica is refused here
// once the refresher has read it; Forget makes the next ask read it at once.
func TestGateLearnsOfAnotherReplicasChange(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	ctx := ctxT(t, time.Minute)
	now := time.Now()
	d, err := env.Store.CreateDrop(ctx, store.NewDrop{Title: "Elsewhere", Quantity: 10, Opens: now, Closes: now.Add(time.Hour), Published: true})
	if err != nil {
		t.Fatal(err)
	}
	g := dropgate.New(env.Store, nil)
	if _, err := g.Claim(ctx, store.ClaimRequest{DropID: d.ID, Client: "a", CustomerID: "a"}); err != nil {
		t.Fatal(err)
	}
	if err := env.Store.SetDropStatus(ctx, d.ID, store.DropCancelled); err != nil {
		t.Fatal(err)
	}
	g.Refresh(ctx)
	env.Counter.Reset()
	if _, err := g.Claim(ctx, store.ClaimRequest{DropID: d.ID, Client: "b", CustomerID: "b"}); !errors.Is(err, store.ErrDropCancelled) || env.Counter.Total() != 0 {
		t.Fatalf("after the refresh: %v with %d requests, want cancelled from memory", err, env.Counter.Total())
	}
	if c, _ := g.Count(ctx, d.ID); c.Status != store.DropCancelled {
		t.Fatalf("count says %s", c.Status)
	}
}

// A drop the gate learns from a list costs no read of its own, and its
// claims go through as after a read; a big drop listed without its counters
// is read on its first ask all the same.
func TestPrimeFromAListReadsNoDrop(t *testing.T) {
	t.Parallel()
	env := storetest.New(t, store.WithDropCounterThreshold(10))
	ctx := ctxT(t, time.Minute)
	now := time.Now()
	small, err := env.Store.CreateDrop(ctx, store.NewDrop{Title: "Small", Quantity: 3, Opens: now, Closes: now.Add(time.Hour), Published: true})
	if err != nil {
		t.Fatal(err)
	}
	big, err := env.Store.CreateDrop(ctx, store.NewDrop{Title: "Big", Quantity: 30, Opens: now, Closes: now.Add(2 * time.Hour), Published: true})
	if err != nil {
		t.Fatal(err)
	}
	listed, err := env.Store.PublishedDrops(ctx, 10, "")
	if err != nil || len(listed.Items) != 2 {
		t.Fatalf("listed %+v, %v", listed.Items, err)
	}
	g := dropgate.New(env.Store, nil)
	g.Prime(listed.Items...)
	env.Costs(t, "the count of a drop learnt from the list", 0, func() {
		if d, err := g.Count(ctx, small.ID); err != nil || d.Left() != 3 {
			t.Errorf("count: %+v, %v", d, err)
		}
	})
	env.Costs(t, "a claim of it", 1, func() {
		if _, err := g.Claim(ctx, store.ClaimRequest{DropID: small.ID, Client: "ada"}); err != nil {
			t.Error(err)
		}
	})
	env.Costs(t, "the first count of a big drop (its counters)", 1, func() {
		if d, err := g.Count(ctx, big.ID); err != nil || len(d.Counters) != 3 {
			t.Errorf("count: %+v, %v", d, err)
		}
	})
	env.Costs(t, "a claim of the big drop, on a counter", 1, func() {
		if _, err := g.Claim(ctx, store.ClaimRequest{DropID: big.ID, Client: "ada"}); err != nil {
			t.Error(err)
		}
	})
}
