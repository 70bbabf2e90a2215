package web_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/crypto/bcrypt"

	render "shop/handlers/page" // the render helper every page uses; "page" is the tests' answer type
	"shop/store"
	"shop/store/dropgate"
	"shop/store/payment"
	"shop/store/rules"
	"shop/store/storetest"
	"shop/store/storetest/procmem"
	"shop/views"
	"shop/web"
	"shop/web/plainpage"
)

// BenchmarkStorefront is the shop's load test (go tool task bench): the
// demo shop served in this process over DynamoDB Local, 32 clients at once
// (like wrk -c32). It prints one table: requests/s, p50/p99 and DynamoDB
// requests per view of each page, for a new visitor (no cookie, as a
// crawler) and a signed-in customer, and each page's requests/s against a
// bare page: the catalogue's own templ components from fixed data, no store
// call, through the same middleware as every page. Then it sends 10,000
// cookieless GETs of every storefront page and fails if any wrote to the
// table. BENCH_DURATION (default 5s) is how long each row runs, in ten
// slices taken in turn with the other rows', each round starting one row
// later (the machine is shared: a busy moment, or the wake of a fast row,
// then costs every row alike; checkout runs last). BENCH_ANON (default
// 10000) is how many GETs of each page. DynamoDB Local shares the
// machine's cores: compare the ratios within a run.
func BenchmarkStorefront(b *testing.B) {
	duration, anon := benchDuration(b), benchCount(b, "BENCH_ANON", 10000)
	l := newLoad(b)

	rows := []benchView{
		{name: "plain page", path: "/", base: l.plain},
		{name: "plain page + one GetItem", path: "/", base: l.plainRead},
		{name: "/healthz", path: "/healthz"},
		{name: "bare page", path: barePath},
	}
	for _, p := range []struct{ name, path string }{
		{"catalogue /", "/"},
		{"category coffee", "/products?category=coffee"},
		{"product cf-light", "/products/cf-light"},
	} {
		rows = append(rows, benchView{name: p.name + ", new visitor", path: p.path},
			benchView{name: p.name + ", signed in", path: p.path, signedIn: true})
	}
	rows = append(rows, benchView{name: "/cart, signed in", path: "/cart", signedIn: true})
	rows = benchRows(b, rows)

	const rounds = 10
	results := make([]benchResult, len(rows))
	for i, v := range rows {
		l.measure(v, benchClients, 0) // one view a client first: connections open, the shop window filled
		results[i].name = v.name
	}
	for round := range rounds {
		for k := range rows {
			i := (round + k) % len(rows)
			results[i].add(l.measure(rows[i], 0, duration/rounds))
		}
	}
	// Checkout runs last, on its own: the customer's next page would show
	// its "order placed" message, and taking it out of the session is a
	// write that page would be counted for.
	checkout := benchView{name: "checkout, signed in", path: "/checkout", signedIn: true, checkout: true}
	if len(benchRows(b, []benchView{checkout})) > 0 {
		l.measure(checkout, benchClients, 0)
		results = append(results, l.measure(checkout, 0, duration))
		rows = append(rows, checkout)
	}
	plain, plainRead := results[0].perSecond(), results[1].perSecond()
	fmt.Printf("\n%s a row, %d clients at once, after one untimed view a client\n", duration, benchClients)
	fmt.Printf("%-34s %7s %8s %8s %8s %11s %11s %7s %7s\n", "page", "views", "req/s", "p50 ms", "p99 ms", "reads/view", "writes/view", "× plain", "× +read")
	for _, r := range results {
		fmt.Printf("%-34s %7d %8.0f %8.2f %8.2f %11.2f %11.2f %7.2f %7.2f\n", r.name, r.n(), r.perSecond(), ms(r.quantile(50)), ms(r.quantile(99)),
			r.perView(r.reads), r.perView(r.writes), r.perSecond()/plain, r.perSecond()/plainRead)
	}
	fmt.Println("(plain page: the stack alone, web/plainpage; + one GetItem: the same after a GetItem of the shop's table, the yardstick of a page that reads once.)")

	fmt.Printf("\n%d cookieless GETs of every storefront page\n", anon)
	fmt.Printf("%-34s %8s %8s %11s %7s\n", "page", "req/s", "p99 ms", "reads/view", "writes")
	var wrote []string
	anonPaths := []string{
		"/", "/products?category=coffee", "/products/cf-light", "/products/cf-light/stock", "/cart",
		"/search?q=coffee", "/login", "/signup", "/drops", "/drops/" + l.drop, "/drops/" + l.drop + "/count",
	}
	for _, path := range anonPaths {
		r := l.measure(benchView{name: path, path: path}, anon, 0)
		fmt.Printf("%-34s %8.0f %8.2f %11.2f %7d\n", r.name, r.perSecond(), ms(r.quantile(99)), r.perView(r.reads), r.writes)
		if r.writes != 0 {
			wrote = append(wrote, fmt.Sprintf("%s: %d", path, r.writes))
		}
	}

	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	self, err := procmem.Of(0)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Printf("\nThis process after the run: RSS %.1f MiB, peak RSS %.1f MiB, Go heap in use %.1f MiB.\n",
		procmem.MiB(self.RSS), procmem.MiB(self.Peak), float64(mem.HeapInuse)/(1<<20))
	fmt.Println("(The in-process shop and the load clients together. DynamoDB Local, a separate JVM, is not counted.)")
	l.alone(rows, duration, anonPaths, anon).print()
	if len(wrote) > 0 {
		b.Fatalf("visitors' GETs wrote to the table: %s", strings.Join(wrote, ", "))
	}
	b.ReportMetric(0, "ns/op") // the table says it better
}

