package store

import (
	"sync"
	"time"
)

// WindowCopies keeps copies of what was made from the shop window alone (a
// rendered page, a part of one) as fresh as the window's own answer: a
// copy made under a note is answered until the first entry the note saw
// expires, at most keep, and not after this replica changed the window
// since the note began. Copies live a second or so, so few are kept at
// once; most bounds them whatever keys a crawler makes up.
type WindowCopies[V any] struct {
	window *Window
	keep   time.Duration
	most   int

	mu     sync.RWMutex
	copies map[string]windowCopy[V]
}

type windowCopy[V any] struct {
	value   V
	until   time.Time
	changes uint64
}

// NewWindowCopies keeps at most most copies, each at most keep.
func NewWindowCopies[V any](w *Window, keep time.Duration, most int) *WindowCopies[V] {
	return &WindowCopies[V]{window: w, keep: keep, most: most, copies: map[string]windowCopy[V]{}}
}

// Get is the copy kept under key while it is fresh.
func (c *WindowCopies[V]) Get(key string) (V, bool) {
	c.mu.RLock()
	e, ok := c.copies[key]
	c.mu.RUnlock()
	if !ok || e.changes != c.window.Changes() || !c.window.s.now().Before(e.until) {
		var zero V
		return zero, false
	}
	return e.value, true
}

// Put keeps v, made from what note saw, under key; nothing when the note
// saw nothing (v was not made from the window) or has expired already.
func (c *WindowCopies[V]) Put(key string, v V, note *WindowNote) {
	now := c.window.s.now()
	until := note.Until()
	if limit := now.Add(c.keep); until.After(limit) {
		until = limit
	}
	if !now.Before(until) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.copies) >= c.most {
		for k, e := range c.copies {
			if !now.Before(e.until) {
				delete(c.copies, k)
			}
		}
		if len(c.copies) >= c.most {
			clear(c.copies)
		}
	}
	c.copies[key] = windowCopy[V]{value: v, until: until, changes: note.changes}
}
