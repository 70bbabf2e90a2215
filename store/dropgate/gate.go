// Package dropgate keeps rejected claims of limited drops off DynamoDB. It
// remembers, per replica, what each drop answered: a sold-out, closed or
// cancelled drop is refused from memory; a client's second claim while its
// first is in flight waits for the first's answer; a client claiming too
// often is slowed. It only ever turns away what DynamoDB would refuse: the
// claim's transaction stays the source of truth, and a refresher reads each
// drop every second so that what another replica learned (a sell-out, a
// cancellation, a released ticket) is known here within a second or two.
package dropgate

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"time"

	"shop/store"
)

// Store is what the gate reads and writes.
type Store interface {
	Drop(ctx context.Context, id string) (store.Drop, error)
	// DropConsistent is the first read: a drop just made (through the API,
	// say) must not look unknown.
	DropConsistent(ctx context.Context, id string) (store.Drop, error)
	Claim(ctx context.Context, req store.ClaimRequest, hasCounters bool) (store.Ticket, error)
	DropHolders(ctx context.Context, dropID string, most int) (map[string]store.Ticket, error)
}

// Gate answers claims, asking DynamoDB only when it might say yes.
type Gate struct {
	store Store
	now   func() time.Time
	// PerClient is how many claims one client may make per second on this
	// replica before ErrRateLimited (default 5).
	PerClient int
	// PerItem is how many claims may be in DynamoDB at once per counting
	// item of a drop (its own item, or each counter with places left), on
	// this replica (default 8).
	PerItem int
	// MaxWait bounds a claim's wait for a place; then the drop is busy
	// (store.ErrClaimContended; default maxWait).
	MaxWait time.Duration

	mu       sync.Mutex
	drops    map[string]*dropState
	loading  map[string]*load // first reads of drops under way
	inflight map[string]*call
	clients  map[string]*window
	notice   Notice
}

// load is a first read of a drop that concurrent first asks wait for.
type load struct {
	done chan struct{}
	st   *dropState
	err  error
}

// ErrRateLimited: the client claims more often than PerClient a second.
var ErrRateLimited = errors.New("too many claims from this client; wait a second")

type dropState struct {
	drop     store.Drop
	readAt   time.Time
	usedAt   time.Time    // last asked about: the refresher keeps only drops in use
	soldOut  bool         // DynamoDB said so, or a read showed every ticket claimed
	full     map[int]bool // counters DynamoDB said are full
	claimed  int          // tickets this replica handed out since the last read
	claims   int          // tickets this replica handed out in all
	rejected map[string]int
	recent   []time.Time     // this replica's claims in the last few seconds
	told     map[string]bool // the changes Notice was told of

	flying int       // this replica's claims of the drop in DynamoDB now
	queue  []*waiter // claims waiting for a place, first come first served

	holders         map[string]store.Ticket // of a sold-out drop, read once (nil: not read)
	holdersReleases int                     // the drop's Releases when holders was read
	holdersRead     chan struct{}           // closed when the read under way is done (nil: none)
}

type call struct {
	done   chan struct{}
	ticket store.Ticket
	err    error
}

type window struct {
	start time.Time
	n     int
}

// New returns a gate over st.
func New(st Store, now func() time.Time) *Gate {
	if now == nil {
		now = time.Now
	}
	return &Gate{store: st, now: now, PerClient: 5, PerItem: 8, MaxWait: maxWait, drops: map[string]*dropState{}, loading: map[string]*load{}, inflight: map[string]*call{}, clients: map[string]*window{}}
}

