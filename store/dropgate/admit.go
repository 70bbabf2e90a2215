package dropgate

import (
	"context"
	"slices"
	"time"

	"shop/store"
)

// A drop's places. A replica lets at most as many claims of a drop into
// DynamoDB at once as it believes tickets are left (at least one), first
// come, first served: near the sell-out a claim that cannot win waits in
// memory for a place (a claim in DynamoDB that failed) or for the
// sell-out, which answers it at once, instead of queueing a transaction
// behind the ones that can win. The other replicas' tickets are learned at
// each refresh, so together they may let in what one refresh misses;
// DynamoDB's conditions stay the judge. Early in a burst the places are
// bounded by what the drop's items take at once (PerItem each), so that
// claims queue here, in order, rather than conflict in DynamoDB.

// maxWait bounds a claim's wait for a place; then the drop is busy (the
// API's 503 with Retry-After).
const maxWait = 10 * time.Second

// waiter is a claim waiting for a place: ready closes when it got one
// (granted) or when it should look again (the drop sold out, say).
type waiter struct {
	ready   chan struct{}
	granted bool
}

// places is how many of the drop's claims may be in DynamoDB at once:
// what is left, and no more than perItem on each of its counting items
// (a transaction on an item another one is writing is cancelled, so more
// at once only queue or conflict there). Called with g.mu held.
func (st *dropState) places(perItem int) int {
	items := 1
	if len(st.drop.Counters) > 0 {
		items = 0
		for _, c := range st.drop.Counters {
			if !st.full[c.N] {
				items++
			}
		}
	}
	return max(1, min(st.drop.Quantity-st.drop.Claimed-st.claimed, perItem*max(1, items)))
}

// enter waits for a place for a claim of st's drop, and returns how long
// it waited; an error when memory refuses the claim meanwhile, ctx ends,
// or it waited maxWait (store.ErrClaimContended). Each nil return is
// matched by one leave.
func (g *Gate) enter(ctx context.Context, st *dropState) (time.Duration, error) {
	g.mu.Lock()
	if st.flying < st.places(g.PerItem) && len(st.queue) == 0 {
		st.flying++
		g.mu.Unlock()
		return 0, nil
	}
	began := time.Now()
	timeout := time.NewTimer(g.MaxWait)
	defer timeout.Stop()
	for {
		w := &waiter{ready: make(chan struct{})}
		st.queue = append(st.queue, w)
		g.mu.Unlock()
		var err error
		select {
		case <-w.ready:
		case <-ctx.Done():
			err = ctx.Err()
		case <-timeout.C:
			err = store.ErrClaimContended
		}
		g.mu.Lock()
		if err != nil {
			if w.granted { // granted as it gave up: pass the place on
				st.flying--
				g.pass(st)
			} else if i := slices.Index(st.queue, w); i >= 0 {
				st.queue = slices.Delete(st.queue, i, i+1)
			}
			g.mu.Unlock()
			return time.Since(began), err
		}
		if w.granted {
			g.mu.Unlock()
			return time.Since(began), nil
		}
		if why := g.refusal(st); why != nil {
			g.mu.Unlock()
			return time.Since(began), why
		}
		// Woken to look again, and the refusal is gone (a refresh saw a
		// ticket released): back in the queue.
	}
}

// leave gives back a claim's place. Called with g.mu held.
func (g *Gate) leave(st *dropState) {
	st.flying--
	g.pass(st)
}

// pass hands places to the claims waiting, in order, while there are any;
// when memory refuses claims now (the drop sold out or closed), it wakes
// every waiting claim to say so. Called with g.mu held.
func (g *Gate) pass(st *dropState) {
	for len(st.queue) > 0 {
		refused := g.refusal(st) != nil
		if !refused && st.flying >= st.places(g.PerItem) {
			return
		}
		w := st.queue[0]
		st.queue = st.queue[1:]
		if !refused {
			st.flying++
			w.granted = true
		}
		close(w.ready)
	}
}

// grantAll lets every waiting claim into DynamoDB: what the gate knew of
// the drop is forgotten, so DynamoDB says. Called with g.mu held.
func (g *Gate) grantAll(st *dropState) {
	for _, w := range st.queue {
		st.flying++
		w.granted = true
		close(w.ready)
	}
	st.queue = nil
}
