package views

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"shop/views/lang"
)

// The storefront's frame (header, menu, search box, footer: every
// customer page's) is the same for everyone who asks the same address in
// the same language, but for a few of the viewer's parts: the page's
// title, their name, cart count, CSRF token and flash. Rendered whole on
// every request it cost a signed-in page more than its own content did
// (dozens of messages, each link's escaping). So it is rendered once per
// language, address and shape (signed in or not, a search page or not)
// with a mark in each of those parts' place, a hole, and kept as the text
// between the holes; a request writes that text and fills the holes with
// its own parts. The kept frame is rendered from marks alone, never from
// a viewer's layout: nothing of anyone's can be in it.

// docHead is what the document around a page carries of the page's own:
// its title, its description, and the CSRF header htmx sends. Each is
// escaped as text (storefrontFrame's holes are).
type docHead struct{ Title, Description, HxHeaders string }

// headOf is l's head.
func headOf(ctx context.Context, l Layout) docHead {
	return docHead{Title: l.DocumentTitle(), Description: l.MetaDescription(ctx), HxHeaders: csrfHeaders(l.CSRF)}
}

// storefrontParts are the parts of the storefront's frame that are not
// the same for every viewer of an address: every string and component but
// signedIn is a hole of the kept frame. A string hole is escaped as text
// or an attribute's value, never put in a URL. head.HxHeaders is made
// from token only where the frame is not kept (the kept frame's hole
// writes it from the token).
type storefrontParts struct {
	head      docHead
	token     string // the CSRF token htmx sends
	signedIn  bool
	name      string // the viewer's, signed in
	csrf      string // the sign-out form's token, signed in
	cartQuick templ.Component
	cart      templ.Component
	staff     templ.Component // the console's link, for staff
	search    templ.Component
	flash     templ.Component
	body      templ.Component
}

// The holes of the storefront's frame, by number.
const (
	holeTitle = iota
	holeDescription
	holeHxHeaders
	holeName
	holeCSRF
	holeCartQuick
	holeCart
	holeStaff
	holeSearch
	holeFlash
	holeBody
	storefrontHoles
)

// storefrontPartsOf are l's parts around body.
func storefrontPartsOf(ctx context.Context, l Layout, body templ.Component) storefrontParts {
	p := storefrontParts{
		head:      docHead{Title: l.DocumentTitle(), Description: l.MetaDescription(ctx)},
		token:     l.CSRF,
		signedIn:  l.Viewer.SignedIn(),
		name:      l.Viewer.Name,
		csrf:      l.CSRF,
		cartQuick: CartCount("cart-count-quick", l.CartUnits, false),
		cart:      CartCount("cart-count", l.CartUnits, false),
		staff:     templ.NopComponent,
		search:    SearchBox(l),
		flash:     flash(l.Flash),
		body:      body,
	}
	if l.Viewer.Staff {
		p.staff = staffLink()
	}
	return p
}

// holes are p's parts in the order of their holes' numbers.
func (p storefrontParts) holes() [storefrontHoles]framePart {
	return [storefrontHoles]framePart{
		holeTitle:       {text: p.head.Title},
		holeDescription: {text: p.head.Description},
		holeHxHeaders:   {hxToken: p.token},
		holeName:        {text: p.name},
		holeCSRF:        {text: p.csrf},
		holeCartQuick:   {c: p.cartQuick},
		holeCart:        {c: p.cart},
		holeStaff:       {c: p.staff},
		holeSearch:      {c: p.search},
		holeFlash:       {c: p.flash},
		holeBody:        {c: p.body},
	}
}

// storefrontMarked are the parts the kept frame of shape s is rendered
// from: a mark in every hole. A search box without a search is the same
// for everyone, so it is kept in the frame.
func storefrontMarked(s frameShape) storefrontParts {
	p := storefrontParts{
		head:      docHead{Title: holeMark(holeTitle), Description: holeMark(holeDescription), HxHeaders: holeMark(holeHxHeaders)},
		signedIn:  s&shapeSignedIn != 0,
		name:      holeMark(holeName),
		csrf:      holeMark(holeCSRF),
		cartQuick: markComponent(holeCartQuick),
		cart:      markComponent(holeCart),
		staff:     markComponent(holeStaff),
		search:    markComponent(holeSearch),
		flash:     markComponent(holeFlash),
		body:      markComponent(holeBody),
	}
	if s&shapeSearch == 0 {
		p.search = SearchBox(Layout{})
	}
	return p
}

// frameShape is what of a layout changes its frame's markup beyond the
// holes.
type frameShape uint8

const (
	shapeSignedIn frameShape = 1 << iota
	shapeSearch
)

func shapeOf(l Layout) frameShape {
	var s frameShape
	if l.Viewer.SignedIn() {
		s |= shapeSignedIn
	}
	if l.Search != nil {
		s |= shapeSearch
	}
	return s
}

