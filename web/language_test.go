package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// A first visit is answered in the browser's language; a language chosen
// by link is kept in a cookie and followed by the next page; every page
// says its language and links the others.
func TestLanguageFromBrowserLinkAndCookie(t *testing.T) {
	t.Parallel()
	s := sharedShop(t)

	for _, tc := range []struct {
		accept, want, cart string
	}{
		{"", "en", "Cart"},
		{"ko-KR,ko;q=0.9,en;q=0.8", "ko", "장바구니"},
		{"id-ID,id;q=0.9", "id", "Keranjang"},
		{"fr-FR,fr;q=0.9", "en", "Cart"},
	} {
		p := s.browser(t).get("/products", "Accept-Language", tc.accept)
		wantStatus(t, "catalogue", p, http.StatusOK)
		if got, _ := p.doc.Find("html").Attr("lang"); got != tc.want {
			t.Errorf("Accept-Language %q: <html lang=%q>, want %q", tc.accept, got, tc.want)
		}
		if got := trim(p.testid("nav-cart").Text()); !strings.HasPrefix(got, tc.cart) {
			t.Errorf("Accept-Language %q: cart link %q, want %q", tc.accept, got, tc.cart)
		}
		if got := p.header.Get("Content-Language"); got != tc.want {
			t.Errorf("Accept-Language %q: Content-Language %q", tc.accept, got)
		}
	}

	// Chosen by link: the choice beats the browser's and is kept.
	b := s.browser(t)
	p := b.get("/products?lang=ko", "Accept-Language", "id")
	if got, _ := p.doc.Find("html").Attr("lang"); got != "ko" {
		t.Fatalf("?lang=ko: lang %q", got)
	}
	if c := p.setCookie("lang"); !strings.Contains(c, "lang=ko") || !strings.Contains(c, "HttpOnly") {
		t.Errorf("?lang=ko sets cookie %q", c)
	}
	p = b.get("/cart", "Accept-Language", "id")
	if got, _ := p.doc.Find("html").Attr("lang"); got != "ko" {
		t.Errorf("the next page after choosing Korean: lang %q", got)
	}
	if p.setCookie("lang") != "" {
		t.Error("a page without ?lang sets the language cookie again")
	}
	// An unknown language is ignored, not an error.
	p = b.get("/cart?lang=xx")
	wantStatus(t, "?lang=xx", p, http.StatusOK)
	if got, _ := p.doc.Find("html").Attr("lang"); got != "ko" {
		t.Errorf("?lang=xx: lang %q, want the kept ko", got)
	}
}

// Storefront pages carry hreflang alternates that point at the page in
// each language, and a switcher; so do the staff console's pages (the
// switcher, no alternates: search engines never see them).
func TestEveryPageLinksItsLanguages(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	p := s.browser(t).get("/products/cf-light")
	wantStatus(t, "product", p, http.StatusOK)
	alts := map[string]string{}
	p.doc.Find(`link[rel="alternate"][hreflang]`).Each(func(_ int, l *goquery.Selection) {
		alts[l.AttrOr("hreflang", "")] = l.AttrOr("href", "")
	})
	for lang, want := range map[string]string{"en": "/products/cf-light?lang=en", "ko": "/products/cf-light?lang=ko", "id": "/products/cf-light?lang=id", "x-default": "/products/cf-light"} {
		if alts[lang] != want {
			t.Errorf("hreflang %s = %q, want %q", lang, alts[lang], want)
		}
	}
	for _, l := range []string{"en", "ko", "id"} {
		href := p.testid("lang-"+l).AttrOr("href", "")
		if href != "/products/cf-light?lang="+l {
			t.Errorf("switcher link %s = %q", l, href)
		}
		// The link goes somewhere: the page in that language.
		q := s.browser(t).get(href)
		wantStatus(t, href, q, http.StatusOK)
		if got, _ := q.doc.Find("html").Attr("lang"); got != l {
			t.Errorf("%s: lang %q", href, got)
		}
	}

	staff := s.staff(t)
	p = staff.get("/admin?lang=ko")
	wantStatus(t, "console", p, http.StatusOK)
	if p.testid("languages").Length() != 1 {
		t.Error("the console has no language switcher")
	}
	if got := trim(p.testid("nav-orders").Text()); got != "주문" {
		t.Errorf("console sidebar in Korean: orders is %q", got)
	}
	if p.doc.Find(`link[rel="alternate"][hreflang]`).Length() != 0 {
		t.Error("a console page has hreflang alternates")
	}
}
