package dropgate

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"shop/store"
)

// Who holds a sold-out drop's tickets. Once a drop sold out, a claim can
// only be a holder's repeat (answered with its ticket) or a refusal; the
// gate reads every ticket of the drop once (a consistent Query) and then
// refuses the others from memory, so that the burst's tail costs no
// request. A holder's repeat is still answered from its ticket's read (a
// ticket released on another replica is known here only at the next
// refresh). The read is dropped when the drop's Releases moves or a
// refresh shows places again.

// maxHolders bounds the tickets a replica keeps of one drop; a bigger
// drop's refusals each read the ticket, as before.
const maxHolders = 50_000

// known refines a refusal by what the gate knows of the client: a sold-out
// drop's client that holds no ticket is a store.NotHeldError. Called with
// g.mu held.
func (g *Gate) known(ctx context.Context, st *dropState, client string, why error) error {
	if !errors.Is(why, store.ErrSoldOut) {
		return why
	}
	if st.holders == nil {
		g.readHolders(ctx, st)
		return why
	}
	if _, held := st.holders[client]; held {
		return why
	}
	return &store.NotHeldError{Err: why}
}

// holdersWait bounds how long a refusal waits for the holders' read under
// way before it reads its own ticket instead.
const holdersWait = time.Second

// pending is the holders' read a refusal known as why should wait for,
// nil when none: it is sold out, the client is not known to hold nothing,
// and the read is under way. Called with g.mu held, after known.
func pending(st *dropState, why error) chan struct{} {
	var notHeld *store.NotHeldError
	if !errors.Is(why, store.ErrSoldOut) || errors.As(why, &notHeld) {
		return nil
	}
	return st.holdersRead
}

// settle waits, with g.mu released, for the holders' read a refusal is
// pending on (see pending), then refines the refusal by it: at the
// sell-out the claims come fastest and DynamoDB is busiest, and a ticket's
// read each would queue behind the holders' read anyway.
func (g *Gate) settle(ctx context.Context, st *dropState, client string, why error, read chan struct{}) error {
	if read == nil {
		return why
	}
	wait := time.NewTimer(holdersWait)
	defer wait.Stop()
	select {
	case <-read:
	case <-wait.C:
		return why
	case <-ctx.Done():
		return why
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.known(ctx, st, client, why)
}

// readHolders reads, once at a time, who holds the tickets of st's drop,
// in a goroutine of its own; st.holdersRead is closed when it is done.
// Called with g.mu held.
func (g *Gate) readHolders(ctx context.Context, st *dropState) {
	if st.holdersRead != nil || st.drop.Quantity > maxHolders {
		return
	}
	read := make(chan struct{})
	st.holdersRead = read
	id := st.drop.ID
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), noticeTimeout)
	go func() {
		defer close(read)
		defer cancel()
		d, err := g.store.DropConsistent(ctx, id)
		var holders map[string]store.Ticket
		if err == nil {
			holders, err = g.store.DropHolders(ctx, id, maxHolders)
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		st.holdersRead = nil
		switch {
		case err != nil:
			slog.WarnContext(ctx, "read the holders of a sold-out drop", "drop", id, "err", err)
		case d.Claimed >= d.Quantity && st.soldOut:
			st.holders, st.holdersReleases = holders, d.Releases
		}
	}()
}

// forgetHolders drops the holders read once d shows they may have changed.
// Called with g.mu held.
func (st *dropState) forgetHolders(d store.Drop) {
	if st.holders != nil && (d.Releases != st.holdersReleases || d.Claimed < d.Quantity) {
		st.holders = nil
	}
}
