package web_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"shop/store/demo"
)

func TestSignUpSignInSignOut(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.browser(t)

	b.get("/signup")
	p := b.post("/signup", url.Values{"email": {"Grace@Example.com"}, "name": {"Grace Hopper"}, "password": {"a long enough password"}})
	wantStatus(t, "sign up", p, http.StatusSeeOther)
	if loc := p.header.Get("Location"); loc != "/" {
		t.Fatalf("sign up redirects to %q", loc)
	}
	home := b.get("/")
	if got := home.testid("viewer-name").Text(); got != "Grace Hopper" {
		t.Fatalf("after sign-up the page shows %q as the viewer", got)
	}
	if !strings.Contains(home.testid("flash").Text(), "Welcome, Grace Hopper") {
		t.Fatalf("no welcome message: %q", home.testid("flash").Text())
	}
	if again := b.get("/"); again.testid("flash").Length() != 0 {
		t.Fatal("the flash message is shown twice")
	}

	stolen := b.cookies() // a copy of the signed-in cookie
	p = b.post("/logout", url.Values{})
	wantStatus(t, "sign out", p, http.StatusSeeOther)
	wantSignedOut(t, b.get("/"), "still signed in after signing out")

	thief := s.browser(t)
	thief.setCookies(stolen)
	if got := thief.get("/"); got.testid("viewer-name").Length() != 0 || got.testid("nav-login").Length() == 0 {
		t.Fatal("a copy of the cookie still signs in after sign-out: the session was not revoked")
	}

	b.signIn("grace@example.com", "a long enough password")
	if got := b.get("/").testid("viewer-name").Text(); got != "Grace Hopper" {
		t.Fatalf("after sign-in the page shows %q", got)
	}
}

func TestSignInRejectsWrongPasswordAndUnknownEmail(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.browser(t)
	for _, tc := range []struct{ email, password, field string }{
		{demo.CustomerEmail, "wrong password!", "form-error"},
		{"nobody@example.com", "whatever password", "form-error"},
		{"", "x", "error-email"},
		{demo.CustomerEmail, "", "error-password"},
	} {
		p := b.postLogin(tc.email, tc.password)
		wantStatus(t, "bad sign-in "+tc.email, p, http.StatusUnprocessableEntity)
		if p.testid(tc.field).Length() == 0 {
			t.Errorf("sign-in %q/%q: no %s on the form", tc.email, tc.password, tc.field)
		}
		if v, _ := p.testid("field-email").Attr("value"); v != tc.email {
			t.Errorf("the form lost the typed email: %q", v)
		}
	}
	wantSignedOut(t, b.get("/"), "signed in after failures")
}

func TestSignInIsRateLimitedPerEmail(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.browser(t)
	b.get("/login")
	var last page
	for range 11 {
		last = b.post("/login", url.Values{"email": {demo.CustomerEmail}, "password": {"guessing wrong"}})
	}
	wantStatus(t, "11th attempt", last, http.StatusTooManyRequests)
	// Even the right password is refused until the window passes.
	p := b.post("/login", url.Values{"email": {demo.CustomerEmail}, "password": {demo.CustomerPassword}})
	wantStatus(t, "right password while limited", p, http.StatusTooManyRequests)
	// Another email from the same address is still allowed.
	p = b.post("/login", url.Values{"email": {demo.StaffEmail}, "password": {demo.StaffPassword}})
	wantStatus(t, "another account", p, http.StatusSeeOther)
}

func TestSignUpBadInputIs422AndWritesNothing(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	for _, tc := range []struct {
		name                  string
		email, fullName, pass string
		errorAt               []string
	}{
		{"malformed email", "not-an-email", "Ann", "long enough password", []string{"email"}},
		{"email without domain dot", "ann@localhost", "Ann", "long enough password", []string{"email"}},
		{"short password", "ann@example.com", "Ann", "short", []string{"password"}},
		{"empty name", "ann@example.com", "   ", "long enough password", []string{"name"}},
		{"everything wrong", "x", "", "", []string{"email", "name", "password"}},
		{"email taken", demo.CustomerEmail, "Impostor", "long enough password", []string{"email"}},
		{"email taken, other case", strings.ToUpper(demo.CustomerEmail), "Impostor", "long enough password", []string{"email"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := s.browser(t)
			b.get("/signup")
			customersBefore := s.env.CountEntities(t, "customer")
			emailsBefore := s.env.CountEntities(t, "email")
			p := b.post("/signup", url.Values{"email": {tc.email}, "name": {tc.fullName}, "password": {tc.pass}})
			wantStatus(t, tc.name, p, http.StatusUnprocessableEntity)
			for _, field := range tc.errorAt {
				if msg := p.testid("error-" + field).Text(); msg == "" {
					t.Errorf("no message at %s", field)
				}
			}
			if v, _ := p.testid("field-email").Attr("value"); v != strings.TrimSpace(tc.email) {
				t.Errorf("email not kept in the form: %q", v)
			}
			if v, _ := p.testid("field-password").Attr("value"); v != "" {
				t.Error("the password is echoed back into the page")
			}
			if got := s.env.CountEntities(t, "customer"); got != customersBefore {
				t.Errorf("customers %d -> %d: something was written", customersBefore, got)
			}
			if got := s.env.CountEntities(t, "email"); got != emailsBefore {
				t.Errorf("email items %d -> %d: something was written", emailsBefore, got)
			}
		})
	}
	// htmx gets the form alone, to swap in place.
	b := s.browser(t)
	b.get("/signup")
	p := b.post("/signup", url.Values{"email": {"bad"}, "name": {"A"}, "password": {"long enough password"}}, "HX-Request", "true")
	wantStatus(t, "htmx sign-up", p, http.StatusUnprocessableEntity)
	if strings.Contains(p.body, "<html") || p.doc.Find("header, footer").Length() != 0 || p.testid("signup-form").Length() != 1 {
		t.Fatalf("htmx got more than the form: %s", trim(p.body))
	}
	// And a good htmx sign-up is told where to go instead of a 303.
	p = b.post("/signup", url.Values{"email": {"hx@example.com"}, "name": {"Hx"}, "password": {"long enough password"}}, "HX-Request", "true")
	if p.header.Get("HX-Redirect") != "/" {
		t.Fatalf("htmx sign-up: status %d, HX-Redirect %q", p.status, p.header.Get("HX-Redirect"))
	}
}

