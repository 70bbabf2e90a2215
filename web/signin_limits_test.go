package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"shop/store/demo"
	"shop/store/storetest"
	"shop/web"
)

// behindProxy serves the app as if behind a reverse proxy on this machine
// that puts the client's address in X-Forwarded-For.
func behindProxy(_ storetest.Env, cfg *web.Config) {
	cfg.ProxyHeader, cfg.TrustedProxies = "X-Forwarded-For", []string{"127.0.0.1", "::1"}
}

// from posts the sign-in form as a client at addr.
func (b *browser) signInFrom(addr, email, password string) page {
	b.t.Helper()
	b.get("/login", "X-Forwarded-For", addr)
	return b.post("/login", url.Values{"email": {email}, "password": {password}}, "X-Forwarded-For", addr)
}

// Forty wrong passwords for one email sent at once: each attempt is
// counted before its password is checked, so no more than the limit are
// checked (the rest are refused), however they interleave.
func TestParallelGuessesAreCountedBeforeTheyAreChecked(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.browser(t)
	b.get("/login")
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	for range 40 {
		// One visitor's tabs: the same cookies, a browser struct each (it
		// notes the last page's token).
		tab := &browser{t: t, base: b.base, http: b.http, csrf: b.csrf}
		wg.Go(func() {
			p := tab.post("/login", url.Values{"email": {demo.CustomerEmail}, "password": {"guessing wrong"}})
			mu.Lock()
			statuses[p.status]++
			mu.Unlock()
		})
	}
	wg.Wait()
	checked, refused := statuses[http.StatusUnprocessableEntity], statuses[http.StatusTooManyRequests]
	if checked > 10 || checked+refused != 40 {
		t.Fatalf("of 40 parallel guesses %d were checked and %d refused (%v), want at most 10 checked", checked, refused, statuses)
	}
}

// An attacker's wrong guesses from one address lock only that address out
// of that account: the owner elsewhere signs in, and a client cannot
// choose its own bucket by writing X-Forwarded-For itself.
func TestGuessesFromOneAddressDoNotLockTheOwnerOut(t *testing.T) {
	t.Parallel()
	s := newShop(t, behindProxy)
	attacker := s.browser(t)
	var last page
	for i := range 12 {
		// The proxy appends the real address; the client wrote the rest.
		last = attacker.signInFrom(fmt.Sprintf("10.9.9.%d, 203.0.113.7", i), demo.CustomerEmail, "guessing wrong")
	}
	wantStatus(t, "the attacker's 12th guess", last, http.StatusTooManyRequests)
	owner := s.browser(t)
	wantStatus(t, "the owner from another address", owner.signInFrom("198.51.100.4", demo.CustomerEmail, demo.CustomerPassword), http.StatusSeeOther)

	// Staff see when and from where.
	c := s.staff(t).get("/admin/customers/" + s.customerID(t, demo.CustomerEmail))
	wantText(t, "last sign-in", c.testid("customer-last-sign-in"), "from 198.51.100.4")
}

// Guesses spread over many addresses slow the account down (each waits
// longer than the one before) but do not lock it: the owner, from an
// address they signed in from before, signs in at once.
func TestGuessesFromManyAddressesAreSlowedExceptFromAKnownAddress(t *testing.T) {
	t.Parallel()
	s := newShop(t, behindProxy)
	owner := s.browser(t)
	wantStatus(t, "the owner's first sign-in", owner.signInFrom("198.51.100.4", demo.CustomerEmail, demo.CustomerPassword), http.StatusSeeOther)
	owner.post("/logout", url.Values{}, "X-Forwarded-For", "198.51.100.4")

	attacker := s.browser(t)
	var last page
	for i := range 32 {
		last = attacker.signInFrom(fmt.Sprintf("203.0.113.%d", i), demo.CustomerEmail, "guessing wrong")
		if i < 30 {
			wantStatus(t, fmt.Sprintf("guess %d", i+1), last, http.StatusUnprocessableEntity)
		}
	}
	wantStatus(t, "the 32nd guess, from yet another address", last, http.StatusTooManyRequests)
	if msg := last.testid("form-error").Text(); !strings.Contains(msg, "Try again in") {
		t.Fatalf("the slowed guess says %q, want how long to wait", msg)
	}
	wantStatus(t, "the owner from a known address", owner.signInFrom("198.51.100.4", demo.CustomerEmail, demo.CustomerPassword), http.StatusSeeOther)
}

// Sign-up says an email is taken, but past a few an hour per email domain
// it says only that there were too many: probing for accounts is slow.
func TestSignUpProbingIsLimitedPerEmailDomain(t *testing.T) {
	t.Parallel()
	s := newShop(t, behindProxy)
	domain := demo.CustomerEmail[strings.Index(demo.CustomerEmail, "@")+1:]
	var last page
	for i := range 31 {
		b := s.browser(t) // each from its own address, under the per-address limit
		addr := fmt.Sprintf("203.0.113.%d", i)
		b.get("/signup", "X-Forwarded-For", addr)
		last = b.post("/signup", url.Values{"email": {demo.CustomerEmail}, "name": {"Prober"}, "password": {"long enough password"}}, "X-Forwarded-For", addr)
		if i < 30 && last.testid("field-error-email").Length() == 0 && !strings.Contains(last.body, "already exists") {
			t.Fatalf("probe %d: %d, no 'already exists'", i+1, last.status)
		}
	}
	wantStatus(t, "the 31st probe at "+domain, last, http.StatusTooManyRequests)
	if strings.Contains(last.body, "already exists") {
		t.Fatal("the 31st probe was told the email is taken")
	}
}

// A sign-in that succeeds gives its count back, the address's too: sixty
// people behind one office's address sign in one after another, though an
// address has 50 attempts a window. Failures still count: from one
// address, the eleventh wrong password for an email is refused, and the
// fifty-first guess at any email.
func TestCorrectSignInsFromOneAddressAreNotLimited(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	for i := range 60 {
		wantStatus(t, fmt.Sprintf("correct sign-in %d", i+1), s.browser(t).postLogin(demo.CustomerEmail, demo.CustomerPassword), http.StatusSeeOther)
	}
	b := s.browser(t)
	for i := range 11 {
		want := http.StatusUnprocessableEntity
		if i == 10 {
			want = http.StatusTooManyRequests
		}
		wantStatus(t, fmt.Sprintf("wrong password %d", i+1), b.postLogin(demo.CustomerEmail, "guessing wrong"), want)
	}
	// 11 counted at the address so far; 39 more guesses at other emails
	// are checked, the next is refused.
	for i := range 40 {
		want := http.StatusUnprocessableEntity
		if i == 39 {
			want = http.StatusTooManyRequests
		}
		email := fmt.Sprintf("someone%d@example.com", i/8)
		wantStatus(t, fmt.Sprintf("guess %d at the address", 12+i), b.postLogin(email, "guessing wrong"), want)
	}
}
