package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"shop/store"
)

// Page benchmarks drive the real app over HTTP against DynamoDB Local and
// report, per page view: latency p50/p99, requests per second, and the
// DynamoDB requests it cost. Run: go test ./web -run '^$' -bench . -benchtime 2000x
// (DynamoDB Local shares the machine's cores, so compare ratios within a run.)

type latencies struct {
	mu sync.Mutex
	d  []time.Duration
}

func (l *latencies) add(d time.Duration) {
	l.mu.Lock()
	l.d = append(l.d, d)
	l.mu.Unlock()
}

func (l *latencies) report(b *testing.B, start time.Time, s *shop) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.d) == 0 {
		return
	}
	slices.Sort(l.d)
	q := func(p float64) float64 { return float64(l.d[int(p*float64(len(l.d)-1))].Microseconds()) / 1000 }
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	b.ReportMetric(float64(len(l.d))/time.Since(start).Seconds(), "req/s")
	b.ReportMetric(float64(s.env.Counter.Total())/float64(len(l.d)), "dynamodb-req/view")
	b.ReportMetric(0, "ns/op") // the figures above say it better
}

// benchShop is a demo shop with deep stock, and signed-in customers with a
// cart of two products each.
func benchShop(b *testing.B, customers int) (*shop, []*browser, []string) {
	s := newShop(b)
	ctx := context.Background()
	for _, id := range []string{"cf-grinder", "bk-fjord"} {
		p, err := s.env.Store.Product(ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.env.Store.PutStockLevel(ctx, store.StockLevel{ProductID: id, ProductName: p.Name, WarehouseID: "gbg",
			WarehouseName: "Göteborg Harbour", City: "Göteborg", Quantity: 1_000_000}); err != nil {
			b.Fatal(err)
		}
	}
	var bs []*browser
	var ids []string
	for i := range customers {
		br := s.browser(b)
		email := fmt.Sprintf("bench%d@example.com", i)
		hash, _ := bcrypt.GenerateFromPassword([]byte("bench password"), bcrypt.MinCost)
		c, err := s.env.Store.CreateCustomer(ctx, store.NewCustomer{Email: email, Name: "Bench", PasswordHash: string(hash)})
		if err != nil {
			b.Fatal(err)
		}
		br.signIn(email, "bench password")
		br.addToCart("cf-grinder", "1")
		br.addToCart("bk-fjord", "2")
		bs, ids = append(bs, br), append(ids, c.ID)
	}
	return s, bs, ids
}

func benchPage(b *testing.B, path string, signedIn bool) {
	s, customers, _ := benchShop(b, 8)
	var next atomic.Int64
	var lat latencies
	visitor := s.browser(b)
	get := func(br *browser) {
		start := time.Now()
		req, _ := http.NewRequest(http.MethodGet, s.base+path, nil)
		resp, err := br.http.Do(req)
		if err != nil {
			b.Error(err)
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Errorf("%s: %d", path, resp.StatusCode)
		}
		lat.add(time.Since(start))
	}
	get(visitor) // a visitor's first view; the benchmark measures returning ones
	s.env.Counter.Reset()
	b.SetParallelism(4)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		br := visitor
		if signedIn {
			br = customers[int(next.Add(1))%len(customers)]
		}
		for pb.Next() {
			get(br)
		}
	})
	b.StopTimer()
	lat.report(b, start, s)
}

func BenchmarkHealthz(b *testing.B)       { benchPage(b, "/healthz", false) }
func BenchmarkCataloguePage(b *testing.B) { benchPage(b, "/products", false) }
func BenchmarkProductPage(b *testing.B)   { benchPage(b, "/products/cf-grinder", true) }
func BenchmarkCartPage(b *testing.B)      { benchPage(b, "/cart", true) }

// BenchmarkCheckout places orders of two products: each iteration refills
// the cart through the store and posts the checkout form; only the post is
// timed. The DynamoDB requests of one checkout are counted apart, after.
func BenchmarkCheckout(b *testing.B) {
	s, customers, ids := benchShop(b, 8)
	ctx := context.Background()
	grinder, _ := s.env.Store.Product(ctx, "cf-grinder")
	fjord, _ := s.env.Store.Product(ctx, "bk-fjord")
	refill := func(i int) {
		owner := store.CustomerOwner(ids[i])
		_ = s.env.Store.AddToCart(ctx, owner, grinder, 1)
		_ = s.env.Store.AddToCart(ctx, owner, fjord, 2)
	}
	for _, br := range customers {
		br.checkoutPage() // a page with the form, for its CSRF token
	}
	var next atomic.Int64
	var lat latencies
	b.SetParallelism(2)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		i := int(next.Add(1)-1) % len(customers)
		br := customers[i]
		first := true
		for pb.Next() {
			if !first {
				refill(i)
			}
			first = false
			t0 := time.Now()
			p := br.post("/checkout", checkoutForm(store.NewID(), "9470"))
			lat.add(time.Since(t0))
			if p.status != http.StatusSeeOther {
				b.Errorf("checkout: %d %s", p.status, p.testid("form-error").Text())
				return
			}
		}
	})
	b.StopTimer()
	lat.report(b, start, s)
	refill(0)
	s.env.Counter.Reset()
	customers[0].post("/checkout", checkoutForm(store.NewID(), "9470"))
	b.ReportMetric(float64(s.env.Counter.Total()), "dynamodb-req/view")
}
