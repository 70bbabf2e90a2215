package handlers

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"shop/store"
)

// DropNotices writes the events of an integration's drop that no single
// write makes, drop.sold_out and drop.closed at its deadline, when this
// replica's drop gate first sees them (it is the gate's Notice): one
// conditional put keyed by drop and type, so that of all the replicas
// seeing it at once one writes it. A drop this replica announced (or
// found announced) is remembered, so that the gate reading it again costs
// no second put.
type DropNotices struct {
	Store DropNoticeStore
	// Hooks says which endpoints want an event (the key cache's copy).
	Hooks APIHooks
	// Wake tells this replica's webhook deliverer an event was written.
	Wake func()
	Log  *slog.Logger

	mu   sync.Mutex
	done map[string]bool // drop id + type
}

// DropNoticeStore writes an event once per drop and type.
type DropNoticeStore interface {
	Now() time.Time
	AnnounceDropOnce(ctx context.Context, d store.Drop, typ string, a *store.Announcement[store.Drop]) (bool, error)
}

// dropNoticesRemembered bounds the drops remembered as announced.
const dropNoticesRemembered = 10_000

// Notice announces d's change typ (store.EventDropSoldOut or
// store.EventDropClosed) to its integration's endpoints that want it.
func (n *DropNotices) Notice(ctx context.Context, d store.Drop, typ string) {
	integration, ok := store.AudienceIntegration(d.Audience)
	if !ok {
		return // the shop's: no endpoint
	}
	status := store.ClaimReason(store.ErrSoldOut)
	if typ == store.EventDropClosed {
		status = store.ClaimReason(store.ErrDropClosed)
	}
	ann := announceFor(n.Hooks, integration, typ, func(d store.Drop) any {
		out := apiDropOf(d, n.Store.Now())
		out.Status = status // as it was at the change, whatever it is since
		return out
	})
	if ann == nil || !n.first(d.ID+" "+typ) {
		return
	}
	wrote, err := n.Store.AnnounceDropOnce(ctx, d, typ, ann)
	if err != nil {
		n.forget(d.ID + " " + typ) // the next read of it tries again
		n.log().WarnContext(ctx, "announce drop", "drop", d.ID, "event", typ, "err", err)
		return
	}
	if wrote && n.Wake != nil {
		n.Wake()
	}
}

// first reports whether key was not announced yet here, and remembers it.
func (n *DropNotices) first(key string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.done[key] {
		return false
	}
	if n.done == nil || len(n.done) >= dropNoticesRemembered {
		n.done = map[string]bool{} // forgotten drops cost one failed put more
	}
	n.done[key] = true
	return true
}

func (n *DropNotices) forget(key string) {
	n.mu.Lock()
	delete(n.done, key)
	n.mu.Unlock()
}

func (n *DropNotices) log() *slog.Logger {
	if n.Log != nil {
		return n.Log
	}
	return slog.Default()
}
