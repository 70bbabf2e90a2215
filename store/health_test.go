package store_test

import (
	"context"
	"errors"
	"net"
	"syscall"
	"testing"
	"time"

	"shop/store"
	"shop/store/dynamolocal"
	"shop/store/storetest"
)

// healthyStore is a store over endpoint whose client runs h.
func healthyStore(t *testing.T, endpoint, table string, h *store.Health) *store.Store {
	t.Helper()
	client, err := store.NewClient(context.Background(), store.ClientConfig{Endpoint: endpoint, Health: h})
	if err != nil {
		t.Fatal(err)
	}
	return store.New(client, table)
}

// pingWithin pings with a timeout and says how long it took.
func pingWithin(st *store.Store, timeout time.Duration) (time.Duration, error) {
	start := time.Now() // before the deadline is set: a busy machine may pause between them
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := st.Ping(ctx)
	return time.Since(start), err
}

// An engine that hangs (here frozen) costs each request an attempt's
// timeout only until the breaker opens; then requests fail at once, and
// when the engine answers again, so does the shop.
func TestBreakerFailsFastWhileTheEngineHangs(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	e, err := dynamolocal.Start(context.Background(), dynamolocal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Stop()
	// Migrated without the breaker: on a busy machine making the table
	// may take longer than the short attempts below.
	if err := healthyStore(t, e.Endpoint, "breaker", nil).Migrate(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	h := store.NewHealth(store.Breaker{Failures: 3, OpenFor: time.Second, AttemptTimeout: 300 * time.Millisecond})
	st := healthyStore(t, e.Endpoint, "breaker", h)

	if err := e.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	thawed := false
	defer func() {
		if !thawed {
			_ = e.Signal(syscall.SIGCONT)
		}
	}()
	for i := range 3 {
		took, err := pingWithin(st, 10*time.Second)
		if !errors.Is(err, store.ErrEngineDown) || took < 300*time.Millisecond || took > 5*time.Second {
			t.Fatalf("request %d to the frozen engine: %v after %v, want ErrEngineDown after the attempt's timeout", i+1, err, took)
		}
	}
	for i := range 10 {
		took, err := pingWithin(st, 10*time.Second)
		if !errors.Is(err, store.ErrEngineDown) || took > time.Second {
			t.Fatalf("request %d with the breaker open: %v after %v, want ErrEngineDown at once", i+1, err, took)
		}
	}
	if wait := h.RetryAfter(); wait <= 0 || wait > time.Second {
		t.Errorf("RetryAfter %v with the breaker open for a second", wait)
	}
	if err := h.Serving(); err != nil {
		t.Errorf("Serving = %v: a breaker is no reason to restart the shop", err)
	}

	if err := e.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	thawed = true
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := pingWithin(st, 10*time.Second)
		if err == nil {
			break
		}
		if !errors.Is(err, store.ErrEngineDown) || time.Now().After(deadline) {
			t.Fatalf("after the engine is back: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A caller whose own deadline passes (a page out of time on a busy
// replica) is no failure of the engine, however many: the breaker stays
// closed, and each caller waits out its own time. The attempt's own
// timeout is the engine not answering: those open it.
func TestBreakerCountsTheAttemptsTimeoutNotTheCallers(t *testing.T) {
	t.Parallel()
	endpoint := storetest.SilentEngine(t)
	h := store.NewHealth(store.Breaker{Failures: 2, AttemptTimeout: time.Minute})
	st := healthyStore(t, endpoint, "silent", h)
	for i := range 6 {
		took, err := pingWithin(st, 100*time.Millisecond)
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, store.ErrEngineDown) || took < 100*time.Millisecond {
			t.Fatalf("request %d out of its own time: %v after %v, want its deadline, the breaker closed", i+1, err, took)
		}
	}

	h = store.NewHealth(store.Breaker{Failures: 2, AttemptTimeout: 200 * time.Millisecond})
	st = healthyStore(t, endpoint, "silent", h)
	for i := range 2 {
		took, err := pingWithin(st, time.Minute)
		if !errors.Is(err, store.ErrEngineDown) || took < 200*time.Millisecond || took > 10*time.Second {
			t.Fatalf("request %d to the silent engine: %v after %v, want ErrEngineDown after the attempt's timeout", i+1, err, took)
		}
	}
	took, err := pingWithin(st, time.Minute)
	if !errors.Is(err, store.ErrEngineDown) || took > 100*time.Millisecond {
		t.Fatalf("with the breaker open: %v after %v, want ErrEngineDown at once", err, took)
	}
}

// An engine nobody listens for: the attempts of the first request open the
// breaker, and the requests after fail at once instead of retrying for
// seconds each.
func TestBreakerFailsFastWhenNothingListens(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := "http://" + l.Addr().String()
	l.Close()
	st := healthyStore(t, endpoint, "nobody", store.NewHealth(store.Breaker{Failures: 2}))
	if _, err := pingWithin(st, 30*time.Second); !errors.Is(err, store.ErrEngineDown) {
		t.Fatalf("first request: %v, want its retries cut short by the breaker", err)
	}
	start := time.Now()
	for i := range 20 {
		if _, err := pingWithin(st, 10*time.Second); !errors.Is(err, store.ErrEngineDown) {
			t.Fatalf("request %d: %v", i+2, err)
		}
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("20 requests with the breaker open took %v", took)
	}
}

// An engine that dies under a request (here: one that takes the
// connection and closes it) leaves the request ErrEngineDown, which pages
// show as 503, even with no breaker at all.
func TestARequestTheEngineNeverAnsweredIsEngineDown(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	st := healthyStore(t, "http://"+l.Addr().String(), "nobody", nil)
	if _, err := pingWithin(st, 30*time.Second); !errors.Is(err, store.ErrEngineDown) {
		t.Fatalf("a request the engine hung up on: %v, want ErrEngineDown", err)
	}
}

// The engine's refusals are answers: conditions that fail and missing
// tables never open the breaker.
func TestBreakerIgnoresTheEnginesRefusals(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	h := store.NewHealth(store.Breaker{Failures: 2})
	st := healthyStore(t, env.Endpoint, env.Table, h)
	gone := healthyStore(t, env.Endpoint, "no-such-table", h)
	p := store.Product{ID: "twice", Name: "Twice", Category: "coffee", Price: store.Money{Amount: 100, Currency: store.DefaultCurrency}}
	if _, err := st.CreateProduct(ctxT(t), p); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if _, err := st.CreateProduct(ctxT(t), p); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("second create: %v, want ErrConflict", err)
		}
		if err := gone.Ping(ctxT(t)); err == nil || errors.Is(err, store.ErrEngineDown) {
			t.Fatalf("ping of a missing table: %v, want the engine's refusal", err)
		}
	}
	if err := st.Ping(ctxT(t)); err != nil {
		t.Fatalf("after refusals: %v", err)
	}
}

// The watcher's word holds until it takes it back, and its reason shows.
func TestEngineDownUntilUp(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	h := store.NewHealth(store.Breaker{})
	st := healthyStore(t, env.Endpoint, env.Table, h)
	h.EngineDown(errors.New("signal: killed"))
	took, err := pingWithin(st, 10*time.Second)
	if !errors.Is(err, store.ErrEngineDown) || took > time.Second {
		t.Fatalf("while down: %v after %v", err, took)
	}
	if err := h.Serving(); !errors.Is(err, store.ErrEngineDown) {
		t.Fatalf("Serving while down: %v", err)
	}
	h.EngineUp()
	if err := st.Ping(ctxT(t)); err != nil || h.Serving() != nil {
		t.Fatalf("after up: %v, %v", err, h.Serving())
	}
}
