package web_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"shop/store"
	"shop/store/demo"

	"shop/store/payment"
	"shop/store/storetest"
	"shop/web"
)

// healthyApp serves the app over table at endpoint, its store's client
// running h; the app's log is returned for assertions.
func healthyApp(t *testing.T, endpoint, table string, h *store.Health, timeout time.Duration) (string, *syncBuffer) {
	t.Helper()
	client, err := store.NewClient(context.Background(), store.ClientConfig{Endpoint: endpoint, Health: h})
	if err != nil {
		t.Fatal(err)
	}
	st := store.New(client, table)
	logs := &syncBuffer{}
	app, err := web.New(web.Config{
		Store: st, Payments: payment.NewProviders(testProvider(t, st)), SessionKeys: [][]byte{keyA}, BcryptCost: bcrypt.MinCost,
		Log: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})), Health: h,
		RequestTimeout: timeout,
	})
	if err != nil {
		t.Fatal(err)
	}
	return serve(t, app), logs
}

// accessLine waits up to within for the access log's line of path.
func accessLine(logs *syncBuffer, path string, within time.Duration) string {
	deadline := time.Now().Add(within)
	for {
		for _, l := range strings.Split(logs.String(), "\n") {
			if strings.Contains(l, "msg=request ") && strings.Contains(l, "path="+path+" ") {
				return l
			}
		}
		if time.Now().After(deadline) {
			return ""
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A visitor who gives up on a slow page (here the engine hangs: it takes
// connections and never answers) is logged as gone, 499, at once: not as
// the shop failing once the page's timeout has passed, with work going on
// for no one.
func TestAClientThatGoesAwayIsLogged499(t *testing.T) {
	t.Parallel()
	// The card provider's secret is read at start: from a working table.
	provider := testProvider(t, sharedShop(t).env.Store)
	client, err := store.NewClient(context.Background(), store.ClientConfig{Endpoint: storetest.SilentEngine(t)})
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	app, err := web.New(web.Config{
		Store: store.New(client, "gone"), Payments: payment.NewProviders(provider), SessionKeys: [][]byte{keyA}, BcryptCost: bcrypt.MinCost,
		Log:    slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Health: store.NewHealth(store.Breaker{}), RequestTimeout: 4 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, app)

	path := "/products/anything/stock" // read from the table
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("the hanging engine answered: %d", resp.StatusCode)
	}
	line := accessLine(logs, path, 2*time.Second)
	if !strings.Contains(line, "status=499") {
		t.Fatalf("access log of the abandoned request: %q, want status=499 soon after\n%s", line, logs.String())
	}
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Fatalf("a client going away is logged as an error:\n%s", logs.String())
	}
}

// While the engine is known down, pages and the API answer 503 at once
// with Retry-After, and /healthz says the shop cannot serve; once it is
// back, all answer again.
func TestPagesAnswer503AtOnceWhileTheEngineIsDown(t *testing.T) {
	s := newShop(t)
	h := store.NewHealth(store.Breaker{})
	base, logs := healthyApp(t, s.env.Endpoint, s.env.Table, h, 10*time.Second)
	b := newBrowser(t, base)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	wantStatus(t, "orders", b.get("/orders"), http.StatusOK)

	h.EngineDown(errors.New("signal: killed"))
	for _, tc := range []struct{ path, hx string }{{"/orders", ""}, {"/cart", "true"}, {"/products/no-such/stock", ""}} {
		path := tc.path
		start := time.Now()
		p := b.get(path, "HX-Request", tc.hx)
		if took := time.Since(start); p.status != http.StatusServiceUnavailable || took > 2*time.Second {
			t.Fatalf("%s with the engine down: %d after %v, want 503 at once", path, p.status, took)
		}
		if n, err := strconv.Atoi(p.header.Get("Retry-After")); err != nil || n < 1 {
			t.Fatalf("%s: Retry-After %q", path, p.header.Get("Retry-After"))
		}
	}
	wantStatus(t, "/healthz while down", b.get("/healthz"), http.StatusServiceUnavailable)
	wantStatus(t, "/readyz while down", b.get("/readyz"), http.StatusServiceUnavailable)
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Fatalf("each refused request is logged as an error (the watcher logs the cause once):\n%s", logs.String())
	}

	h.EngineUp()
	wantStatus(t, "/healthz when back", b.get("/healthz"), http.StatusOK)
	wantStatus(t, "/orders when back", b.get("/orders"), http.StatusOK)
}
