package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"shop/store"
	"shop/store/demo"
)

// Staff make a key (its secret shown once), see it listed, and revoke it
// after a confirmation; the API refuses it within seconds. Not parallel:
// the parallel races would slow the app past those seconds.
func TestAdminApiKeys(t *testing.T) {
	s := newShop(t, withAPIKeysEvery(300*time.Millisecond))
	b := s.staff(t)

	p := b.get("/admin/api-keys")
	wantStatus(t, "api keys", p, http.StatusOK)
	if p.testid("apikeys-empty").Length() != 1 {
		t.Fatal("no empty state")
	}
	if href, _ := p.testid("nav-apikeys").Attr("href"); href != "/admin/api-keys" {
		t.Fatalf("admin nav link to API keys: %q", href)
	}

	for _, tc := range []struct{ name, want string }{
		{"", "Name the system"},
		{"has space", "1 to 32 letters"},
		{strings.Repeat("x", 33), "1 to 32 letters"},
	} {
		p := b.post("/admin/api-keys", url.Values{"name": {tc.name}})
		wantStatus(t, "bad name "+tc.name, p, http.StatusUnprocessableEntity)
		if got := p.testid("error-name").Text(); !strings.Contains(got, tc.want) {
			t.Fatalf("name %q: error %q, want %q", tc.name, got, tc.want)
		}
	}

	p = b.post("/admin/api-keys", url.Values{"name": {"partner"}})
	wantStatus(t, "make a key", p, http.StatusCreated)
	secret, _ := p.testid("apikey-secret").Attr("value")
	if !strings.HasPrefix(secret, "shop_") {
		t.Fatalf("secret %q", secret)
	}
	if got := p.testid("apikey-created").Text(); !strings.Contains(got, "copy it now, it is not shown again") {
		t.Fatalf("no warning that the secret is shown once: %q", got)
	}
	if cc := p.header.Get("Cache-Control"); !strings.Contains(cc, "no-store") {
		t.Fatalf("the page with the secret may be cached: %q", cc)
	}
	if p.testid("apikey-row").Length() != 1 || p.testid("apikey-name").Text() != "partner" {
		t.Fatalf("the new key is not listed")
	}

	// The secret works on the API, and is never shown again.
	api := newAPIClient(t, s.base, secret)
	deadline := time.Now().Add(2 * time.Second)
	for {
		r := api.do(http.MethodGet, "/api/v1/drops/no-such-drop", "")
		if r.status == http.StatusNotFound {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the new key does not work: %d %s", r.status, r.body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	p = b.get("/admin/api-keys")
	if strings.Contains(p.body, secret) || p.testid("apikey-created").Length() != 0 {
		t.Fatal("the list shows the secret again")
	}
	if got := p.testid("apikey-state").Text(); got != "active" {
		t.Fatalf("state %q", got)
	}
	p = b.post("/admin/api-keys", url.Values{"name": {"partner"}})
	wantStatus(t, "a second key of one name", p, http.StatusUnprocessableEntity)
	if !strings.Contains(p.testid("error-name").Text(), "in use") {
		t.Fatalf("duplicate name: %q", p.testid("error-name").Text())
	}

	// Revoking asks first.
	p = b.get("/admin/api-keys")
	href, ok := p.testid("apikey-revoke").Attr("href")
	if !ok || href != "/admin/api-keys/"+store.HashAPIKey(secret)+"/revoke" {
		t.Fatalf("revoke link %q", href)
	}
	confirm := b.get(href)
	wantStatus(t, "confirm revoke", confirm, http.StatusOK)
	if confirm.testid("apikey-revoke-form").Length() != 1 || !strings.Contains(confirm.body, "partner") {
		t.Fatal("no confirmation form")
	}
	// Still active: looking at the confirmation revokes nothing.
	api.do(http.MethodGet, "/api/v1/drops/no-such-drop", "").want(t, "before the revoke", http.StatusNotFound, "not_found")

	bad := b.post(href, url.Values{"_csrf": {"forged"}})
	wantStatus(t, "revoke without the form's token", bad, http.StatusForbidden)
	p = b.post(href, url.Values{})
	wantStatus(t, "revoke", p, http.StatusSeeOther)
	if loc := p.header.Get("Location"); loc != "/admin/api-keys" {
		t.Fatalf("redirect to %q", loc)
	}
	p = b.get("/admin/api-keys")
	if !strings.Contains(p.testid("flash").Text(), "Revoked the key of partner") {
		t.Fatalf("flash %q", p.testid("flash").Text())
	}
	if got := p.testid("apikey-state").Text(); !strings.HasPrefix(got, "revoked") || p.testid("apikey-revoke").Length() != 0 {
		t.Fatalf("state %q after revoking", got)
	}
	revoked := time.Now()
	for {
		r := api.do(http.MethodGet, "/api/v1/drops/no-such-drop", "")
		if r.status == http.StatusUnauthorized {
			break
		}
		if time.Since(revoked) > 3*time.Second {
			t.Fatal("the revoked key works 3 s later")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Revoking again, or an unknown key, changes nothing.
	p = b.post(href, url.Values{})
	wantStatus(t, "revoke again", p, http.StatusSeeOther)
	p = b.get("/admin/api-keys/" + strings.Repeat("0", 64) + "/revoke")
	wantStatus(t, "unknown key", p, http.StatusNotFound)
	// A new key of the revoked one's name may be made.
	p = b.post("/admin/api-keys", url.Values{"name": {"partner"}})
	wantStatus(t, "a new key of a revoked name", p, http.StatusCreated)
}

// The keys page is for staff only.
func TestAdminApiKeysForStaffOnly(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	visitor := s.browser(t)
	p := visitor.get("/admin/api-keys")
	wantStatus(t, "visitor", p, http.StatusSeeOther)
	customer := s.browser(t)
	customer.signIn(demo.CustomerEmail, demo.CustomerPassword)
	wantStatus(t, "customer", customer.get("/admin/api-keys"), http.StatusForbidden)
	customer.get("/")
	wantStatus(t, "customer makes a key", customer.post("/admin/api-keys", url.Values{"name": {"mine"}}), http.StatusForbidden)
	if n := s.env.CountEntities(t, "apiKey"); n != 0 {
		t.Fatalf("%d keys made by non-staff", n)
	}
}