// Storefront is the frame of every customer page, around its children:
// the kept frame of the page's language, address and shape, its holes
// filled with the page's parts.
func Storefront(l Layout) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		body := templ.GetChildren(ctx)
		if body == nil {
			body = templ.NopComponent
		}
		ctx = templ.ClearChildren(ctx)
		parts := storefrontPartsOf(ctx, l, body)
		if renderEverything.Load() || strings.IndexByte(l.Path, 0) >= 0 {
			// (A NUL would read as a hole's mark: not kept.)
			parts.head.HxHeaders = csrfHeaders(parts.token)
			return storefrontFrame(l.Path, parts).Render(ctx, w)
		}
		key := frameKey{lang: lang.From(ctx), path: l.Path, shape: shapeOf(l)}
		f, ok := storefrontFrames.get(key)
		if !ok {
			var err error
			if f, err = makeFrame(ctx, storefrontFrame(l.Path, storefrontMarked(key.shape)), storefrontHoles); err != nil {
				return err
			}
			storefrontFrames.put(key, f)
		}
		holes := parts.holes()
		return f.render(ctx, w, holes[:])
	})
}

// framePart fills a hole: text, escaped, or a component, or the htmx
// headers of a CSRF token, written as escaped without being made (every
// page has them; escaping the JSON's quotes made a copy).
type framePart struct {
	text    string
	c       templ.Component
	hxToken string
}

// A hole's mark is its number between NUL bytes, which never come out of
// a template otherwise (escaping leaves them as they are).
const markByte = 0

func holeMark(n int) string { return "\x00" + strconv.Itoa(n) + "\x00" }

func markComponent(n int) templ.Component {
	mark := holeMark(n)
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		_, err := io.WriteString(w, mark)
		return err
	})
}

// frame is a frame as kept: text, then for each hole its number and the
// text after it.
type frame struct {
	text  [][]byte // len(holes)+1
	holes []int
}

// makeFrame renders c, whose holes are marked, and cuts it at the marks.
func makeFrame(ctx context.Context, c templ.Component, holes int) (*frame, error) {
	var buf bytes.Buffer
	if err := c.Render(ctx, &buf); err != nil {
		return nil, err
	}
	f := &frame{}
	rest := buf.Bytes()
	for {
		before, hole, after, ok := nextMark(rest, holes)
		if !ok {
			return nil, errors.New("views: a frame holds a NUL that is not a hole's mark")
		}
		f.text = append(f.text, before)
		if hole < 0 {
			return f, nil
		}
		f.holes = append(f.holes, hole)
		rest = after
	}
}

// nextMark cuts html at its first hole's mark: the text before it, the
// hole's number and the text after; hole -1 (and before all of html) when
// it holds none. ok is false for a NUL that is no mark of a hole below
// holes.
func nextMark(html []byte, holes int) (before []byte, hole int, after []byte, ok bool) {
	i := bytes.IndexByte(html, markByte)
	if i < 0 {
		return html, -1, nil, true
	}
	digits, after, closed := bytes.Cut(html[i+1:], []byte{markByte})
	hole = markNumber(digits)
	return html[:i], hole, after, closed && hole >= 0 && hole < holes
}

// markNumber is the hole a mark's digits name, -1 if they are not digits.
func markNumber(digits []byte) int {
	if len(digits) == 0 || len(digits) > 4 {
		return -1
	}
	n := 0
	for _, d := range digits {
		if d < '0' || d > '9' {
			return -1
		}
		n = n*10 + int(d-'0')
	}
	return n
}

// size is the frame's text in bytes.
func (f *frame) size() int {
	n := 0
	for _, t := range f.text {
		n += len(t)
	}
	return n
}

// render writes the frame, its holes filled with parts.
func (f *frame) render(ctx context.Context, w io.Writer, parts []framePart) error {
	for i, text := range f.text {
		if _, err := w.Write(text); err != nil {
			return err
		}
		if i == len(f.holes) {
			return nil
		}
		p := parts[f.holes[i]]
		if p.hxToken != "" {
			if err := writeHxHeaders(w, p.hxToken); err != nil {
				return err
			}
			continue
		}
		if p.c == nil {
			if _, err := io.WriteString(w, templ.EscapeString(p.text)); err != nil {
				return err
			}
			continue
		}
		if err := p.c.Render(ctx, w); err != nil {
			return err
		}
	}
	return nil
}

// frameKey is what a kept frame is made of.
type frameKey struct {
	lang  lang.Lang
	path  string
	shape frameShape
}

// storefrontFrames are the kept frames, at most 1,024 whatever addresses a
// crawler makes up (a frame is a few kB: a few MB at most).
var storefrontFrames = newKeptMap[frameKey, *frame](1_024)

// writeHxHeaders writes csrfHeaders(token) escaped as an attribute's
// value, as templ escapes it.
func writeHxHeaders(w io.Writer, token string) error {
	if !plainToken(token) {
		_, err := io.WriteString(w, templ.EscapeString(csrfHeaders(token)))
		return err
	}
	for _, s := range [...]string{`{&#34;X-CSRF-Token&#34;:&#34;`, token, `&#34;}`} {
		if _, err := io.WriteString(w, s); err != nil {
			return err
		}
	}
	return nil
}
