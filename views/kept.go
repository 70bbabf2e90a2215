package views

import (
	"bytes"
	"context"
	"io"
	"sync"
	"time"

	"github.com/a-h/templ"

	"shop/store"
)

// Parts of a page that are the same for everyone who asks the same address
// in the same language (a catalogue's list, a product's picture and
// words) are made from the shop window alone; Kept keeps such a part as
// rendered, as long as what it was made from stays fresh in the window.
// A part marked Kept must hold nothing of the viewer's: no name, no cart,
// no CSRF token, no flash.

// KeptParts keeps parts of pages for the requests of one replica.
type KeptParts struct {
	window *store.Window
	now    func() time.Time
	keep   time.Duration

	mu    sync.RWMutex
	parts map[string]keptPart
}

type keptPart struct {
	html    []byte
	until   time.Time
	changes uint64
}

// Parts live a second at most, so few are kept at once; the bounds hold
// memory to 64 MB whatever addresses a crawler makes up.
const (
	keptPartsMax     = 1_024
	keptPartMaxBytes = 64 << 10
)

// NewKeptParts keeps parts at most keep, and no longer than the window
// entries they were made from.
func NewKeptParts(w *store.Window, now func() time.Time, keep time.Duration) *KeptParts {
	return &KeptParts{window: w, now: now, keep: keep, parts: map[string]keptPart{}}
}

type keptKey struct{}

// keptRequest is what a request's parts are kept under: the keeper, the
// request's key (address, language, htmx headers), the window's changes
// when the request began, and its note of what it read.
type keptRequest struct {
	parts   *KeptParts
	key     string
	changes uint64
	note    *store.WindowNote
}

// WithKeptParts is ctx under which Kept parts are kept under key; note is
// the window's note of what the request reads, changes the window's
// changes before it read anything.
func WithKeptParts(ctx context.Context, p *KeptParts, key string, changes uint64, note *store.WindowNote) context.Context {
	return context.WithValue(ctx, keptKey{}, keptRequest{parts: p, key: key, changes: changes, note: note})
}

// Kept renders its children once for every request with the same key
// while the window's entries they were made from stay fresh; without
// WithKeptParts it renders them every time. name tells the part from every
// other of the page (a product's parts name the product).
func Kept(name string) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		children := templ.GetChildren(ctx)
		ctx = templ.ClearChildren(ctx)
		r, ok := ctx.Value(keptKey{}).(keptRequest)
		if !ok {
			return children.Render(ctx, w)
		}
		key := r.key + "\x00" + name
		p := r.parts
		p.mu.RLock()
		part, ok := p.parts[key]
		p.mu.RUnlock()
		now := p.now()
		if ok && part.changes == p.window.Changes() && now.Before(part.until) {
			_, err := w.Write(part.html)
			return err
		}
		var buf bytes.Buffer
		if err := children.Render(ctx, &buf); err != nil {
			return err
		}
		until := r.note.Until()
		if limit := now.Add(p.keep); until.After(limit) {
			until = limit
		}
		if now.Before(until) && buf.Len() <= keptPartMaxBytes {
			p.put(key, keptPart{html: buf.Bytes(), until: until, changes: r.changes})
		}
		_, err := w.Write(buf.Bytes())
		return err
	})
}

func (p *KeptParts) put(key string, part keptPart) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.parts) >= keptPartsMax {
		now := p.now()
		for k, old := range p.parts {
			if !now.Before(old.until) {
				delete(p.parts, k)
			}
		}
		if len(p.parts) >= keptPartsMax {
			clear(p.parts)
		}
	}
	p.parts[key] = part
}
