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

// KeptParts keeps parts of pages for the requests of one replica.
type KeptParts = store.WindowCopies[[]byte]

// The bounds hold memory to 64 MB whatever addresses a crawler makes up.
const (
	keptPartsMax     = 1_024
	keptPartMaxBytes = 64 << 10
)

// NewKeptParts keeps parts at most keep, and no longer than the window
// entries they were made from.
func NewKeptParts(w *store.Window, keep time.Duration) *KeptParts {
	return store.NewWindowCopies[[]byte](w, keep, keptPartsMax)
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
		if html, ok := r.get(name); ok {
			return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
				_, err := w.Write(html)
				return err
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
	html, err := r.html(ctx, name, c)
	if err != nil {
		return err
	}
	_, err = w.Write(html)
	return err
}

// html is the part kept under name, or c rendered and kept.
func (r keptRequest) html(ctx context.Context, name string, c templ.Component) ([]byte, error) {
	if html, ok := r.get(name); ok {
		return html, nil
	}
	var buf bytes.Buffer
	if err := c.Render(ctx, &buf); err != nil {
		return nil, err
	}
	r.put(name, buf.Bytes())
	return buf.Bytes(), nil
}

// get is the part kept under name for this request's page, if kept and
// fresh.
func (r keptRequest) get(name string) ([]byte, bool) {
	return r.parts.Get(r.key + "\x00" + name)
}

// put keeps html under name for the requests after this one, as fresh as
// what this request read from the window, unless it is too big to keep.
func (r keptRequest) put(name string, html []byte) {
	if len(html) <= keptPartMaxBytes {
		r.parts.Put(r.key+"\x00"+name, html, r.note)
	}
}
