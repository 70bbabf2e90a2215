package web

import (
	"bytes"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
)

// The catalogue, search and product pages are made from the shop window
// alone. Parts of them that are the same for every viewer (views.Kept)
// are kept as rendered for everyone; and visitors without a session all
// see the same whole page, nothing of theirs on it but a CSRF token, so
// those pages are kept whole:
//
//   - for a request with no cookie but the visitor's id and the language,
//     keyed by everything the page is made of (address, language, the
//     htmx headers, whether a visitor id came);
//   - no longer than the window entries they were made from stay fresh,
//     at most Config.WindowPages (a second), and not past a change this
//     replica makes to the window (Window.Changes), so a page is never
//     staler than the window's own answer;
//   - each token the page was given is swapped for a token of the next
//     visitor's, made as rendering would (and its cookie set with it);
//   - only a 200 that set no cookie but the visitor's.
//
// Signed-in customers, carts and flashes (a session cookie) always render
// their page, around the kept parts.
type windowPages struct {
	window *store.Window
	pages  *store.WindowCopies[keptPage]
	parts  *views.KeptParts
	// kept and rendered count visitors' pages served as kept and rendered.
	kept, rendered prometheus.Counter
}

type keptPage struct {
	body    []byte // tokens replaced by tokenHole
	tokens  bool   // the body has holes
	headers [][2]string
}

const (
	windowPageKeep = time.Second
	// The bounds hold memory to 32 MB whatever addresses a crawler makes
	// up.
	visitorPagesMax     = 512
	visitorPageMaxBytes = 64 << 10
)

// tokenHole stands for a CSRF token in a kept page: NUL bytes never come
// out of a template.
var tokenHole = []byte("\x00csrf\x00")

func newWindowPages(w *store.Window, keep time.Duration, m *Metrics) *windowPages {
	return &windowPages{window: w, pages: store.NewWindowCopies[keptPage](w, keep, visitorPagesMax), parts: views.NewKeptParts(w, keep),
		kept: m.visitorPages.WithLabelValues("kept"), rendered: m.visitorPages.WithLabelValues("rendered")}
}

// handler serves a visitor's kept page, or renders (and keeps) the page,
// its parts kept.
func (v *windowPages) handler(c *fiber.Ctx) error {
	if v == nil || c.Method() != fiber.MethodGet {
		return c.Next()
	}
	key := pageKey(c)
	visitor := visitorOnly(c)
	var pageOf string // the whole page's key: a visitor id made while rendering must not change it
	if visitor {
		pageOf = key + visitorKey(c)
		if p, ok := v.pages.Get(pageOf); ok {
			v.kept.Inc()
			return p.serve(c)
		}
	}
	ctx, note := v.window.Noting(c.UserContext())
	c.SetUserContext(views.WithKeptParts(ctx, v.parts, key, note))
	if !visitor {
		return c.Next()
	}
	v.rendered.Inc()
	page.NoteTokens(c)
	before := responseHeaders(c)
	if err := c.Next(); err != nil {
		return err
	}
	body := c.Response().Body()
	if c.Response().StatusCode() != fiber.StatusOK || len(body) > visitorPageMaxBytes || setsOtherCookies(c) {
		return nil
	}
	kept := keptPage{body: bytes.Clone(body)}
	for _, t := range page.TokensShown(c) {
		kept.body = bytes.ReplaceAll(kept.body, []byte(t), tokenHole)
		kept.tokens = true
	}
	for k, val := range responseHeaders(c) {
		if before[k] != val {
			kept.headers = append(kept.headers, [2]string{k, val})
		}
	}
	v.pages.Put(pageOf, kept, note)
	return nil
}

// serve answers with the kept page, a token of this visitor's in its holes.
func (p keptPage) serve(c *fiber.Ctx) error {
	for _, h := range p.headers {
		c.Set(h[0], h[1])
	}
	if !p.tokens {
		return c.Send(p.body) // never written to: Send keeps the slice
	}
	return c.Send(bytes.ReplaceAll(p.body, tokenHole, []byte(page.CSRFToken(c))))
}

// pageKey is everything of the request a kept page or part is made of.
// The language middleware has already read ?lang=, the cookie and
// Accept-Language.
func pageKey(c *fiber.Ctx) string {
	parts := [...]string{string(page.Lang(c)), c.Get("HX-Request"), c.Get("HX-Target"),
		c.Get("HX-History-Restore-Request"), c.BaseURL(), c.OriginalURL()}
	n := len(parts)
	for _, s := range parts {
		n += len(s)
	}
	var b strings.Builder
	b.Grow(n) // one allocation: every signed-in view makes one
	for _, s := range parts {
		b.WriteString(s)
		b.WriteByte(0)
	}
	return b.String()
}

// visitorKey tells a visitor's page from a new visitor's: the layout
// carries the token of a visitor id the request came with.
func visitorKey(c *fiber.Ctx) string {
	if page.HasVisitor(c) {
		return "visitor"
	}
	return "new"
}

// visitorOnly reports whether the request carries no cookie but the
// visitor's id and the chosen language: no session, cart or flash.
func visitorOnly(c *fiber.Ctx) bool {
	only := true
	c.Request().Header.VisitAllCookie(func(k, _ []byte) {
		if name := string(k); name != page.VisitorCookie && name != langCookie {
			only = false
		}
	})
	return only
}

// setsOtherCookies reports whether the answer sets a cookie other than the
// visitor's, which serving a kept page makes again itself.
func setsOtherCookies(c *fiber.Ctx) bool {
	other := false
	c.Response().Header.VisitAllCookie(func(k, _ []byte) {
		if string(k) != page.VisitorCookie {
			other = true
		}
	})
	return other
}

// responseHeaders are the answer's headers so far, but its length and
// cookies: what the page's handler sets is what differs after it.
func responseHeaders(c *fiber.Ctx) map[string]string {
	h := map[string]string{}
	c.Response().Header.VisitAll(func(k, val []byte) {
		switch name := string(k); name {
		case fiber.HeaderContentLength, fiber.HeaderSetCookie, fiber.HeaderDate:
		default:
			h[name] = string(val)
		}
	})
	return h
}