func TestCSRFRefusedWithoutToken(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.browser(t)
	b.get("/signup")
	customers := s.env.CountEntities(t, "customer")
	for _, token := range []string{"", "forged-token"} {
		p := b.post("/signup", url.Values{"_csrf": {token}, "email": {"eve@example.com"}, "name": {"Eve"}, "password": {"long enough password"}})
		wantStatus(t, "sign-up with CSRF token "+token, p, http.StatusForbidden)
	}
	// A visitor with no session at all.
	fresh := s.browser(t)
	p := fresh.post("/login", url.Values{"_csrf": {""}, "email": {demo.CustomerEmail}, "password": {demo.CustomerPassword}})
	wantStatus(t, "sign-in without a session", p, http.StatusForbidden)
	if got := s.env.CountEntities(t, "customer"); got != customers {
		t.Fatalf("a refused request wrote a customer (%d -> %d)", customers, got)
	}

	// A signed-in customer is not signed out by a forged request.
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	p = b.post("/logout", url.Values{"_csrf": {"forged"}})
	wantStatus(t, "forged sign-out", p, http.StatusForbidden)
	wantSignedIn(t, b.get("/"), "forged sign-out signed the customer out")
	// The htmx header works as well as the form field.
	p = b.post("/logout", url.Values{"_csrf": {""}}, "X-CSRF-Token", b.csrf)
	wantStatus(t, "sign-out with header token", p, http.StatusSeeOther)
}

func TestCookieWithRetiredKeyOrTamperedIsSignedOut(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.browser(t)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	signedIn := b.cookies()

	// Rotation: a new key signs, the old one still verifies.
	rotated, _ := startApp(t, s.env, s.env.Table, [][]byte{keyB, keyA})
	r := newBrowser(t, rotated)
	r.setCookies(signedIn)
	wantSignedIn(t, r.get("/"), "a cookie signed with a key still listed stopped working")

	// Retired: the old key is gone.
	retired, logs := startApp(t, s.env, s.env.Table, [][]byte{keyB})
	x := newBrowser(t, retired)
	x.setCookies(signedIn)
	p := x.get("/")
	wantStatus(t, "retired key", p, http.StatusOK)
	wantSignedOut(t, p, "a cookie signed with a retired key still signs in")
	if !strings.Contains(logs.String(), "session cookie rejected") {
		t.Error("the rejected cookie was not logged")
	}

	// Tampered.
	tampered := newBrowser(t, s.base)
	i := slices.IndexFunc(signedIn, func(c *http.Cookie) bool { return c.Name == "shop_session" })
	if i < 0 {
		t.Fatalf("signed in without a session cookie: %v", signedIn)
	}
	c := *signedIn[i]
	c.Value = c.Value[:len(c.Value)-4] + "AAAA"
	tampered.setCookies([]*http.Cookie{&c})
	p = tampered.get("/")
	wantStatus(t, "tampered cookie", p, http.StatusOK)
	wantSignedOut(t, p, "a tampered cookie signs in")
}

func TestTwoProcessesShareSessions(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	other, _ := startApp(t, s.env, s.env.Table, [][]byte{keyA})
	b := s.browser(t)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	o := newBrowser(t, other)
	o.setCookies(b.cookies())
	wantSignedIn(t, o.get("/"), "the second process does not know the session")
	wantStatus(t, "sign out on the other process", o.post("/logout", url.Values{}), http.StatusSeeOther)
	wantSignedOut(t, b.get("/"), "signing out on one process left the session alive on the other")
}

func TestSessionCookieOptions(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.browser(t)
	p := b.postLogin(demo.CustomerEmail, demo.CustomerPassword)
	wantStatus(t, "sign in", p, http.StatusSeeOther)
	cookie := p.setCookie("shop_session")
	for _, want := range []string{"HttpOnly", "SameSite=Lax", "Path=/"} {
		if !strings.Contains(cookie, want) {
			t.Errorf("session cookie %q lacks %s", cookie, want)
		}
	}
	if strings.Contains(cookie, "Secure") {
		t.Errorf("cookie is Secure on plain HTTP: %q", cookie)
	}
}
