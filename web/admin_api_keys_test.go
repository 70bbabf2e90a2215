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

// waitForStatus asks GET path with the key until it is answered status,
// for at most within.
func waitForStatus(t *testing.T, c *apiClient, path string, status int, within time.Duration) time.Duration {
	t.Helper()
	began := time.Now()
	for {
		r := c.do(http.MethodGet, path, "")
		if r.status == status {
			return time.Since(began)
		}
		if time.Since(began) > within {
			t.Fatalf("GET %s still answers %d after %v, want %d: %s", path, r.status, within, status, r.body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Staff add an integration (its first key's secret shown once), see it
// listed, issue another key, rotate one, revoke one after a confirmation,
// and revoke the integration; the API follows within seconds, and the
// name is never used again. Parallel: its bounds (2 s for a new key, 3 s
// for a revoked one, with keys reloaded every 300 ms) are those of the
// parallel API tests' waitForKey; the claim races that could slow the app
// past them run alone.
func TestAdminApiKeys(t *testing.T) {
	t.Parallel()
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
		{"", "Name the integration"},
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
	wantStatus(t, "add an integration", p, http.StatusCreated)
	first, _ := p.testid("apikey-secret").Attr("value")
	if !strings.HasPrefix(first, "shop_") {
		t.Fatalf("secret %q", first)
	}
	if got := p.testid("apikey-created").Text(); !strings.Contains(got, "copy it now, it is not shown again") {
		t.Fatalf("no warning that the secret is shown once: %q", got)
	}
	if cc := p.header.Get("Cache-Control"); !strings.Contains(cc, "no-store") {
		t.Fatalf("the page with the secret may be cached: %q", cc)
	}
	if p.testid("integration").Length() != 1 || p.testid("integration-name").Text() != "partner" || p.testid("apikey-row").Length() != 1 {
		t.Fatalf("the new integration and its key are not listed")
	}

	// The secret works on the API, and is never shown again.
	api := newAPIClient(t, s.base, first)
	waitForKey(t, api)
	d := api.makeDrop(dropBody("Partner's", 5))
	api.claim(d.ID, "c1").want(t, "claim", http.StatusCreated, "")
	p = b.get("/admin/api-keys")
	if strings.Contains(p.body, first) || p.testid("apikey-created").Length() != 0 {
		t.Fatal("the list shows the secret again")
	}
	if got := p.testid("apikey-state").Text(); got != "active" {
		t.Fatalf("state %q", got)
	}
	p = b.post("/admin/api-keys", url.Values{"name": {"partner"}})
	wantStatus(t, "a second integration of one name", p, http.StatusUnprocessableEntity)
	wantText(t, "duplicate name", p.testid("error-name"), "exists or existed")

	// Another key of the integration: both work, on the same drops.
	p = b.get("/admin/api-keys")
	issue, _ := p.testid("integration-issue").Parents().Filter("form").Attr("action")
	if issue != "/admin/api-keys/integrations/partner/keys" {
		t.Fatalf("issue form posts to %q", issue)
	}
	p = b.post(issue, url.Values{})
	wantStatus(t, "issue another key", p, http.StatusCreated)
	second, _ := p.testid("apikey-secret").Attr("value")
	if !strings.HasPrefix(second, "shop_") || second == first || p.testid("apikey-row").Length() != 2 {
		t.Fatalf("second secret %q, %d keys listed", second, p.testid("apikey-row").Length())
	}
	api2 := newAPIClient(t, s.base, second)
	waitForKey(t, api2)
	api2.do(http.MethodGet, "/api/v1/drops/"+d.ID, "").want(t, "the second key reads the integration's drop", http.StatusOK, "")

	// Revoking the first asks first.
	rowOf := func(p page, secret string) *goquerySelection {
		return p.doc.Find(`[data-testid="apikey-row"][data-id="` + store.HashAPIKey(secret) + `"]`)
	}
	p = b.get("/admin/api-keys")
	href, ok := rowOf(p, first).Find(`[data-testid="apikey-revoke"]`).Attr("href")
	if !ok || href != "/admin/api-keys/"+store.HashAPIKey(first)+"/revoke" {
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
	wantText(t, "flash", p.testid("flash"), "Revoked the key of partner")
	if got := rowOf(p, first).Find(`[data-testid="apikey-state"]`).Text(); !strings.HasPrefix(got, "revoked") || rowOf(p, first).Find(`[data-testid="apikey-revoke"]`).Length() != 0 {
		t.Fatalf("state %q after revoking", got)
	}
	t.Logf("a revoked key refused after %v", waitForStatus(t, api, "/api/v1/drops/no-such-drop", http.StatusUnauthorized, 3*time.Second))
	api2.do(http.MethodGet, "/api/v1/drops/"+d.ID, "").want(t, "the other key after the first was revoked", http.StatusOK, "")
	// Revoking again, or an unknown key, changes nothing.
	wantStatus(t, "revoke again", b.post(href, url.Values{}), http.StatusSeeOther)
	wantStatus(t, "unknown key", b.get("/admin/api-keys/"+strings.Repeat("0", 64)+"/revoke"), http.StatusNotFound)

	// Rotating the second: a new secret at once, the old one refused, the
	// drop and its client's ticket carry on.
	p = b.get("/admin/api-keys")
	href, _ = rowOf(p, second).Find(`[data-testid="apikey-rotate"]`).Attr("href")
	if href != "/admin/api-keys/"+store.HashAPIKey(second)+"/rotate" {
		t.Fatalf("rotate link %q", href)
	}
	confirm = b.get(href)
	wantStatus(t, "confirm rotate", confirm, http.StatusOK)
	if confirm.testid("apikey-rotate-form").Length() != 1 {
		t.Fatal("no confirmation form")
	}
	p = b.post(href, url.Values{})
	wantStatus(t, "rotate", p, http.StatusCreated)
	third, _ := p.testid("apikey-secret").Attr("value")
	wantText(t, "rotated", p.testid("apikey-created"), "in place of "+store.HashAPIKey(second)[:12])
	api3 := newAPIClient(t, s.base, third)
	waitForKey(t, api3)
	var got struct {
		Claimed int `json:"claimed"`
	}
	api3.do(http.MethodGet, "/api/v1/drops/"+d.ID, "").decode(t, &got)
	if got.Claimed != 1 {
		t.Fatalf("the rotated key sees %d claimed, want 1", got.Claimed)
	}
	api3.claim(d.ID, "c1").want(t, "the client's ticket kept (a repeat claim answers it)", http.StatusOK, "")
	waitForStatus(t, api2, "/api/v1/drops/no-such-drop", http.StatusUnauthorized, 3*time.Second)
	wantStatus(t, "rotate a revoked key", b.post(href, url.Values{}), http.StatusSeeOther)

	// Revoking the integration: every key of it refused, no new key, and
	// its name taken for good.
	p = b.get("/admin/api-keys")
	href, _ = p.testid("integration-revoke").Attr("href")
	if href != "/admin/api-keys/integrations/partner/revoke" {
		t.Fatalf("revoke integration link %q", href)
	}
	confirm = b.get(href)
	wantStatus(t, "confirm revoke integration", confirm, http.StatusOK)
	if confirm.testid("integration-revoke-form").Length() != 1 {
		t.Fatal("no confirmation form")
	}
	p = b.post(href, url.Values{})
	wantStatus(t, "revoke integration", p, http.StatusSeeOther)
	p = b.get("/admin/api-keys")
	wantText(t, "flash", p.testid("flash"), "Revoked partner")
	if got := p.testid("integration-state").Text(); !strings.HasPrefix(got, "revoked") || p.testid("integration-issue").Length() != 0 || p.testid("apikey-rotate").Length() != 0 {
		t.Fatalf("integration state %q after revoking", got)
	}
	waitForStatus(t, api3, "/api/v1/drops/no-such-drop", http.StatusUnauthorized, 3*time.Second)
	p = b.post(issue, url.Values{})
	wantStatus(t, "issue a key of a revoked integration", p, http.StatusSeeOther)
	wantText(t, "flash", b.get("/admin/api-keys").testid("flash"), "partner is revoked")
	if n := s.env.CountEntities(t, "apiKey"); n != 3 {
		t.Fatalf("%d keys, want 3", n)
	}
	p = b.post("/admin/api-keys", url.Values{"name": {"partner"}})
	wantStatus(t, "a revoked integration's name", p, http.StatusUnprocessableEntity)
	wantText(t, "reused name", p.testid("error-name"), "exists or existed")
	wantStatus(t, "unknown integration", b.get("/admin/api-keys/integrations/nobody/revoke"), http.StatusNotFound)
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
	wantStatus(t, "customer adds an integration", customer.post("/admin/api-keys", url.Values{"name": {"mine"}}), http.StatusForbidden)
	if n := s.env.CountEntities(t, "apiKey") + s.env.CountEntities(t, "integration"); n != 0 {
		t.Fatalf("%d keys and integrations made by non-staff", n)
	}
}
