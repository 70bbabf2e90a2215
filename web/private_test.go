package web_test

import (
	"net/http"
	"strings"
	"testing"

	"shop/store/demo"
	"shop/web/paths"
)

// Every answer to a signed-in visit is kept from shared caches: each GET
// route of the app, as staff (who reach the console too), pages, downloads
// (the CSV exports, the privacy export) and error pages alike. Only the
// routes outside the session are left out: they read no session, so
// nothing in their answers is anybody's own.
func TestEverySignedInAnswerIsPrivate(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	routes := appRoutes(t, s.env.Store)
	staff := s.staff(t)
	m := newOrderMaker(t, s.env.Store)
	o := m.place(s.env.Store, s.customerID(t, demo.StaffEmail), line("cf-grinder", 1))
	d := s.openDrop(t, "Private drop", 5)
	staff.claim(d.ID, true)

	const want = "private, no-store"
	outside := []string{"/api/", "/media/", "/static/", "/healthz", "/readyz", "/metrics", "/drops/:id/count"}
	statuses := map[int]int{}
	walked := 0
routes:
	for _, r := range routes {
		if r.method != http.MethodGet {
			continue
		}
		for _, prefix := range outside {
			if strings.HasPrefix(r.pattern, prefix) {
				continue routes
			}
		}
		// Real ids where they are easy to have, so that most pages answer
		// 200; any other parameter is nobody's id, for a 404 page.
		path := r.pattern
		switch {
		case strings.HasPrefix(path, "/admin/drops/:id"), strings.HasPrefix(path, "/drops/:id"), strings.HasPrefix(path, "/tickets/:id"):
			path = strings.Replace(path, ":id", d.ID, 1)
		case strings.HasPrefix(path, "/admin/orders/:id"), strings.HasPrefix(path, "/orders/:id"):
			path = strings.Replace(path, ":id", o.ID, 1)
		}
		path = fiberParam.ReplaceAllString(path, "nobodys")
		p := staff.get(path)
		walked++
		statuses[p.status]++
		if got := p.header.Get("Cache-Control"); got != want {
			t.Errorf("GET %s (route %s) answered %d with Cache-Control %q, want %q", path, r.pattern, p.status, got, want)
		}
	}
	t.Logf("%d GET routes walked; statuses %v", walked, statuses)
	if walked < 40 || statuses[http.StatusOK] < 25 {
		t.Fatalf("walked %d routes, %d answered 200: the walk missed the app", walked, statuses[http.StatusOK])
	}

	// The downloads, each answered whole.
	for _, path := range []string{paths.AccountData, "/admin/orders.csv", "/admin/drops/" + d.ID + "/tickets.csv"} {
		p := staff.get(path)
		wantStatus(t, path, p, http.StatusOK)
		if got := p.header.Get("Cache-Control"); got != want || p.header.Get("Content-Disposition") == "" {
			t.Errorf("download %s: Cache-Control %q, Content-Disposition %q", path, got, p.header.Get("Content-Disposition"))
		}
	}
}
