package web_test

import (
	"net/http"
	"net/url"
	"testing"

	"shop/store/demo"
)

// A CSRF token is taken from the form body or the X-CSRF-Token header,
// never from the query string: a URL leaks into logs, history and Referer
// headers, and a link or a cross-site form's action can carry it.
func TestCSRFTokenInQueryStringRefused(t *testing.T) {
	t.Parallel()
	s := newShop(t)

	// A visitor's sign-up: the token in the URL, none in the body.
	v := s.browser(t)
	v.get("/signup")
	customers := s.env.CountEntities(t, "customer")
	form := url.Values{"_csrf": {""}, "email": {"query@example.com"}, "name": {"Query"}, "password": {"long enough password"}}
	p := v.post("/signup?_csrf="+url.QueryEscape(v.csrf), form)
	wantStatus(t, "sign-up with the token in the query string", p, http.StatusForbidden)
	if got := s.env.CountEntities(t, "customer"); got != customers {
		t.Fatalf("a refused sign-up wrote a customer (%d -> %d)", customers, got)
	}

	// A signed-in customer: neither alone nor over a forged body token.
	b := s.browser(t)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	b.get("/")
	for _, body := range []string{"", "forged"} {
		p := b.post("/logout?_csrf="+url.QueryEscape(b.csrf), url.Values{"_csrf": {body}})
		wantStatus(t, "sign-out with the token in the query string, body "+body, p, http.StatusForbidden)
	}
	wantSignedIn(t, b.get("/"), "a token in the query string signed the customer out")

	// The same token in the body works.
	p = b.post("/logout", url.Values{})
	wantStatus(t, "sign-out with the token in the body", p, http.StatusSeeOther)
	wantSignedOut(t, b.get("/"), "the sign-out with the body's token did not sign out")
}
