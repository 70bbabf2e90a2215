package web_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"shop/store/storetest"
	"shop/web"
)

// loadRun is what one phase of the load run measured.
type loadRun struct {
	n        int
	took     time.Duration
	lat      []time.Duration // sorted
	status   map[int]int
	errors   int
	requests map[string]int // DynamoDB requests during the phase
	last201  time.Duration  // when the last 201 was answered (the sell-out)
}

func (r loadRun) rate() float64 { return float64(r.n) / r.took.Seconds() }

func (r loadRun) pct(p float64) time.Duration {
	if len(r.lat) == 0 {
		return 0
	}
	return r.lat[min(len(r.lat)-1, int(float64(len(r.lat))*p))]
}

func (r loadRun) String() string {
	total := 0
	for _, v := range r.requests {
		total += v
	}
	return fmt.Sprintf("%6d requests in %7v: %8.0f/s, p50 %7v, p99 %7v; statuses %v, transport errors %d; DynamoDB requests %d %v",
		r.n, r.took.Round(time.Millisecond), r.rate(), r.pct(0.50).Round(10*time.Microsecond), r.pct(0.99).Round(10*time.Microsecond),
		r.status, r.errors, total, r.requests)
}

// runLoad sends n requests, concurrency at a time, through one client, and
// counts the DynamoDB requests the app made meanwhile.
func runLoad(ctx context.Context, counter *storetest.Counter, concurrency, n int, send func(i int) (int, error)) loadRun {
	counter.Reset()
	lat := make([]time.Duration, n)
	done := make([]time.Duration, n)
	codes := make([]int, n)
	var next atomic.Int64
	var errs atomic.Int64
	var wg sync.WaitGroup
	began := time.Now()
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				t0 := time.Now()
				code, err := send(i)
				lat[i] = time.Since(t0)
				done[i] = time.Since(began)
				if err != nil {
					errs.Add(1)
				}
				codes[i] = code
			}
		}()
	}
	wg.Wait()
	run := loadRun{n: n, took: time.Since(began), status: map[int]int{}, errors: int(errs.Load()), requests: counter.Ops()}
	for i, c := range codes {
		run.status[c]++
		if c == http.StatusCreated {
			run.last201 = max(run.last201, done[i])
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	run.lat = lat
	return run
}

// quietLoad logs at production's level, to nowhere: no debug lines, and
// the info lines formatted as the shop does.
func quietLoad(_ storetest.Env, cfg *web.Config) {
	cfg.Log = slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

// TestAPILoad is the load run of the claims API, on 127.0.0.1 only, bounded
// in requests and time; it is not part of the default run:
//
//	SHOP_LOAD=1 go test ./web -run TestAPILoad -count=1 -v
//
// A burst of 20,000 claims from 5,000 clients (4 each, shuffled) on a drop
// of 500 at a concurrency of 64; then the same burst from other clients on
// the sold-out drop beside /healthz, with the same client and concurrency.
func TestAPILoad(t *testing.T) {
	if os.Getenv("SHOP_LOAD") != "1" {
		t.Skip("the load run: SHOP_LOAD=1 go test ./web -run TestAPILoad -count=1 -v")
	}
	const (
		clients     = 5000
		perClient   = 4
		quantity    = 500
		concurrency = 64
	)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	env := storetest.New(t)
	secret := newAPIKey(t, env.Store, "load")
	base, _ := startApp(t, env, env.Table, [][]byte{keyA}, quietLoad)
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("the load run is for 127.0.0.1 only, not %s", base)
	}
	transport := &http.Transport{MaxIdleConns: concurrency, MaxIdleConnsPerHost: concurrency, MaxConnsPerHost: concurrency}
	defer transport.CloseIdleConnections()
	c := newAPIClient(t, base, secret)
	c.http = &http.Client{Transport: transport, Timeout: 30 * time.Second}

	order := func(prefix string) []string { return shuffledClients(prefix, clients, perClient, 1) }
	claimAll := func(dropID string, ids []string) func(int) (int, error) {
		path := "/api/v1/drops/" + dropID + "/claims"
		return func(i int) (int, error) {
			r, err := c.try(http.MethodPost, path, `{"client": "`+ids[i]+`"}`)
			return r.status, err
		}
	}

	d := c.makeDrop(dropBody("Load", quantity))
	burst := runLoad(ctx, env.Counter, concurrency, clients*perClient, claimAll(d.ID, order("c")))
	tickets := allTickets(t, env.Store, d.ID)
	stored, err := env.Store.DropConsistent(context.Background(), d.ID)
	if err != nil {
		t.Fatal(err)
	}

	// The sold-out drop and /healthz, side by side.
	soldOut := runLoad(ctx, env.Counter, concurrency, clients*perClient, claimAll(d.ID, order("s")))
	health := runLoad(ctx, env.Counter, concurrency, clients*perClient, func(int) (int, error) {
		r, err := c.try(http.MethodGet, "/healthz", "")
		return r.status, err
	})
	if ctx.Err() != nil {
		t.Fatal("the load run ran out of time")
	}

	t.Logf("burst on a drop of %d, %d clients x %d, concurrency %d:\n  %v", quantity, clients, perClient, concurrency, burst)
	t.Logf("tickets %d, counter %d; the last ticket was answered %v into the burst", len(tickets), stored.Claimed, burst.last201.Round(time.Millisecond))
	t.Logf("sold-out drop:\n  %v", soldOut)
	t.Logf("/healthz:\n  %v", health)
	t.Logf("sold-out rejections run at %.0f%% of /healthz's rate", 100*soldOut.rate()/health.rate())

	if len(tickets) != quantity || stored.Claimed != quantity || burst.status[http.StatusCreated] != quantity {
		t.Errorf("tickets %d, counter %d, 201s %d; want %d each", len(tickets), stored.Claimed, burst.status[http.StatusCreated], quantity)
	}
	for _, run := range []loadRun{burst, soldOut, health} {
		if run.errors > 0 {
			t.Errorf("%d transport errors", run.errors)
		}
		for code := range run.status {
			if !slices.Contains([]int{http.StatusOK, http.StatusCreated, http.StatusConflict, http.StatusTooManyRequests}, code) {
				t.Errorf("status %d answered %d times", code, run.status[code])
			}
		}
	}
	if soldOut.status[http.StatusConflict] != soldOut.n {
		t.Errorf("the sold-out drop answered %v", soldOut.status)
	}
}
