package web_test

import (
	"net"
	"testing"

	"github.com/valyala/fasthttp"

	"shop/web/plainpage"
)

// BenchmarkPageCost is the server's own work for one view of a page: the
// shop's handler (all its middleware and the page) called in this
// process, with no connection, client or other row beside it. On a shared
// machine CPU time per view is far steadier than requests a second, so
// this is where a change to the middleware or a page shows first; compare
// each page's ns/op with the plain page's (the stack alone):
//
//	go run ./store/storetest/testengine -- go test ./web -run '^$' -bench '^BenchmarkPageCost$' -benchmem
//
// The signed-in rows read their session from the replica's cache, as
// production's views do within a second of each other.
func BenchmarkPageCost(b *testing.B) {
	l := newLoad(b)
	shop, plain := l.app.Handler(), plainpage.New(nil).Handler()
	// Who views a row: nobody (no cookie), customer 1 (new) or customer 0
	// (a returning subscriber, with a kept card the subscribe form offers).
	const visitor, customer, subscriber = -1, 1, 0
	for _, r := range []struct {
		name, path string
		who        int
		handler    fasthttp.RequestHandler
	}{
		{"plain page", "/", visitor, plain},
		{"healthz", "/healthz", visitor, shop},
		{"catalogue visitor", "/", visitor, shop},
		{"catalogue signed in", "/", customer, shop},
		{"category visitor", "/products?category=coffee", visitor, shop},
		{"product visitor", "/products/cf-light", visitor, shop},
		{"product signed in", "/products/cf-light", customer, shop},
		{"product subscriber", "/products/cf-light", subscriber, shop},
		{"cart signed in", "/cart", customer, shop},
	} {
		b.Run(r.name, func(b *testing.B) {
			var req fasthttp.Request
			req.SetRequestURI(r.path)
			req.Header.SetHost("127.0.0.1")
			req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) bench")
			if r.who != visitor {
				req.Header.Set("Cookie", l.customers[r.who].cookie)
			}
			addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000}
			var ctx fasthttp.RequestCtx
			b.ReportAllocs()
			for b.Loop() {
				// As fasthttp readies a connection's context for its next
				// request.
				ctx.ResetUserValues()
				ctx.Response.Reset()
				ctx.Init(&req, addr, nil)
				r.handler(&ctx)
				if code := ctx.Response.StatusCode(); code != fasthttp.StatusOK {
					b.Fatalf("%s: status %d\n%s", r.path, code, ctx.Response.Body())
				}
			}
			// What a client reads of each view: a bigger page costs the
			// load run's client and the connection more than this CPU shows.
			b.ReportMetric(float64(len(ctx.Response.Body())), "body-B")
		})
	}
}
