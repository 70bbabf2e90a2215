package dropgate_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"shop/store"
	"shop/store/dropgate"
	"shop/store/storetest"
)

// watched is the real store with its claim transactions watched: how many
// are under way at once, at most, and how many were made. Optionally each
// claim waits for hold to close before it goes to DynamoDB.
type watched struct {
	*store.Store
	now, most, calls atomic.Int64
	hold             chan struct{}
}

func (w *watched) Claim(ctx context.Context, req store.ClaimRequest, hasCounters bool) (store.Ticket, error) {
	n := w.now.Add(1)
	defer w.now.Add(-1)
	for m := w.most.Load(); n > m && !w.most.CompareAndSwap(m, n); m = w.most.Load() {
	}
	w.calls.Add(1)
	if w.hold != nil {
		select {
		case <-w.hold:
		case <-ctx.Done():
			return store.Ticket{}, ctx.Err()
		}
	}
	return w.Store.Claim(ctx, req, hasCounters)
}

func openDrop(t *testing.T, st *store.Store, quantity int) store.Drop {
	t.Helper()
	now := time.Now()
	d, err := st.CreateDrop(ctxT(t, time.Minute), store.NewDrop{Title: "Places", Quantity: quantity, Opens: now, Closes: now.Add(time.Hour), Published: true})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// claimAll races one claim of each of n clients through g and counts the
// answers: tickets, and refusals by reason.
func claimAll(t *testing.T, g *dropgate.Gate, dropID string, n int) (won int, refused map[string]int) {
	t.Helper()
	var mu sync.Mutex
	refused = map[string]int{}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, err := g.Claim(ctxT(t, time.Minute), store.ClaimRequest{DropID: dropID, Client: fmt.Sprintf("c%03d", i)})
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				won++
				return
			}
			refused[store.ClaimReason(err)]++
		})
	}
	wg.Wait()
	return won, refused
}

// A claim goes to DynamoDB only while a ticket may be left for it: 200
// clients on a drop of 10 make 10 transactions and one more that learns
// the sell-out, never more than what is left at once, and the other 189
// are told it sold out from memory, however many were waiting.
func TestClaimsInDynamoDBNoMoreThanLeft(t *testing.T) {
	env := storetest.New(t)
	w := &watched{Store: env.Patient()}
	d := openDrop(t, w.Store, 10)
	g := dropgate.New(w, nil)
	g.PerItem = 100 // what is left bounds, not the item
	won, refused := claimAll(t, g, d.ID, 200)
	if won != 10 || refused["sold_out"] != 190 {
		t.Errorf("%d tickets, refused %v; want 10 and 190 sold_out", won, refused)
	}
	if w.calls.Load() != 11 || w.most.Load() > 10 {
		t.Errorf("%d claim transactions, %d at once; want 11, at most 10", w.calls.Load(), w.most.Load())
	}
}

// Early in a burst the drop's item bounds the claims in DynamoDB at once
// (PerItem), and the ones waiting are served in order until it sells out.
func TestClaimsInDynamoDBNoMoreThanTheItemTakes(t *testing.T) {
	env := storetest.New(t)
	w := &watched{Store: env.Patient()}
	d := openDrop(t, w.Store, 40)
	g := dropgate.New(w, nil)
	g.PerItem = 3
	won, refused := claimAll(t, g, d.ID, 120)
	if won != 40 || refused["sold_out"] != 80 {
		t.Errorf("%d tickets, refused %v; want 40 and 80 sold_out", won, refused)
	}
	if w.most.Load() > 3 || w.calls.Load() != 41 {
		t.Errorf("%d claim transactions, %d at once; want 41, at most 3", w.calls.Load(), w.most.Load())
	}
}