// benchClients is how many clients send requests at once.
const benchClients = 32

// barePath is the bare page's route: the benchmark adds it, the shop has
// no such page.
const barePath = "/bench/bare"

// benchView is one row of the table: a GET of path, or a checkout.
type benchView struct {
	name, path string
	base       string // another server's address (the plain page's); "": the shop's
	signedIn   bool   // as one of the signed-in customers, else with no cookie
	checkout   bool   // POST the checkout form (the cart refilled first, untimed)
}

// benchResult is what the views of a row took, and their DynamoDB
// requests.
type benchResult struct {
	name          string
	took          time.Duration // while the row ran
	views         []time.Duration
	reads, writes int
}

func (r *benchResult) add(o benchResult) {
	r.took += o.took
	r.views = append(r.views, o.views...)
	r.reads += o.reads
	r.writes += o.writes
}

func (r benchResult) n() int                { return len(r.views) }
func (r benchResult) perSecond() float64    { return float64(r.n()) / r.took.Seconds() }
func (r benchResult) perView(k int) float64 { return float64(k) / float64(r.n()) }

// quantile is the view time that pct % of the views took at most.
func (r benchResult) quantile(pct int) time.Duration {
	slices.Sort(r.views)
	return r.views[(r.n()-1)*pct/100]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// load is the demo shop with a customer signed in for each client (every
// other one a returning subscriber, with a kept card), and the HTTP client
// they all share.
type load struct {
	b         *testing.B
	s         *shop
	http      *http.Client
	customers []benchCustomer
	drop      string // an open drop's id
	// plain and plainRead are the plain page's addresses, without and
	// with a GetItem a view.
	plain, plainRead string
	// refill fills carts again between checkouts; its requests are not the
	// app's, so it has a client of its own, uncounted.
	refill             *store.Store
	grinder, fjord     store.Product
	fullCarts          []bool // customer i's cart holds the checkout's two products
	checkoutTotalCents string
	// app is the shop's Fiber app, to call its handler directly
	// (BenchmarkPageCost).
	app *fiber.App
}

type benchCustomer struct {
	id, cookie, csrf string
}

func newLoad(b *testing.B) *load {
	ctx := context.Background()
	// Only the pages' own requests in the counts: a drop gate that does not
	// refresh itself, API keys reloaded hourly (as the budget test does).
	// Access log lines formatted as the shop does, then dropped, so they
	// neither pile up in memory nor fill the output.
	var app *fiber.App
	quiet := func(env storetest.Env, cfg *web.Config) {
		cfg.Gate = dropgate.New(cfg.Store, nil)
		cfg.Log, cfg.RequestLog = slog.New(slog.NewTextHandler(io.Discard, nil)), io.Discard
		bare := barePage(b, env.Store)
		cfg.ExtraPages = func(r fiber.Router) {
			bare(r)
			app = r.(*fiber.App)
		}
		cfg.SessionCache = 0 // production's: signed-in views read their session once a second
	}
	s := newShop(b, quiet, withAPIKeysEvery(time.Hour))
	l := &load{b: b, s: s, app: app, checkoutTotalCents: "9470", http: &http.Client{
		Timeout: 30 * time.Second,
		// No compression, as the issue measures: a browser would ask for it, and
		// both ends would then pay for it on every row but the plain page.
		Transport:     &http.Transport{MaxIdleConns: 2 * benchClients, MaxIdleConnsPerHost: 2 * benchClients, IdleConnTimeout: time.Minute, DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
	l.drop = s.openDrop(b, "Bench roast", 5).ID

	// Deep stock of what the customers buy, so checkouts never run out.
	deepStock := func(id string) store.Product {
		p, err := s.env.Store.Product(ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.env.Store.PutStockLevel(ctx, store.StockLevel{ProductID: id, ProductName: p.Name, WarehouseID: "gbg",
			WarehouseName: "Göteborg Harbour", City: "Göteborg", Quantity: 1_000_000}); err != nil {
			b.Fatal(err)
		}
		return p
	}
	l.grinder, l.fjord = deepStock("cf-grinder"), deepStock("bk-fjord")
	client, err := store.NewClient(ctx, store.ClientConfig{Endpoint: s.env.Endpoint})
	if err != nil {
		b.Fatal(err)
	}
	l.refill = store.New(client, s.env.Table)
	l.plain = servePlain(b, nil)
	l.plainRead = servePlain(b, func(ctx context.Context) error {
		_, err := l.refill.Product(ctx, "cf-light") // one GetItem, on a client the counts leave out
		return err
	})

	hash, err := bcrypt.GenerateFromPassword([]byte("bench password"), bcrypt.MinCost)
	if err != nil {
		b.Fatal(err)
	}
	for i := range benchClients {
		email := fmt.Sprintf("bench%d@example.com", i)
		c, err := s.env.Store.CreateCustomer(ctx, store.NewCustomer{Email: email, Name: "Bench", PasswordHash: string(hash)})
		if err != nil {
			b.Fatal(err)
		}
		if i%2 == 0 {
			subscriber(b, s.env.Store, c.ID, i)
		}
		br := s.browser(b)
		br.signIn(email, "bench password")
		br.addToCart("cf-grinder", "1")
		br.addToCart("bk-fjord", "2")
		// Opening checkout shows the last flash (a view that saves the
		// session) and gives the form's token.
		if _, total := br.checkoutPage(); total != l.checkoutTotalCents {
			b.Fatalf("checkout total %s, want %s", total, l.checkoutTotalCents)
		}
		var cookies []string
		for _, ck := range br.cookies() {
			cookies = append(cookies, ck.Name+"="+ck.Value)
		}
		l.customers = append(l.customers, benchCustomer{id: c.ID, cookie: strings.Join(cookies, "; "), csrf: br.csrf})
		l.fullCarts = append(l.fullCarts, true)
	}
	return l
}

// subscriber gives customer id (the bench's i-th) an active subscription
// paid by a card the test provider kept, as a returning subscriber has:
// the subscribe form on a product's page offers that card.
func subscriber(b *testing.B, st *store.Store, id string, i int) {
	b.Helper()
	sub := store.Subscription{
		ID: store.NewID(), AccountID: id, ProductID: "cf-light", ProductName: "Archipelago Light Roast 500 g",
		Email: fmt.Sprintf("bench%d@example.com", i), MonthlyPrice: store.Money{Amount: 1290, Currency: "EUR"}, PeriodMonths: 1, PaymentDay: 15,
		Status: store.SubscriptionActive, CreatedAt: time.Now().UTC(), Version: 1,
		Card:            store.Card{Token: fmt.Sprintf("pm_bench%d", i), Brand: "Visa", Last4: "4242", Provider: payment.ProviderTest, ExpMonth: 12, ExpYear: 2030},
		NextPaymentDate: rules.Date(2031, 1, 15), NextReminderDate: rules.Date(2031, 1, 8),
	}
	if err := st.SeedSubscription(context.Background(), sub, nil); err != nil {
		b.Fatalf("a bench subscriber: %v", err)
	}
}

// servePlain serves the plain page in this process, like the shop, and
// returns its address.
func servePlain(b *testing.B, read func(ctx context.Context) error) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	app := plainpage.New(read)
	go func() { _ = app.Listener(ln) }()
	b.Cleanup(func() { _ = app.Shutdown() })
	return "http://" + ln.Addr().String()
}

// barePage adds the bare page: the catalogue's first page as the demo shop
// has it, read once now, rendered on every view the way /products renders
// it, with no store call.
func barePage(b *testing.B, st *store.Store) func(fiber.Router) {
	ctx := context.Background()
	cats, err := st.Window().Categories(ctx)
	if err != nil {
		b.Fatal(err)
	}
	shelf, err := st.Window().Shelf(ctx, "", store.ByName, 0, 12)
	if err != nil {
		b.Fatal(err)
	}
	data := views.CataloguePage{Categories: cats, Order: store.ByName, Products: shelf.Products, PerPage: 12, FirstPage: 1, Page: 1, Total: shelf.Total}
	return func(r fiber.Router) {
		r.Get(barePath, func(c *fiber.Ctx) error {
			return render.List(c, "Catalogue", views.CatalogueView, views.CatalogueList, data)
		})
	}
}

// measure sends n views of v (0: no limit) from benchClients clients at
// once, for at most d (0: no limit), and counts the app's DynamoDB
// requests meanwhile. Client i is customer i.
func (l *load) measure(v benchView, n int, d time.Duration) benchResult {
	if n == 0 {
		n = math.MaxInt
	}
	if d == 0 {
		d = math.MaxInt64
	}
	var (
		sent    atomic.Int64
		stop    atomic.Bool
		wg      sync.WaitGroup
		failed  sync.Once
		failure error
	)
	took := make([][]time.Duration, benchClients)
	l.s.env.Counter.Reset()
	start := time.Now()
	for c := range benchClients {
		wg.Go(func() {
			for !stop.Load() && sent.Add(1) <= int64(n) && time.Since(start) < d {
				t, err := l.view(v, c)
				if err != nil {
					failed.Do(func() { failure = err })
					stop.Store(true) // the others stop too
					return
				}
				took[c] = append(took[c], t)
			}
		})
	}
	wg.Wait()
	r := benchResult{name: v.name, took: time.Since(start), views: slices.Concat(took...)}
	if failure != nil {
		l.b.Fatalf("%s: %v", v.name, failure)
	}
	if r.n() == 0 {
		l.b.Fatalf("%s: no view within %s", v.name, d)
	}
	ops := l.s.env.Counter.Ops()
	r.writes = writes(ops)
	for _, k := range ops {
		r.reads += k
	}
	r.reads -= r.writes
	return r
}

// view sends one request of v as client c; the time is the request's
// until its body is read.
func (l *load) view(v benchView, c int) (time.Duration, error) {
	cust := l.customers[c]
	method, body, want := http.MethodGet, "", http.StatusOK
	if v.checkout {
		if err := l.refillCart(c); err != nil {
			return 0, err
		}
		form := checkoutForm(store.NewID(), l.checkoutTotalCents)
		form.Set("_csrf", cust.csrf)
		method, body, want = http.MethodPost, form.Encode(), http.StatusSeeOther
	}
	base := l.s.base
	if v.base != "" {
		base = v.base
	}
	req, err := http.NewRequest(method, base+v.path, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	if v.checkout {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if v.signedIn {
		req.Header.Set("Cookie", cust.cookie)
	}
	start := time.Now()
	resp, err := l.http.Do(req)
	if err != nil {
		return 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	took := time.Since(start)
	if cerr := resp.Body.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != want {
		return 0, fmt.Errorf("%s %s: status %d, want %d", method, v.path, resp.StatusCode, want)
	}
	if v.checkout {
		l.fullCarts[c] = false
	}
	return took, nil
}

// refillCart puts the checkout's two products back into customer c's cart.
func (l *load) refillCart(c int) error {
	if l.fullCarts[c] {
		return nil
	}
	ctx, owner := context.Background(), store.CustomerOwner(l.customers[c].id)
	if err := l.refill.AddToCart(ctx, owner, l.grinder, 1); err != nil {
		return err
	}
	if err := l.refill.AddToCart(ctx, owner, l.fjord, 2); err != nil {
		return err
	}
	l.fullCarts[c] = true
	return nil
}

// benchRows keeps the two plain rows (the yardsticks) and the rows whose
// name BENCH_ROWS (a regular expression) matches: all when it is unset. A
// profile of one page is then that page's and the plain page's alone.
func benchRows(b *testing.B, rows []benchView) []benchView {
	s := os.Getenv("BENCH_ROWS")
	if s == "" {
		return rows
	}
	re, err := regexp.Compile(s)
	if err != nil {
		b.Fatalf("BENCH_ROWS=%q: %v", s, err)
	}
	var kept []benchView
	for _, r := range rows {
		if r.base != "" || re.MatchString(r.name) {
			kept = append(kept, r)
		}
	}
	return kept
}

// benchCount is the count the environment variable sets, or def.
func benchCount(b *testing.B, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a positive count", name, s)
	}
	return n
}

// benchDuration is how long each row of the table runs: BENCH_DURATION,
// 5 s if unset.
func benchDuration(b *testing.B) time.Duration {
	s := os.Getenv("BENCH_DURATION")
	if s == "" {
		return 5 * time.Second
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		b.Fatalf("BENCH_DURATION=%q: want a positive duration (5s)", s)
	}
	return d
}
