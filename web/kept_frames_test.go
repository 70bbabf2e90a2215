package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"shop/store/demo"
)

// Signed-in pages are made around a frame (header, menu, footer) and
// parts (the subscribe panel's) kept per language and address: each
// customer's page shows them as themselves, their cart, token and flash,
// and the next customer's page in the same language and address holds
// nothing of theirs.
func TestSignedInPagesKeepNothingOfAnotherViewer(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ada, henrik, visitor := s.browser(t), s.browser(t), s.browser(t)
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	henrik.signIn("henrik@fikafield.example", "customer-demo-password")
	henrik.get("/") // the welcome's flash

	product := ada.get("/products/cf-light")
	if product.testid("subscribe-form").Length() != 1 {
		t.Fatal("cf-light shows no subscribe form to a signed-in customer")
	}
	add := url.Values{"product_id": {"cf-light"}, "quantity": {"2"}}
	wantStatus(t, "Ada adds two", ada.post("/cart/items", add), http.StatusSeeOther)
	adas := ada.get("/products/cf-light") // with the flash of her add
	henriks := henrik.get("/products/cf-light")
	visitors := visitor.get("/products/cf-light")

	adaToken := formToken(adas)
	if adaToken == "" || adas.testid("flash").Length() != 1 || !strings.Contains(adas.testid("cart-count").Text(), "2") ||
		!strings.Contains(adas.testid("viewer-name").Text(), "Ada") {
		t.Fatalf("Ada's page does not show her as herself: token %q, flash %d, cart %q, name %q", adaToken,
			adas.testid("flash").Length(), adas.testid("cart-count").Text(), adas.testid("viewer-name").Text())
	}
	// Her tokens (each form's masked anew) and the one htmx sends.
	hers := append(pageTokens(adas), "Ada", adas.testid("flash").Text())
	if len(hers) < 5 {
		t.Fatalf("Ada's page carries %d tokens", len(hers)-2)
	}
	for name, p := range map[string]page{"Henrik's": henriks, "a visitor's": visitors} {
		for _, hers := range hers {
			if strings.Contains(p.body, hers) {
				t.Fatalf("%s page after Ada's holds %q of hers", name, hers)
			}
		}
		if strings.TrimSpace(p.testid("cart-count").Text()) != "" || p.testid("flash").Length() != 0 {
			t.Fatalf("%s page shows a cart count %q or a flash", name, p.testid("cart-count").Text())
		}
	}
	wantSignedIn(t, henriks, "Henrik's page does not show him signed in")
	if !strings.Contains(henriks.testid("viewer-name").Text(), "Henrik") || formToken(henriks) == "" || formToken(henriks) == adaToken {
		t.Fatalf("Henrik's page: name %q, token %q", henriks.testid("viewer-name").Text(), formToken(henriks))
	}
	if key := func(p page) string {
		return p.doc.Find(`[data-testid="subscribe-form"] input[name="key"]`).AttrOr("value", "")
	}; key(adas) == key(henriks) {
		t.Fatal("Ada's and Henrik's subscribe forms share a key")
	}
	wantSignedOut(t, visitors, "a visitor's page shows a customer")

	// Every storefront page is made around the frame: Henrik's account
	// pages after Ada's are his.
	for _, path := range []string{"/", "/cart", "/orders", "/subscriptions"} {
		ada.get(path)
		p := henrik.get(path)
		wantStatus(t, "Henrik's "+path, p, http.StatusOK)
		if strings.Contains(p.body, "Ada") || strings.Contains(p.body, adaToken) || strings.Contains(p.body, hers[0]) {
			t.Fatalf("Henrik's %s after Ada's holds something of hers", path)
		}
		wantText(t, "Henrik's "+path, p.testid("viewer-name"), "Henrik")
	}
}

// pageTokens are the CSRF tokens a page carries: each form's, and the
// one htmx sends (hx-headers).
func pageTokens(p page) []string {
	var out []string
	p.doc.Find(`input[name="_csrf"]`).Each(func(_ int, sel *goquery.Selection) { out = append(out, sel.AttrOr("value", "")) })
	out = append(out, maskedToken.FindString(p.doc.Find("body").AttrOr("hx-headers", "")))
	return out
}
