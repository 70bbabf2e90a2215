package web_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"shop/store/demo"
	"shop/store/storetest"
	"shop/web"
)

func withSessionCache(d time.Duration) appOption {
	return func(_ storetest.Env, cfg *web.Config) { cfg.SessionCache = d }
}

// twoReplicas is the demo shop served twice on one table, each replica
// with its own request counter and the session cache as in production.
type twoReplicas struct {
	env            storetest.Env
	a, b           string
	countA, countB *storetest.Counter
}

func newTwoReplicas(t *testing.T, cache time.Duration) twoReplicas {
	t.Helper()
	s := newShop(t)
	r := twoReplicas{env: s.env, countA: &storetest.Counter{}, countB: &storetest.Counter{}}
	r.a, _ = startApp(t, s.env, s.env.Table, [][]byte{keyA}, withStore(r.countA), withSessionCache(cache))
	r.b, _ = startApp(t, s.env, s.env.Table, [][]byte{keyA}, withStore(r.countB), withSessionCache(cache))
	return r
}

// onBoth is one person's browser (one cookie jar) as seen by each
// replica: the jar keys cookies by host, not port.
func onBoth(t *testing.T, r twoReplicas) (onA, onB *browser) {
	onA = newBrowser(t, r.a)
	onB = newBrowser(t, r.b)
	onB.http = onA.http
	return onA, onB
}

// A signed-in visitor's pages read their session at most once a second
// per replica, and a save on one replica is never answered from the
// other's copy: the cookie names the save's version, so the flash set on
// A before a redirect shows on B, which had the session cached from
// before the save.
func TestSessionCacheServesNoStaleSave(t *testing.T) {
	t.Parallel()
	r := newTwoReplicas(t, 5*time.Second) // a moment long enough for a slow machine's loop below
	onA, onB := onBoth(t, r)
	onA.signIn(demo.CustomerEmail, demo.CustomerPassword)

	r.countB.Reset()
	wantSignedIn(t, onB.get("/account/sessions"), "B does not know the session")
	first := r.countB.Ops()["GetItem"]
	r.countB.Reset()
	for range 10 {
		wantSignedIn(t, onB.get("/account/sessions"), "B forgot the session")
	}
	if got, want := r.countB.Ops()["GetItem"], 10*(first-1); got != want {
		t.Errorf("10 more views on B made %d GetItems, want %d: the first's %d less the session's read each", got, want, first)
	}

	// Another browser of Ada's, so that A has a session to end and a flash
	// to show for it.
	laptop := newBrowser(t, r.a)
	laptop.signIn(demo.CustomerEmail, demo.CustomerPassword)
	onA.get("/account/sessions")
	wantStatus(t, "sign the others out on A", onA.post("/account/sessions/end-others", url.Values{}), http.StatusSeeOther)
	p := onB.get("/account/sessions") // the redirect, served by B
	wantText(t, "the flash after A's redirect, on B", p.testid("flash"), "Signed out")
	if p.testid("flash").Length() == 0 {
		t.Fatal("B answered the session as it was before A saved its flash")
	}
	wantSignedOut(t, newBrowserWith(t, r.a, laptop).get("/"), "the ended session still works on A")
}

// newBrowserWith is another replica's view of browser b.
func newBrowserWith(t *testing.T, base string, b *browser) *browser {
	o := newBrowser(t, base)
	o.http = b.http
	return o
}

// A revocation is refused at once on the replica that made it, and on
// every other within 2 s: sign-out, "sign out other sessions" (which a
// password change, a demotion and an erasure use too).
func TestSessionRevocationReachesEveryReplica(t *testing.T) {
	t.Parallel()
	r := newTwoReplicas(t, 0) // production's moment
	phoneA, phoneB := onBoth(t, r)
	phoneA.signIn(demo.CustomerEmail, demo.CustomerPassword)
	laptopA, laptopB := onBoth(t, r)
	laptopA.signIn(demo.CustomerEmail, demo.CustomerPassword)
	for _, b := range []*browser{phoneA, phoneB, laptopA, laptopB} {
		wantSignedIn(t, b.get("/"), "signed in on both replicas") // each replica has both cached
	}

	// The laptop signs the phone out on A: A refuses it at once, B within 2 s.
	laptopA.get("/account/sessions")
	wantStatus(t, "sign the others out", laptopA.post("/account/sessions/end-others", url.Values{}), http.StatusSeeOther)
	wantSignedOut(t, phoneA.get("/"), "A still answers the session it ended")
	refusedWithin(t, phoneB, 2*time.Second, "B, the session A ended")

	// The laptop signs out on B: A refuses it within 2 s.
	laptopB.get("/")
	wantStatus(t, "sign out on B", laptopB.post("/logout", url.Values{}), http.StatusSeeOther)
	wantSignedOut(t, laptopB.get("/"), "B still answers the session it signed out")
	refusedWithin(t, laptopA, 2*time.Second, "A, the session signed out on B")
}

// refusedWithin polls until b's session is refused, failing after d.
func refusedWithin(t *testing.T, b *browser, d time.Duration, what string) {
	t.Helper()
	began := time.Now()
	for b.get("/").testid("viewer-name").Length() != 0 {
		if time.Since(began) > d {
			t.Fatalf("%s: still signed in after %v", what, d)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("%s: refused after %v", what, time.Since(began).Round(time.Millisecond))
}
