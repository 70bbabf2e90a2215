package views

import (
	"context"
	"io"

	"github.com/a-h/templ"
)

// A product's page is the same for every viewer of it but for its two
// forms: the add-to-cart form (the viewer's CSRF token) and the subscribe
// panel (their token, their form's key, their cards and quote). It is kept
// whole, as fresh as the window's read of the product, with a mark in each
// form's place, and a view writes the kept text with its own forms in the
// marks' places: one kept part where the breadcrumb, picture, words and
// stock were four.

// The product page's holes, by number.
const (
	productHoleAdd = iota
	productHoleSubscribe
)

// productMain is p's page inside the storefront.
func productMain(p *ProductPage) templ.Component {
	var subscribe templ.Component = templ.NopComponent
	if p.Subscribe != nil {
		subscribe = SubscribePanel(p.Subscribe)
	}
	return keptAround("product", func(holes ...templ.Component) templ.Component {
		return productMainOf(p, holes[productHoleAdd], holes[productHoleSubscribe])
	}, AddToCartForm(p.Add), subscribe)
}

// keptAround is Kept for a part with holes: of makes the part around its
// holes; it is kept as a frame (frames.go) with a hole where each part
// goes, and written with parts[n] in hole n. A part holding a NUL of its
// own (which would read as a mark) is rendered every time.
func keptAround(name string, of func(holes ...templ.Component) templ.Component, parts ...templ.Component) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		r, ok := ctx.Value(keptKey{}).(keptRequest)
		if !ok || renderEverything.Load() {
			return of(parts...).Render(ctx, w)
		}
		f, ok := r.get(name)
		if !ok {
			marks := make([]templ.Component, len(parts))
			for i := range marks {
				marks[i] = markComponent(i)
			}
			var err error
			if f, err = makeFrame(ctx, of(marks...), len(parts)); err != nil {
				return of(parts...).Render(ctx, w)
			}
			r.put(name, f)
		}
		filled := make([]framePart, len(parts))
		for i, p := range parts {
			filled[i] = framePart{c: p}
		}
		return f.render(ctx, w, filled)
	})
}
