package dropgate

import (
	"context"
	"log/slog"
	"time"

	"shop/store"
)

// What the gate remembers of drops, read back (Count, Stats), and how it
// stays fresh (Refresh, Run, Forget).

// Count is a drop's state for the live count: from memory, at most a
// refresh old (plus this replica's own claims since). The first ask of a
// drop this replica has not seen reads it once.
func (g *Gate) Count(ctx context.Context, id string) (store.Drop, error) {
	st, err := g.state(ctx, id)
	if err != nil {
		return store.Drop{}, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	d := st.drop
	d.Claimed = min(d.Quantity, d.Claimed+st.claimed)
	if st.soldOut {
		d.Claimed = d.Quantity
	}
	return d, nil
}

// Prime takes drops read elsewhere (the page of /drops that lists them) as
// the gate's first read of each one it does not know yet, so that a list
// costs no read per drop. A drop with counters read from a list lacks its
// count and is left to its own first read. A list a second old is safe to
// learn from: what it says sold out may have places again (released
// tickets), which the next refresh learns; an older read otherwise lets
// through what DynamoDB then refuses.
func (g *Gate) Prime(drops ...store.Drop) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	for _, d := range drops {
		_, known := g.drops[d.ID]
		_, reading := g.loading[d.ID]
		if known || reading || !d.Counted() {
			continue
		}
		st := newDropState(d, now)
		g.drops[d.ID] = st // a visitor's page: nothing noticed, no write
	}
}

// Stats is what this replica saw of a drop's claims.
type Stats struct {
	Claims          int
	ClaimsPerSecond float64 // over the last ten seconds
	Rejected        map[string]int
}

// Stats reports this replica's claims of a drop (zero if it saw none).
func (g *Gate) Stats(id string) Stats {
	g.mu.Lock()
	defer g.mu.Unlock()
	st, ok := g.drops[id]
	if !ok {
		return Stats{Rejected: map[string]int{}}
	}
	out := Stats{Claims: st.claims, Rejected: map[string]int{}}
	for k, v := range st.rejected {
		out.Rejected[k] = v
	}
	cut := g.now().Add(-10 * time.Second)
	n := 0
	for _, t := range st.recent {
		if !t.Before(cut) {
			n++
		}
	}
	out.ClaimsPerSecond = float64(n) / 10
	return out
}

// Released tells the gate a ticket of a drop (of counter n, for a drop
// with counters) was given back here: its place is no longer sold out on
// this replica at once; the others learn it at their next refresh.
func (g *Gate) Released(id string, n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	st, ok := g.drops[id]
	if !ok {
		return
	}
	st.soldOut = false
	st.holders = nil
	delete(st.full, n)
	if st.claimed > 0 {
		st.claimed--
	} else if st.drop.Claimed > 0 {
		st.drop.Claimed--
	}
	g.pass(st) // a place for a claim waiting
}

// Forget drops what the gate knows of a drop (staff changed it here: the
// next ask reads it again).
func (g *Gate) Forget(id string) {
	g.mu.Lock()
	if st, ok := g.drops[id]; ok {
		g.grantAll(st) // DynamoDB answers the claims waiting
		delete(g.drops, id)
	}
	g.mu.Unlock()
}

// Refresh reads every drop asked about in the last minute once, so that
// what other replicas did is known here; drops not asked about are
// forgotten.
func (g *Gate) Refresh(ctx context.Context) {
	g.mu.Lock()
	now := g.now()
	var ids []string
	for id, st := range g.drops {
		if now.Sub(st.usedAt) > time.Minute {
			delete(g.drops, id)
			continue
		}
		ids = append(ids, id)
	}
	g.mu.Unlock()
	for _, id := range ids {
		d, err := g.store.Drop(ctx, id)
		if err != nil {
			if ctx.Err() == nil {
				slog.WarnContext(ctx, "refresh drop", "drop", id, "err", err)
			}
			continue
		}
		g.mu.Lock()
		if st, ok := g.drops[id]; ok {
			st.readAt = now
			st.learn(d)
			g.observe(ctx, st)
			g.pass(st)
		}
		g.mu.Unlock()
	}
}

// Run refreshes every interval until ctx ends.
func (g *Gate) Run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			g.Refresh(ctx)
		}
	}
}
