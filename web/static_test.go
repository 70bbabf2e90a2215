package web_test

import (
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"

	"shop/static"
	"shop/web/paths"
)

// A static file under its current version is kept a year; under none (or
// an old one) an hour. Pages link the versioned URL.
func TestStaticFilesAreImmutableUnderTheirVersion(t *testing.T) {
	t.Parallel()
	s := sharedShop(t)
	b := s.browser(t)
	css := paths.Static("css/shop.css")
	if !strings.Contains(css, "?v="+static.Version("css/shop.css")) || static.Version("css/shop.css") == "" {
		t.Fatalf("paths.Static gave %q", css)
	}
	if b.get("/products").doc.Find(`link[href="`+css+`"]`).Length() != 1 {
		t.Fatalf("the layout does not link %s", css)
	}
	for _, c := range []struct{ url, want string }{
		{css, "public, max-age=31536000, immutable"},
		{"/static/css/shop.css", "public, max-age=3600"},
		{"/static/css/shop.css?v=0123456789ab", "public, max-age=3600"},
	} {
		p := b.get(c.url)
		wantStatus(t, c.url, p, http.StatusOK)
		if got := p.header.Get("Cache-Control"); got != c.want {
			t.Errorf("%s: Cache-Control %q, want %q", c.url, got, c.want)
		}
	}
}

// Pages go out compressed to a client that accepts it; the CSV export,
// streamed as it is read, does not.
func TestPagesAreCompressed(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	get := func(b *browser, path string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, s.base+path, nil)
		req.Header.Set("Accept-Encoding", "gzip") // set by hand: the client leaves the body as sent
		resp, err := b.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	resp := get(s.browser(t), "/products")
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("catalogue Content-Encoding %q", resp.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(zr)
	if err != nil || !strings.Contains(string(body), `data-testid="product-card"`) {
		t.Fatalf("the gzipped catalogue does not read back: %v", err)
	}
	staff := s.browser(t)
	staff.signIn("staff@fikafield.example", "staff-demo-password")
	csv := get(staff, paths.AdminOrdersCSV("", ""))
	if csv.StatusCode != http.StatusOK || csv.Header.Get("Content-Encoding") != "" {
		t.Fatalf("CSV export: status %d, Content-Encoding %q", csv.StatusCode, csv.Header.Get("Content-Encoding"))
	}
}

// Every page names its favicon (a versioned SVG, kept a year) and has a
// description: without them a browser asks for /favicon.ico and logs its
// 404, and a search engine makes up the text under the link.
func TestPagesHaveAFaviconAndADescription(t *testing.T) {
	t.Parallel()
	s := sharedShop(t)
	b := s.browser(t)
	icon := paths.Static("favicon.svg")
	descriptions := map[string]string{}
	for _, path := range []string{"/products", "/products/cf-gbg-dark", "/login", "/cart", "/search?q=coffee"} {
		p := b.get(path)
		wantStatus(t, path, p, http.StatusOK)
		if p.doc.Find(`link[rel="icon"][href="`+icon+`"]`).Length() != 1 {
			t.Errorf("%s does not link the favicon %s", path, icon)
		}
		d, _ := p.doc.Find(`meta[name="description"]`).Attr("content")
		if strings.TrimSpace(d) == "" {
			t.Errorf("%s has no meta description", path)
		}
		if other, ok := descriptions[d]; ok {
			t.Errorf("%s has the description of %s: %q", path, other, d)
		}
		descriptions[d] = path
	}
	p := b.get(icon)
	wantStatus(t, icon, p, http.StatusOK)
	if got := p.header.Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
		t.Errorf("favicon Cache-Control %q", got)
	}
	if ct := p.header.Get("Content-Type"); !strings.HasPrefix(ct, "image/svg+xml") {
		t.Errorf("favicon Content-Type %q", ct)
	}
}
