package web_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"shop/store"
	"shop/store/demo"
)

// slowEngine is a proxy to endpoint that holds each answer back for
// delay: an engine that answers, slowly, as on a busy machine.
func slowEngine(t *testing.T, endpoint string, delay time.Duration) string {
	t.Helper()
	target := strings.TrimPrefix(endpoint, "http://")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			in, err := l.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				in.Close()
				continue
			}
			t.Cleanup(func() { in.Close(); out.Close() })
			go func() { _, _ = io.Copy(out, in) }()
			go func() { _, _ = io.Copy(in, slowReader{out, delay}) }()
		}
	}()
	return "http://" + l.Addr().String()
}

type slowReader struct {
	r     io.Reader
	delay time.Duration
}

func (s slowReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		time.Sleep(s.delay)
	}
	return n, err
}

// A request that runs out of its own time while the engine is slow to
// answer (a busy machine) is a 503, but no failure of the engine: however
// many there are, the breaker stays closed, and the next request with
// time enough is answered.
func TestRequestsOutOfTheirOwnTimeLeaveTheBreakerClosed(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	h := store.NewHealth(store.Breaker{Failures: 2})
	hurried, _ := healthyApp(t, slowEngine(t, s.env.Endpoint, 500*time.Millisecond), s.env.Table, h, 100*time.Millisecond)
	patient, _ := healthyApp(t, s.env.Endpoint, s.env.Table, h, 10*time.Second)
	// Signed in (the cookie goes to both apps: one host), so that each
	// page reads its session from the table first.
	ada := newBrowser(t, patient)
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	busy := &browser{t: t, base: hurried, http: ada.http}
	for range 6 {
		wantStatus(t, "out of its own time", busy.get("/orders"), http.StatusServiceUnavailable)
	}
	wantStatus(t, "with time enough, after", ada.get("/orders"), http.StatusOK)
}

// A right password whose sign-in ran out of time is no failed attempt: its
// counts are given back all the same, on a time of their own.
func TestASignInOutOfTimeGivesItsAttemptsBack(t *testing.T) {
	t.Parallel()
	const timeout = time.Second
	// A hash slow enough that checking it outlasts the request's time.
	start := time.Now()
	if _, err := bcrypt.GenerateFromPassword([]byte("calibrating"), 10); err != nil {
		t.Fatal(err)
	}
	cost, took := 10, time.Since(start)
	for took < 3*timeout && cost < bcrypt.MaxCost {
		cost, took = cost+1, 2*took
	}
	const email, password = "slow.hash@example.com", "a long enough password"
	hash, err := bcrypt.GenerateFromPassword([]byte(password), cost)
	if err != nil {
		t.Fatal(err)
	}
	s := newShop(t, withRequestTimeout(timeout))
	ctx := context.Background()
	if _, err := s.env.Store.CreateCustomer(ctx, store.NewCustomer{Email: email, Name: "Slow Hash", PasswordHash: string(hash)}); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	p := s.browser(t).postLogin(email, password)
	if p.status != http.StatusServiceUnavailable || time.Since(start) < timeout {
		t.Fatalf("the sign-in answered %d after %v, want 503 after its %v were out (bcrypt cost %d)", p.status, time.Since(start), timeout, cost)
	}
	for _, c := range []struct{ scope, subject string }{
		{"login-ip", "127.0.0.1"}, {"login-email-addr", email + " 127.0.0.1"},
	} {
		// Counting one more says how many were counted before.
		n, err := s.env.Store.CountAttempt(ctx, c.scope, c.subject, 15*time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Errorf("%s of %s: %d counted before, want 0: the right password's attempt was kept", c.scope, c.subject, n-1)
		}
	}
}
