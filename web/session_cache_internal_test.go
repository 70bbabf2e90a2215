package web

import (
	"testing"
	"time"

	"github.com/gorilla/sessions"

	"shop/handlers/page"
	"shop/store"
)

// The session cache answers only the version it was given, for its
// moment, with values of each request's own.
func TestSessionCacheEntries(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	c := newSessionCache(time.Second)
	c.now = func() time.Time { return now }
	c.put("s1", "v1", store.Session{ID: "s1", CustomerID: "ada"}, map[any]any{"name": "Ada"}, false)

	cases := []struct {
		name, id, version string
		after             time.Duration
		hit               bool
	}{
		{"the version saved", "s1", "v1", 0, true},
		{"a later save's version", "s1", "v2", 0, false},
		{"a cookie without a version", "s1", "", 0, false},
		{"another session", "s2", "v1", 0, false},
		{"within its moment", "s1", "v1", 999 * time.Millisecond, true},
		{"after its moment", "s1", "v1", time.Second, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c.now = func() time.Time { return now.Add(tc.after) }
			e, ok := c.get(tc.id, tc.version)
			if ok != tc.hit {
				t.Fatalf("hit %v, want %v", ok, tc.hit)
			}
			if ok && (e.rec.CustomerID != "ada" || e.values["name"] != "Ada" || e.gone) {
				t.Errorf("entry %+v", e)
			}
		})
	}

	// The cache's values are shared by the session's requests: a visit
	// changes a copy of its own.
	c.now = func() time.Time { return now }
	e, _ := c.get("s1", "v1")
	v := &page.Visit{Session: &sessions.Session{Values: e.values}, ValuesShared: true}
	v.Set("name", "Changed by a handler")
	v.Delete("role")
	if again, _ := c.get("s1", "v1"); again.values["name"] != "Ada" || len(again.values) != 1 {
		t.Errorf("a request's change reached the cache: %v", again.values)
	}
	if v.Session.Values["name"] != "Changed by a handler" || !v.Changed {
		t.Errorf("the visit's own values %v, changed %v", v.Session.Values, v.Changed)
	}
	c.touched("s1", "v1", now.Add(time.Minute))
	if again, _ := c.get("s1", "v1"); !again.rec.LastSeenAt.Equal(now.Add(time.Minute)) {
		t.Errorf("last seen %v after a touch", again.rec.LastSeenAt)
	}
	c.forget("s1")
	if _, ok := c.get("s1", "v1"); ok {
		t.Error("a forgotten session is still answered")
	}
	c.put("s3", "v1", store.Session{}, nil, true)
	if e, ok := c.get("s3", "v1"); !ok || !e.gone {
		t.Errorf("a revoked session read: %+v, %v", e, ok)
	}
	var none *sessionCache
	if _, ok := none.get("s1", "v1"); ok {
		t.Error("no cache answered")
	}
}

// A cookie value decoded once is known for the moment by its exact bytes
// (so a changed byte is checked again, and refused if forged).
func TestSessionCacheKnowsACheckedCookieAMoment(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	c := newSessionCache(time.Second)
	c.now = func() time.Time { return now }
	c.checked("MTc2NDQxMjAwMHxzaWduZWQ=", "s1.v1")
	for _, tc := range []struct {
		name, value string
		after       time.Duration
		known       bool
	}{
		{"the value checked", "MTc2NDQxMjAwMHxzaWduZWQ=", 0, true},
		{"a byte changed", "MTc2NDQxMjAwMHxzaWduZWR=", 0, false},
		{"within its moment", "MTc2NDQxMjAwMHxzaWduZWQ=", 999 * time.Millisecond, true},
		{"after its moment", "MTc2NDQxMjAwMHxzaWduZWQ=", time.Second, false},
	} {
		c.now = func() time.Time { return now.Add(tc.after) }
		payload, ok := c.decoded(tc.value)
		if ok != tc.known || ok && payload != "s1.v1" {
			t.Errorf("%s: %q, %v; want known %v", tc.name, payload, ok, tc.known)
		}
	}
	var none *sessionCache
	if _, ok := none.decoded("x"); ok {
		t.Error("no cache knows a cookie")
	}
}
