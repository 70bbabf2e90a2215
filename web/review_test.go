package web_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"shop/store/demo"
)

func TestSignInGoesBackToNext(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.browser(t)
	b.get("/login?next=%2Fadmin%2Fwarehouses%3Fx%3D1")
	p := b.post("/login", url.Values{"email": {demo.StaffEmail}, "password": {demo.StaffPassword}, "next": {"/admin/warehouses?x=1"}})
	wantStatus(t, "sign in", p, http.StatusSeeOther)
	if loc := p.header.Get("Location"); loc != "/admin/warehouses?x=1" {
		t.Fatalf("after sign-in sent to %q", loc)
	}
	b.get("/login")
	p = b.post("/login", url.Values{"email": {demo.StaffEmail}, "password": {demo.StaffPassword}, "next": {"/\r\nSet-Cookie: x=y"}})
	if loc := p.header.Get("Location"); loc != "/" || p.header.Get("Set-Cookie") == "x=y" {
		t.Fatalf("a hostile next became Location %q", loc)
	}
	// Asked from nowhere, staff land on the console, a customer in the shop.
	for who, want := range map[string]string{demo.StaffEmail: "/admin", demo.CustomerEmail: "/"} {
		password := map[string]string{demo.StaffEmail: demo.StaffPassword, demo.CustomerEmail: demo.CustomerPassword}[who]
		p := s.browser(t).postLogin(who, password)
		if loc := p.header.Get("Location"); p.status != http.StatusSeeOther || loc != want {
			t.Errorf("%s signed in: %d to %q, want %q", who, p.status, loc, want)
		}
	}
}

// The session from before sign-in is dead after it (no session fixation).
func TestSignInIssuesNewSession(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.browser(t)
	b.get("/login")
	before := b.cookies()
	if cookieNamed(before, "shop_session") != nil || cookieNamed(before, "shop_visitor") == nil {
		t.Fatalf("a visitor's sign-in page set %v, want the visitor cookie only", before)
	}
	oldToken := b.csrf
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	after := b.cookies()
	if cookieNamed(after, "shop_session") == nil || cookieNamed(after, "shop_visitor") != nil {
		t.Fatalf("after sign-in the cookies are %v, want the session's only", after)
	}
	fixed := s.browser(t)
	fixed.setCookies(before)
	wantSignedOut(t, fixed.get("/"), "the pre-sign-in cookie is signed in")
	// Nor does the visitor's CSRF token work in the signed-in session.
	p := b.post("/logout", url.Values{"_csrf": {oldToken}})
	wantStatus(t, "old token", p, http.StatusForbidden)
}

func cookieNamed(cs []*http.Cookie, name string) *http.Cookie {
	for _, c := range cs {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func TestCSRFTokenOfAnotherSessionIsRefused(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	a, b := s.browser(t), s.browser(t)
	a.signIn(demo.CustomerEmail, demo.CustomerPassword)
	b.signIn(demo.StaffEmail, demo.StaffPassword)
	a.get("/")
	b.get("/")
	p := a.post("/logout", url.Values{"_csrf": {b.csrf}})
	wantStatus(t, "someone else's token", p, http.StatusForbidden)
}

func TestHTMXPartialLeavesTheFlash(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.browser(t)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	p := b.get("/products/cf-grinder/stock", "HX-Request", "true")
	wantStatus(t, "stock poll", p, http.StatusOK)
	if got := b.get("/").testid("flash").Text(); !strings.Contains(got, "Welcome back") {
		t.Fatalf("the flash was eaten by a partial: %q", got)
	}
}

func TestBadInputIsNever500(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.browser(t)
	long := strings.Repeat("a", 3000) + "@example.com"
	p := b.postLogin(long, "x")
	wantStatus(t, "long email", p, http.StatusUnprocessableEntity)
	if p.testid("error-email").Length() == 0 {
		t.Fatal("no message at the email field")
	}

	staff := s.browser(t)
	staff.signIn(demo.StaffEmail, demo.StaffPassword)
	first := staff.get("/admin/warehouses/gbg?sort=id")
	next, _ := first.testid("inventory-more").Attr("href")
	cursor, _ := url.Parse(next)
	raw, _ := base64.RawURLEncoding.DecodeString(cursor.Query().Get("after"))
	tampered := strings.Replace(string(raw), `"GSI2-SK":"p#`, `"GSI2-SK":"zzz`, 1)
	if tampered == string(raw) {
		t.Fatalf("cursor %s has no GSI2-SK to tamper with", raw)
	}
	wantStatus(t, "cursor inside the partition but outside the query", staff.get("/admin/warehouses/gbg?after="+base64.RawURLEncoding.EncodeToString([]byte(tampered))), http.StatusBadRequest)

	for _, path := range []string{"/%zz", "/products/a%2"} {
		req, _ := http.NewRequest(http.MethodGet, s.base+"/", nil)
		req.URL.Opaque = path // sent as typed, malformed
		p := b.do(req)
		if p.status >= 500 {
			t.Errorf("%s: status %d", path, p.status)
		}
	}
	if strings.Contains(s.log.String(), "level=ERROR") {
		t.Fatalf("bad input was logged as an error:\n%s", s.log.String())
	}
}

// Every staff action refuses a signed-in customer, with a valid CSRF token.
func TestAdminActionsRefuseCustomers(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.browser(t)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	b.get("/")
	for _, path := range []string{
		"/admin/warehouses/gbg/stock", "/admin/products", "/admin/products/cf-grinder",
		"/admin/orders/x/shipments", "/admin/orders/x/shipments/y", "/admin/orders/x/shipments/y/undo", "/admin/giftcards", "/admin/discounts",
	} {
		p := b.post(path, url.Values{"product_id": {"cf-grinder"}, "delta": {"5"}, "reason": {"x"}, "name": {"x"}, "amount": {"10"}})
		wantStatus(t, "customer POST "+path, p, http.StatusForbidden)
	}
	for _, path := range []string{"/admin/orders.csv", "/admin/customers", "/admin/invoices/x", "/admin/shipments", "/admin/orders/x/shipments/y/slip", "/ADMIN/orders", "/admin//orders"} {
		if p := b.get(path); p.status != http.StatusForbidden && p.status != http.StatusNotFound {
			t.Errorf("customer GET %s: %d", path, p.status)
		}
	}
	if p, _ := s.env.Store.ProductStock(context.Background(), "cf-grinder"); len(p) == 0 {
		t.Fatal("no stock read")
	}
}
