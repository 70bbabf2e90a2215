package views

import (
	"bytes"
	"context"
	"io"
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

// KeptParts keeps parts of pages for the requests of one replica, each as
// a frame (frames.go): its text, cut where the viewer's own parts go
// (keptAround), or whole.
type KeptParts = store.WindowCopies[*frame]

// The bounds hold memory to 64 MB whatever addresses a crawler makes up.
const (
	keptPartsMax     = 1_024
	keptPartMaxBytes = 64 << 10
)

// NewKeptParts keeps parts at most keep, and no longer than the window
// entries they were made from.
func NewKeptParts(w *store.Window, keep time.Duration) *KeptParts {
	return store.NewWindowCopies[*frame](w, keep, keptPartsMax)
}

type keptKey struct{}

// keptRequest is what a request's parts are kept under: the keeper, the
// request's key (address, language, htmx headers) and the window's note
// of what the request reads.
type keptRequest struct {
	parts *KeptParts
	key   string
	note  *store.WindowNote
}

// WithKeptParts is ctx under which Kept parts are kept under key; note is
// the window's note of what the request reads, begun before it read
// anything.
func WithKeptParts(ctx context.Context, p *KeptParts, key string, note *store.WindowNote) context.Context {
	return context.WithValue(ctx, keptKey{}, keptRequest{parts: p, key: key, note: note})
}

// Kept renders its children once for every request with the same key
// while the window's entries they were made from stay fresh; without
// WithKeptParts it renders them every time. name tells the part from every
// other of the page (a product's parts name the product).
func Kept(name string) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		children := templ.GetChildren(ctx)
		return keep(templ.ClearChildren(ctx), w, name, children)
	})
}

// KeptOr is the part Kept keeps under name for this request's page when it
// is kept and fresh (its bytes taken now, so it cannot expire before the
// page is written); else make's part, rendered and kept as Kept does. A
// handler whose part costs reads and copies to gather (a catalogue's
// shelf) asks first, and gathers nothing for a kept part.
func KeptOr(ctx context.Context, name string, make func() (templ.Component, error)) (templ.Component, error) {
	if r, ok := ctx.Value(keptKey{}).(keptRequest); ok {
		if f, ok := r.get(name); ok {
			return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
				return f.render(ctx, w, nil)
			}), nil
		}
	}
	c, err := make()
	if err != nil {
		return nil, err
	}
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		return keep(ctx, w, name, c)
	}), nil
}

// keep writes the part kept under name, or renders c, keeps it and writes
// it.
func keep(ctx context.Context, w io.Writer, name string, c templ.Component) error {
	r, ok := ctx.Value(keptKey{}).(keptRequest)
	if !ok {
		return c.Render(ctx, w)
	}
	f, ok := r.get(name)
	if !ok {
		var buf bytes.Buffer
		if err := c.Render(ctx, &buf); err != nil {
			return err
		}
		f = &frame{text: [][]byte{buf.Bytes()}}
		r.put(name, f)
	}
	return f.render(ctx, w, nil)
}

// get is the part kept under name for this request's page, if kept and
// fresh.
func (r keptRequest) get(name string) (*frame, bool) {
	return r.parts.Get(r.key + "\x00" + name)
}

// put keeps f under name for the requests after this one, as fresh as
// what this request read from the window, unless it is too big to keep.
func (r keptRequest) put(name string, f *frame) {
	if f.size() <= keptPartMaxBytes {
		r.parts.Put(r.key+"\x00"+name, f, r.note)
	}
}
