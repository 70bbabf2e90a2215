package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"shop/jobs"
	"shop/store/payment"
	"shop/web"
)

// lockedBuffer collects a log written from many goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

type answer struct {
	status     int
	retryAfter string
	took       time.Duration
}

func get(url string) (answer, error) {
	client := &http.Client{Timeout: 30 * time.Second}
	start := time.Now()
	resp, err := client.Get(url)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return answer{resp.StatusCode, resp.Header.Get("Retry-After"), time.Since(start)}, nil
}

func fetch(t *testing.T, url string) answer {
	t.Helper()
	a, err := get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return a
}

// waitStatus asks url until it answers status, for at most within (the
// shop may not listen yet).
func waitStatus(t *testing.T, url string, status int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		a, err := get(url)
		if err == nil && a.status == status {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: %d, %v after %v, want %d", url, a.status, err, within, status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The shop serving from its own DynamoDB Local outlives the engine's
// death: while the engine is down, pages answer 503 at once (with
// Retry-After) and /healthz 503; the engine comes back on its data and the
// shop serves again. When it cannot come back (here another process took
// its port), serve returns an error, for the shop to exit non-zero.
func TestShopRestartsItsEngineAndStopsWhenItCannot(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cfg, _, err := parseConfig([]string{"serve", "-addr", addr, "-data-dir", t.TempDir(), "-dynamodb-endpoint=", "-demo=false", "-jobs=false"})
	if err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	metrics := web.NewMetrics()
	st, eng, err := openStore(ctx, cfg, true, log, metrics)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.stop()
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	gateway := payment.NewTestGateway(st)
	runner := jobs.NewRunner(st, gateway, jobs.Config{Concurrency: 1, CatchUpDays: 60, RetryDays: []int{1}, BaseURL: "http://" + addr, Replica: "test"})
	served := make(chan error, 1)
	go func() {
		served <- serve(ctx, cfg, st, eng, gateway, nil, runner, jobs.DeliveryConfig{Log: log, KeepInOutbox: true}, log, metrics)
	}()
	base := "http://" + addr
	page := base + "/products/no-such-product/stock" // read from the table on every request
	defer func() {
		if t.Failed() {
			t.Logf("shop log:\n%s", logs.String())
		}
	}()

	waitStatus(t, base+"/healthz", http.StatusOK, 30*time.Second)
	if a := fetch(t, page); a.status != http.StatusNotFound {
		t.Fatalf("page with the engine up: %d", a.status)
	}

	if err := eng.watcher.Engine().Kill(); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, base+"/healthz", http.StatusServiceUnavailable, 2*time.Second)
	for _, url := range []string{page, base + "/readyz"} {
		a := fetch(t, url)
		if a.status != http.StatusServiceUnavailable || a.took > 2*time.Second {
			t.Fatalf("GET %s with the engine down: %d after %v, want 503 at once", url, a.status, a.took)
		}
		if url == page {
			if n, err := strconv.Atoi(a.retryAfter); err != nil || n < 1 {
				t.Fatalf("503 page with Retry-After %q", a.retryAfter)
			}
		}
	}

	waitStatus(t, base+"/healthz", http.StatusOK, 2*time.Minute)
	// The table's answer (a restarted engine's first can be slow).
	waitStatus(t, page, http.StatusNotFound, time.Minute)
	waitStatus(t, base+"/readyz", http.StatusOK, 10*time.Second)
	for _, want := range []string{"DynamoDB Local stopped; restarting it", "DynamoDB Local restarted"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log does not say %q", want)
		}
	}

	again := eng.watcher.Engine()
	if err := again.Kill(); err != nil {
		t.Fatal(err)
	}
	squatter, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(again.Port))
	if err != nil {
		t.Fatalf("take the engine's port: %v", err)
	}
	defer squatter.Close()
	waitStatus(t, base+"/healthz", http.StatusServiceUnavailable, 2*time.Second)
	select {
	case err := <-served:
		if err == nil || !strings.Contains(err.Error(), "failed restarts") {
			t.Fatalf("serve = %v, want an error: the engine cannot be restarted", err)
		}
	case <-time.After(4 * time.Minute):
		t.Fatal("serve went on without an engine")
	}
}
