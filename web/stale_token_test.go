package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"shop/store/demo"
)

// A stale token from the shop's own pages brings the page back with a
// fresh token and a note that nothing was done: htmx gets HX-Refresh, a
// plain same-origin form a redirect to its page. From anywhere else (no
// HX-Request, no Sec-Fetch-Site: same-origin) it is refused as before, and
// in no case is the action done.
func TestStaleTokenReloadsThePageWithANote(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.browser(t)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	lines := len(b.get("/cart").testid("cart-line").Nodes)
	b.get("/products/cf-grinder")
	stale := url.Values{"_csrf": {"stale"}, "product_id": {"cf-grinder"}, "quantity": {"1"}}

	p := b.post("/cart/items", stale, "HX-Request", "true")
	wantStatus(t, "htmx with a stale token", p, http.StatusForbidden)
	if p.header.Get("HX-Refresh") != "true" || p.header.Get("Shop-Page-Expired") != "true" {
		t.Fatalf("htmx with a stale token: headers %v, want HX-Refresh and Shop-Page-Expired", p.header)
	}
	note := b.get("/products/cf-grinder").testid("flash").Text()
	if !strings.Contains(note, "Nothing was done yet") {
		t.Fatalf("the reloaded page's note: %q", note)
	}

	p = b.post("/cart/items", stale, "Sec-Fetch-Site", "same-origin", "Referer", s.base+"/products/cf-grinder?from=list")
	wantStatus(t, "plain form of ours with a stale token", p, http.StatusSeeOther)
	if loc := p.header.Get("Location"); loc != "/products/cf-grinder?from=list" {
		t.Fatalf("sent back to %q", loc)
	}
	if note := b.get("/products/cf-grinder").testid("flash").Text(); !strings.Contains(note, "we reloaded it") {
		t.Fatalf("the note after a plain form: %q", note)
	}

	for _, h := range [][]string{
		{"Sec-Fetch-Site", "cross-site", "Referer", s.base + "/products/cf-grinder"},
		{"Sec-Fetch-Site", "same-origin", "Referer", "https://elsewhere.example/products/cf-grinder"},
		{"Sec-Fetch-Site", "same-origin"},
		{},
	} {
		wantStatus(t, "stale token with "+strings.Join(h, " "), b.post("/cart/items", stale, h...), http.StatusForbidden)
	}

	if n := len(b.get("/cart").testid("cart-line").Nodes); n != lines {
		t.Fatalf("a request with a stale token changed the cart: %d lines, had %d", n, lines)
	}
}
