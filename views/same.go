package views

import (
	"bytes"
	"context"
	"io"

	"github.com/a-h/templ"

	"shop/views/lang"
)

// Parts of a page made of nothing but a few values and the page's
// language (a form's labels and options, the subscribe preview's calendar
// text) are rendered once for each such key and kept as rendered: the
// same key is the same HTML for every viewer. They are kept for the
// process's life, as the messages they are made of are; a key that holds
// something of a viewer's own (a name, a token, what they typed) must
// never be one, and a part that depends on more than its key must not be
// kept: TestKeptPartsAreWhatRenderingMakes renders each both ways.

// sameParts keeps one kind of part, by language and key.
type sameParts[K comparable] struct {
	parts *keptMap[sameKey[K], []byte]
}

type sameKey[K comparable] struct {
	lang lang.Lang
	key  K
}

func newSameParts[K comparable](most int) sameParts[K] {
	return sameParts[K]{parts: newKeptMap[sameKey[K], []byte](most)}
}

// of is c, rendered once per language and key and kept: c must be made of
// nothing but key and the language.
func (s sameParts[K]) of(key K, c templ.Component) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		return s.render(ctx, w, key, c)
	})
}

func (s sameParts[K]) render(ctx context.Context, w io.Writer, key K, c templ.Component) error {
	if renderEverything.Load() {
		return c.Render(ctx, w)
	}
	k := sameKey[K]{lang: lang.From(ctx), key: key}
	if html, ok := s.parts.get(k); ok {
		_, err := w.Write(html)
		return err
	}
	var buf bytes.Buffer
	if err := c.Render(ctx, &buf); err != nil {
		return err
	}
	s.parts.put(k, buf.Bytes())
	_, err := w.Write(buf.Bytes())
	return err
}

type cartCountKey struct {
	id    string
	units int
	oob   bool
}

var cartCounts = newSameParts[cartCountKey](256)

// CartCount is the number of items beside a header's cart link
// (cartCount), kept per language and number: every page shows it twice.
func CartCount(id string, units int, oob bool) templ.Component {
	if units < 0 || units > 99 {
		return cartCount(id, units, oob)
	}
	return cartCounts.of(cartCountKey{id: id, units: units, oob: oob}, cartCount(id, units, oob))
}