// A claim that gives up waiting (its request ended) leaves its place to
// the next: nothing is lost, nothing is let in twice.
func TestAClaimThatGivesUpWaitingLeavesNoPlaceBehind(t *testing.T) {
	env := storetest.New(t)
	w := &watched{Store: env.Patient(), hold: make(chan struct{})}
	d := openDrop(t, w.Store, 5)
	g := dropgate.New(w, nil)
	g.PerItem = 1

	first := make(chan error, 1)
	go func() {
		_, err := g.Claim(ctxT(t, time.Minute), store.ClaimRequest{DropID: d.ID, Client: "first"})
		first <- err
	}()
	for w.now.Load() != 1 { // the first is in DynamoDB, held
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithCancel(ctxT(t, time.Minute))
	waiting := make(chan error, 1)
	go func() {
		_, timing, err := g.ClaimTimed(ctx, store.ClaimRequest{DropID: d.ID, Client: "impatient"})
		if timing.Transactions != 0 {
			err = fmt.Errorf("%d transactions of a claim that waited: %v", timing.Transactions, err)
		}
		waiting <- err
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	if err := <-waiting; !errors.Is(err, context.Canceled) {
		t.Errorf("the impatient claim: %v, want context.Canceled", err)
	}
	close(w.hold)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	_, timing, err := g.ClaimTimed(ctxT(t, time.Minute), store.ClaimRequest{DropID: d.ID, Client: "next"})
	if err != nil || timing.Waited != 0 || timing.Transactions != 1 {
		t.Errorf("the next claim: %v, %+v; want a ticket at once", err, timing)
	}
	if w.calls.Load() != 2 || w.most.Load() != 1 {
		t.Errorf("%d claim transactions, %d at once; want 2, one at a time", w.calls.Load(), w.most.Load())
	}
}

// Once a drop sold out, the gate reads who holds its tickets once (its
// refusals meanwhile wait for that read) and tells the others from memory
// that they hold none (store.NotHeldError: nobody need read their ticket);
// a holder's repeat is left to read its ticket, which a release on another
// replica may have changed since. A ticket given back (Releases moves)
// makes it forget them.
func TestSoldOutDropKnowsItsHolders(t *testing.T) {
	env := storetest.New(t)
	st := env.Patient()
	d := openDrop(t, st, 3)
	g := dropgate.New(st, nil)
	for _, c := range []string{"a", "b", "c"} {
		if _, err := g.Claim(ctxT(t, time.Minute), store.ClaimRequest{DropID: d.ID, Client: c}); err != nil {
			t.Fatal(err)
		}
	}
	claim := func(client string) error {
		_, err := g.Claim(ctxT(t, time.Minute), store.ClaimRequest{DropID: d.ID, Client: client})
		return err
	}
	var notHeld *store.NotHeldError
	// The first stranger learns the sell-out from DynamoDB, which starts the
	// holders' read; the next refusal waits for that read rather than leave
	// its handler to read a ticket.
	if err := claim("x"); !errors.Is(err, store.ErrSoldOut) {
		t.Fatalf("a stranger's claim on the sold-out drop: %v", err)
	}
	if err := claim("x"); !errors.As(err, &notHeld) {
		t.Fatalf("the stranger again, while the holders are read: %v, want held by nobody", err)
	}
	env.Counter.Reset()
	if err := claim("y"); !errors.As(err, &notHeld) || !errors.Is(err, store.ErrSoldOut) {
		t.Errorf("another stranger: %v, want sold out and held by nobody", err)
	}
	if err := claim("a"); errors.As(err, &notHeld) || !errors.Is(err, store.ErrSoldOut) {
		t.Errorf("a holder's repeat: %v, want sold out, left to read the ticket", err)
	}
	if n := env.Counter.Total(); n != 0 {
		t.Errorf("claims on a sold-out drop made %d DynamoDB requests %v", n, env.Counter.Ops())
	}

	if _, err := st.ReleaseTicket(ctxT(t, time.Minute), store.ReleaseRequest{DropID: d.ID, Client: "b"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Claim(ctxT(t, time.Minute), store.ClaimRequest{DropID: d.ID, Client: "x"}, false); err != nil { // on another replica
		t.Fatal(err)
	}
	g.Refresh(ctxT(t, time.Minute)) // sold out again, but its Releases moved
	if err := claim("x"); errors.As(err, &notHeld) {
		t.Errorf("x holds a ticket now, and was told %v", err)
	}
}
