package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"shop/store"
	"shop/store/demo"
	"shop/store/storetest"
	"shop/web"
)

func withWindowPages(d time.Duration) appOption {
	return func(_ storetest.Env, cfg *web.Config) { cfg.WindowPages = d }
}

// maskedToken is a CSRF token as a page carries it.
var maskedToken = regexp.MustCompile(`[A-Za-z0-9_-]{86}`)

// formToken is the page's first form's CSRF token.
func formToken(p page) string {
	return p.doc.Find(`input[name="_csrf"]`).First().AttrOr("value", "")
}

// visitorPagesKept is the app's count of visitors' pages served as kept.
func visitorPagesKept(t *testing.T, s *shop) int {
	t.Helper()
	m := newBrowser(t, s.base).get("/metrics")
	for line := range strings.Lines(m.body) {
		if v, ok := strings.CutPrefix(line, `shop_visitor_pages_total{answer="kept"} `); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				t.Fatalf("metrics: %q", line)
			}
			return n
		}
	}
	return 0
}

// A sessionless visitor's catalogue and product pages are kept as
// rendered, and a kept page carries nothing of the visitor it was made
// for: each visitor gets a token of their own that works for them alone.
// The keep here is a minute and the shop's clock stands still (the window
// keeps stock a second, longer than a loaded machine may take between two
// views), so what ends a kept page is the window: a change made on this
// replica shows to the very next visitor.
func TestWindowPagesKeepNothingOfAnotherViewer(t *testing.T) {
	t.Parallel()
	now := time.Now()
	s := newShop(t, withStore(&storetest.Counter{}, store.WithClock(func() time.Time { return now })), withWindowPages(time.Minute))

	first, second := s.browser(t), s.browser(t)
	p1 := first.get("/products/cf-light")
	kept := visitorPagesKept(t, s)
	p2 := second.get("/products/cf-light")
	if got := visitorPagesKept(t, s); got != kept+1 {
		t.Fatalf("the second visitor's product page: %d pages kept, want %d", got, kept+1)
	}
	if a, b := maskedToken.ReplaceAllString(p1.body, "T"), maskedToken.ReplaceAllString(p2.body, "T"); a != b {
		t.Fatalf("the kept page differs from the rendered one but for its tokens:\n%s\n%s", a, b)
	}
	if formToken(p1) == "" || formToken(p1) == formToken(p2) {
		t.Fatalf("tokens %q and %q: each visitor wants one of their own", formToken(p1), formToken(p2))
	}
	add := url.Values{"product_id": {"cf-light"}, "quantity": {"1"}}
	add.Set("_csrf", formToken(p1))
	wantStatus(t, "the first visitor's token, sent by the second", second.post("/cart/items", add), http.StatusForbidden)
	add.Set("_csrf", formToken(p2))
	wantStatus(t, "the second visitor's own token", second.post("/cart/items", add), http.StatusSeeOther)

	// The second visitor now has a cart (a session): their page is their
	// own, as a signed-in customer's is.
	kept = visitorPagesKept(t, s)
	if second.get("/products/cf-light").testid("cart-count").Text() == "" {
		t.Fatal("the visitor with a cart was not shown its count")
	}
	ada := s.browser(t)
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	wantSignedIn(t, ada.get("/products/cf-light"), "a signed-in customer was served a visitor's page")
	if got := visitorPagesKept(t, s); got != kept {
		t.Fatalf("pages with a session were served as kept (%d, want %d)", got, kept)
	}

	// What a page is made of keys it: language, htmx's partial.
	ko := s.browser(t).get("/", "Accept-Language", "ko")
	en := s.browser(t).get("/", "Accept-Language", "en")
	if ko.doc.Find("html").AttrOr("lang", "") != "ko" || en.doc.Find("html").AttrOr("lang", "") != "en" {
		t.Fatal("a kept page answered another language")
	}
	s.browser(t).get("/products/cf-light/stock")
	if stock := s.browser(t).get("/products/cf-light/stock", "HX-Request", "true"); strings.Contains(stock.body, "<html") {
		t.Fatal("htmx's stock panel was answered with the kept whole page")
	}

	// The catalogue's list and the product's words are parts kept for
	// everyone: Ada's pages are made around the parts a visitor's were,
	// and show her as herself; a visitor's made after hers hold nothing
	// of hers.
	newBrowser(t, s.base).get("/")
	newBrowser(t, s.base).get("/products/cf-light")
	for _, path := range []string{"/", "/products/cf-light"} {
		wantSignedIn(t, ada.get(path), "Ada's "+path+" around kept parts")
		if p := newBrowser(t, s.base).get(path); strings.Contains(p.body, "Ada") {
			t.Fatalf("a visitor's %s after Ada's holds her name", path)
		}
	}

	// A change this replica makes shows at once, though the catalogue's
	// list is kept a minute: on the visitor's kept page and in the
	// signed-in customer's kept parts.
	staff := s.staff(t)
	staff.get("/admin/products/cf-light")
	edit := staff.post("/admin/products/cf-light", url.Values{"name": {"Archipelago Kept Not"}, "category": {"coffee"}, "price": {"13.90"}})
	wantStatus(t, "rename", edit, http.StatusSeeOther)
	if !strings.Contains(newBrowser(t, s.base).get("/").body, "Archipelago Kept Not") {
		t.Fatal("the next visitor was served the catalogue from before the rename")
	}
	for _, path := range []string{"/", "/products/cf-light"} {
		if p := ada.get(path); !strings.Contains(p.body, "Archipelago Kept Not") {
			t.Fatalf("Ada's %s was made around a part from before the rename", path)
		}
	}
}

// formKeys are the subscribe form's keys, new on every view.
var formKeys = regexp.MustCompile(`name="key" value="[^"]*"`)

// A product's page is kept as one part with the viewer's forms in its
// holes (the add-to-cart form, the subscribe panel): for a customer with a
// kept card (her panel rendered) and one without (his panel kept too), on
// a subscribable product and another, the page made around the kept part
// is the one an app that keeps nothing renders, but for the tokens and
// the form's key.
func TestKeptProductPageIsWhatRenderingMakes(t *testing.T) {
	t.Parallel()
	now := time.Now()
	s := newShop(t, withStore(&storetest.Counter{}, store.WithClock(func() time.Time { return now })), withWindowPages(time.Minute))
	plain, _ := startApp(t, s.env, s.env.Table, [][]byte{keyA}, withWindowPages(-1))
	ada := s.browser(t)
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	bob, _ := s.newCustomer(t, "Bob Kept")
	mask := func(p page) string {
		return formKeys.ReplaceAllString(maskedToken.ReplaceAllString(p.body, "T"), "K")
	}
	for name, b := range map[string]*browser{"ada": ada, "bob": bob} {
		for _, path := range []string{"/products/cf-light", "/products/cf-grinder"} {
			b.get(path) // keeps the part
			kept := b.get(path)
			wantSignedIn(t, kept, name+"'s "+path)
			rendered := newBrowserWith(t, plain, b).get(path)
			if a, r := mask(kept), mask(rendered); a != r {
				t.Fatalf("%s's %s around the kept part differs from the rendered one:\n%s\n%s", name, path, a, r)
			}
			if formToken(kept) == "" || strings.Count(kept.body, formToken(kept)) < 2 {
				t.Fatalf("%s's %s: the forms lack the viewer's token", name, path)
			}
		}
	}
}
