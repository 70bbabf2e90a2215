package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"shop/store/demo"
)

// The app leaves UnescapePath off (web/app.go says why): a path part with
// %-escapes reaches its handler as written, and is refused as no id at all,
// a clean 404 on the shop's error page, never a 500. %41 is "A" and %2D
// "-": cf%2Dlight would be a real product, unescaped.
func TestEscapedPathsAreCleanRefusals(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	customer := s.browser(t)
	customer.signIn(demo.CustomerEmail, demo.CustomerPassword)
	staff := s.staff(t)

	escaped := []string{"%41BC", "cf%2Dlight", "%2e%2e", "a%2Fb", "%00", "%25", "%E2%80%AE"}
	gets := map[*browser][]string{
		s.browser(t): {"/products/{}", "/products/{}/stock", "/drops/{}", "/drops/{}/count", "/drops/{}/claim",
			"/media/photos/{}/320.jpg", "/media/drawn/coffee/{}", "/media/drawn/{}/x.svg"},
		customer: {"/orders/{}", "/orders/{}/cancel", "/receipts/{}", "/account/addresses/{}"},
		staff: {"/admin/products/{}", "/admin/orders/{}", "/admin/orders/o/shipments/{}/slip", "/admin/orders/{}/returns/{}",
			"/admin/customers/{}", "/admin/customers/c/receipts/{}", "/admin/warehouses/{}", "/admin/drops/{}",
			"/admin/invoices/{}", "/admin/shipments/{}", "/admin/outbox/{}", "/admin/api-keys/{}/revoke",
			"/admin/api-keys/{}/rotate", "/admin/api-keys/integrations/{}/revoke",
			"/admin/jobs/{}/runs", "/admin/jobs/{}/runs/{}", "/admin/dashboard/{}", "/admin/archive/{}/{}"},
	}
	posts := map[*browser][]string{
		customer: {"/cart/items/{}", "/cart/items/{}/remove", "/orders/{}/cancel", "/subscriptions/{}/skip",
			"/account/addresses/{}/delete", "/drops/{}/claim", "/tickets/{}/buy"},
		staff: {"/admin/products/{}", "/admin/products/{}/low-stock", "/admin/orders/{}/refunds",
			"/admin/customers/{}/role", "/admin/warehouses/{}/stock", "/admin/drops/{}/close", "/admin/jobs/{}/run"},
	}
	want := func(method, path string, p page) {
		t.Helper()
		if p.status != http.StatusNotFound && p.status != http.StatusBadRequest {
			t.Errorf("%s %s: %d, want 404 or 400\n%s", method, path, p.status, trim(p.body))
			return
		}
		if p.testid("error-message").Length() == 0 && !strings.HasPrefix(path, "/media/") && !strings.HasSuffix(path, "/count") {
			t.Errorf("%s %s: %d without the shop's error page", method, path, p.status)
		}
	}
	for b, routes := range gets {
		for _, r := range routes {
			for _, e := range escaped {
				path := strings.ReplaceAll(r, "{}", e)
				want(http.MethodGet, path, b.get(path))
			}
		}
	}
	for b, routes := range posts {
		b.get("/")
		for _, r := range routes {
			for _, e := range escaped {
				path := strings.ReplaceAll(r, "{}", e)
				want(http.MethodPost, path, b.post(path, url.Values{"quantity": {"1"}}))
			}
		}
	}
	// A session's handle is no id: one that is none of the customer's
	// sessions is told as already ended, as a handle gone stale would be.
	customer.get("/account/sessions")
	for _, e := range escaped {
		path := "/account/sessions/" + e + "/end"
		if p := customer.post(path, url.Values{}); p.status != http.StatusSeeOther || p.header.Get("Location") != "/account/sessions" {
			t.Errorf("POST %s: %d to %q, want 303 back to the sessions", path, p.status, p.header.Get("Location"))
		}
	}
	staff.get("/admin/products/cf-light")
	for _, e := range escaped {
		want(http.MethodPost, "/admin/products/"+e+"/photo", staff.uploadPhoto(e, "p.png", "image/png", testPNG(t, 20, 20, 255)))
	}
	if strings.Contains(s.log.String(), "level=ERROR") {
		t.Fatalf("an escaped path logged an error:\n%s", s.log.String())
	}
}
