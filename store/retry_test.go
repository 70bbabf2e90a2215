package store_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"shop/store"
	"shop/store/storetest"
)

// throttles counts what a ThrottleObserver and an Observer are told.
type throttles struct {
	mu        sync.Mutex
	throttled map[string]int
	observed  map[string]int
}

func (c *throttles) ObserveThrottle(op string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.throttled[op]++
}

func (c *throttles) ObserveDynamoDB(op string, _ time.Duration, _ store.Capacity, _ error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.observed[op]++
}

// A proxy in front of DynamoDB Local answers the first `throttle` requests
// as DynamoDB does when a partition is over its capacity; the shop retries
// them with backoff and counts each in the throttle metric.
func TestThrottledRequestsAreRetriedAndCounted(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	target, err := url.Parse(env.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	var left atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if left.Add(-1) >= 0 {
			w.Header().Set("Content-Type", "application/x-amz-json-1.0")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"The level of configured provisioned throughput for the table was exceeded."}`))
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	seen := &throttles{throttled: map[string]int{}, observed: map[string]int{}}
	ctx := ctxT(t)
	client, err := store.NewClient(ctx, store.ClientConfig{Endpoint: srv.URL}, seen)
	if err != nil {
		t.Fatal(err)
	}
	st := store.New(client, env.Table)

	left.Store(3)
	if _, err := st.Customer(ctx, "nobody"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("after 3 throttles: %v, want the answer (not found)", err)
	}
	if seen.throttled["GetItem"] != 3 || seen.observed["GetItem"] != 1 {
		t.Fatalf("throttled %v, observed %v; want 3 throttles of one GetItem", seen.throttled, seen.observed)
	}

	// Throttled past every attempt: an error, each attempt counted.
	left.Store(1000)
	_, err = st.Customer(context.Background(), "nobody")
	if err == nil || errors.Is(err, store.ErrNotFound) {
		t.Fatalf("throttled throughout: %v, want the throttling error", err)
	}
	if got := seen.throttled["GetItem"] - 3; got != 8 {
		t.Fatalf("%d attempts throttled, want 8", got)
	}
}
