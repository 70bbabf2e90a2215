package store

import (
	"context"
	"sync/atomic"
	"time"
)

// A WindowNote tells how long what the window answered under one context
// stays as fresh as the window would keep it: the earliest expiry of the
// entries read. A page made from the window alone may be kept that long,
// and no longer than until this replica changes the window (Changes):
// WindowCopies keeps it so.
type WindowNote struct {
	until   atomic.Int64 // unix nanoseconds; 0 until something is read
	changes uint64       // the window's Changes when the note began
}

type windowNoteKey struct{}

// Noting is ctx under which the window notes what it answers in the note.
func (w *Window) Noting(ctx context.Context) (context.Context, *WindowNote) {
	n := &WindowNote{changes: w.Changes()}
	return context.WithValue(ctx, windowNoteKey{}, n), n
}

// Until is when the first entry read expires; zero when nothing was read.
func (n *WindowNote) Until() time.Time {
	u := n.until.Load()
	if u == 0 {
		return time.Time{}
	}
	return time.Unix(0, u)
}

// note keeps the earlier of the note's expiry and t.
func (n *WindowNote) note(t time.Time) {
	u := t.UnixNano()
	for {
		old := n.until.Load()
		if old != 0 && old <= u || n.until.CompareAndSwap(old, u) {
			return
		}
	}
}

// noteRead tells ctx's note, if any, that an entry expiring at t was read.
func noteRead(ctx context.Context, t time.Time) {
	if n, ok := ctx.Value(windowNoteKey{}).(*WindowNote); ok {
		n.note(t)
	}
}

// Changes counts the changes this replica made to the window (a product,
// a category, stock, drops, zones): what was made from it before a change
// is stale.
func (w *Window) Changes() uint64 { return w.changes.Load() }