// state returns what the gate knows of a drop, reading it once if it knows
// nothing yet: asks that come while that read is under way wait for it
// rather than read too (a cold replica at a drop's opening would otherwise
// send DynamoDB one read per claim).
func (g *Gate) state(ctx context.Context, id string) (*dropState, error) {
	g.mu.Lock()
	st, ok := g.drops[id]
	if ok {
		st.usedAt = g.now()
		g.mu.Unlock()
		return st, nil
	}
	if l, ok := g.loading[id]; ok {
		g.mu.Unlock()
		select {
		case <-l.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if l.err != nil && (errors.Is(l.err, context.Canceled) || errors.Is(l.err, context.DeadlineExceeded)) {
			return g.state(ctx, id) // the reader gave up, not the store: read again
		}
		return l.st, l.err
	}
	l := &load{done: make(chan struct{})}
	g.loading[id] = l
	g.mu.Unlock()

	d, err := g.store.DropConsistent(ctx, id)

	g.mu.Lock()
	delete(g.loading, id)
	if err == nil {
		st, ok = g.drops[id]
		if !ok {
			st = newDropState(d, g.now())
			g.drops[id] = st
			g.observe(ctx, st)
		}
	}
	l.st, l.err = st, err
	g.mu.Unlock()
	close(l.done)
	return st, err
}

func newDropState(d store.Drop, now time.Time) *dropState {
	st := &dropState{drop: d, readAt: now, usedAt: now, full: map[int]bool{}, rejected: map[string]int{}, told: map[string]bool{}}
	st.learn(d)
	return st
}

// learn takes a fresh read of the drop. A read with places left undoes a
// sell-out (or a full counter) learned before: tickets were released since.
// A read older than a refusal may undo it too; then the next claim asks
// DynamoDB, which refuses it again.
func (st *dropState) learn(d store.Drop) {
	st.forgetHolders(d)
	st.drop, st.claimed = d, 0
	st.soldOut = d.Claimed >= d.Quantity
	for _, c := range d.Counters {
		st.full[c.N] = c.Claimed >= c.Quantity
	}
}

// Allow counts one claim of a client and says whether it is within
// PerClient a second (per replica).
func (g *Gate) Allow(client string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	w, ok := g.clients[client]
	if !ok || now.Sub(w.start) >= time.Second {
		g.clients[client] = &window{start: now, n: 1}
		if len(g.clients) > 100_000 { // forget old windows: they hold nothing after a second
			for c, w := range g.clients {
				if now.Sub(w.start) >= time.Second {
					delete(g.clients, c)
				}
			}
		}
		return true
	}
	w.n++
	return w.n <= g.PerClient
}

// Timing is where a claim's time went, for the answer's Server-Timing.
type Timing struct {
	Waited       time.Duration // waiting for a place (zero: it did not wait)
	InStore      time.Duration // in DynamoDB's claim transactions
	Transactions int           // how many (retries of a contended one included)
}

// Claim claims a ticket of a drop for a client: from memory when the answer
// is surely no, else through DynamoDB. A client's claim while its previous
// one is in flight gets the previous one's answer (a ticket becomes "already
// yours").
func (g *Gate) Claim(ctx context.Context, req store.ClaimRequest) (store.Ticket, error) {
	t, _, err := g.ClaimTimed(ctx, req)
	return t, err
}

// ClaimTimed is Claim saying where the claim's time went.
func (g *Gate) ClaimTimed(ctx context.Context, req store.ClaimRequest) (store.Ticket, Timing, error) {
	st, err := g.state(ctx, req.DropID)
	if err != nil {
		return store.Ticket{}, Timing{}, err
	}
	key := req.DropID + "\x00" + req.Client
	g.mu.Lock()
	if why := g.refusal(st); why != nil {
		st.rejected[store.ClaimReason(why)]++
		g.observe(ctx, st)
		why = g.known(ctx, st, req.Client, why)
		read := pending(st, why)
		g.mu.Unlock()
		return store.Ticket{}, Timing{}, g.settle(ctx, st, req.Client, why, read)
	}
	if c, ok := g.inflight[key]; ok {
		g.mu.Unlock()
		return store.Ticket{}, Timing{}, g.repeat(ctx, st, c)
	}
	c := &call{done: make(chan struct{})}
	g.inflight[key] = c
	g.mu.Unlock()

	var timing Timing
	timing.Waited, c.err = g.enter(ctx, st)
	entered := c.err == nil
	if entered {
		c.ticket, c.err = g.claimIn(ctx, st, req, &timing)
	}

	g.mu.Lock()
	delete(g.inflight, key)
	if c.err == nil {
		g.counted(st)
	} else if reason := store.ClaimReason(c.err); reason != "" {
		st.rejected[reason]++
	}
	var read chan struct{}
	if entered {
		g.leave(st) // after the count: one fewer place left
	} else {
		c.err = g.known(ctx, st, req.Client, c.err)
		read = pending(st, c.err)
	}
	g.mu.Unlock()
	c.err = g.settle(ctx, st, req.Client, c.err, read)
	close(c.done)
	return c.ticket, timing, c.err
}

// repeat is the answer of a client's claim made while its previous one is
// in flight: the previous one's.
func (g *Gate) repeat(ctx context.Context, st *dropState, c *call) error {
	select {
	case <-c.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	err := c.err
	if err == nil { // the first claim's ticket is this client's
		err = &store.HeldError{Ticket: c.ticket}
	}
	// A refusal too: count it, as the stats say why claims were refused.
	if reason := store.ClaimReason(err); reason != "" {
		g.mu.Lock()
		st.rejected[reason]++
		g.mu.Unlock()
	}
	return err
}

// counted takes a ticket this replica handed out into its counts. Its
// last ticket by its count does not sell the drop out here: a claim
// answered after a refresh read it is counted twice, so a transaction
// (one place) learns the sell-out from DynamoDB. Called with g.mu held.
func (g *Gate) counted(st *dropState) {
	st.claimed++
	st.claims++
	now := g.now()
	st.recent = append(st.recent, now)
	if cut := now.Add(-10 * time.Second); len(st.recent) > 0 && st.recent[0].Before(cut) {
		i := 0
		for i < len(st.recent) && st.recent[i].Before(cut) {
			i++
		}
		st.recent = st.recent[i:]
	}
}

// refusal is what memory already knows DynamoDB would answer, or nil.
// Called with g.mu held.
func (g *Gate) refusal(st *dropState) error {
	d := st.drop
	if st.soldOut {
		d.Claimed = d.Quantity
	}
	why := d.Why(g.now())
	if errors.Is(why, store.ErrSoldOut) && !st.soldOut {
		return nil // a read said so, DynamoDB has not: let it say
	}
	return why
}

// claimIn claims in DynamoDB, holding a place: on another counter when one
// is full, again after a moment when the drop's item was contended.
func (g *Gate) claimIn(ctx context.Context, st *dropState, req store.ClaimRequest, timing *Timing) (store.Ticket, error) {
	g.mu.Lock() // the refresher replaces st.drop under the lock
	counters := len(st.drop.Counters) > 0
	g.mu.Unlock()
	for attempt := 0; ; attempt++ {
		if counters {
			n, ok := g.pickCounter(st)
			if !ok {
				g.markSoldOut(ctx, st)
				return store.Ticket{}, store.ErrSoldOut
			}
			req.Counter = n
		}
		began := time.Now()
		t, err := g.store.Claim(ctx, req, counters)
		timing.InStore += time.Since(began)
		timing.Transactions++
		switch {
		case errors.Is(err, store.ErrCounterFull):
			g.mu.Lock()
			st.full[req.Counter] = true
			g.mu.Unlock()
			continue
		case errors.Is(err, store.ErrClaimContended) && attempt < 8:
			select {
			case <-ctx.Done():
				return store.Ticket{}, ctx.Err()
			case <-time.After(time.Duration(5<<min(attempt, 4))*time.Millisecond + rand.N(5*time.Millisecond)):
			}
			continue
		case errors.Is(err, store.ErrSoldOut):
			g.markSoldOut(ctx, st)
		case errors.Is(err, store.ErrDropClosed), errors.Is(err, store.ErrDropCancelled):
			// Learn the new status at the next refresh; until then each claim
			// still asks (rare: a closed drop answers from memory soon).
			g.mu.Lock()
			if errors.Is(err, store.ErrDropCancelled) {
				st.drop.Status = store.DropCancelled
			} else if g.now().Before(st.drop.Closes) {
				st.drop.Status = store.DropClosed
			}
			g.mu.Unlock()
		}
		return t, err
	}
}

func (g *Gate) markSoldOut(ctx context.Context, st *dropState) {
	g.mu.Lock()
	st.soldOut = true
	g.observe(ctx, st)
	if st.holders == nil {
		g.readHolders(ctx, st) // before the refusals it will serve come
	}
	g.pass(st) // the claims waiting for a place are refused at once
	g.mu.Unlock()
}

// pickCounter chooses a counter not known to be full, at random so that
// claims spread over them.
func (g *Gate) pickCounter(st *dropState) (int, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	var open []int
	for _, c := range st.drop.Counters {
		if !st.full[c.N] {
			open = append(open, c.N)
		}
	}
	if len(open) == 0 {
		return 0, false
	}
	return open[rand.N(len(open))], true
}
