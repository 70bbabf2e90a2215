package web_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/gofiber/fiber/v2"
	"golang.org/x/crypto/bcrypt"

	"shop/jobs"
	"shop/store"
	"shop/store/demo"
	"shop/store/payment"
	"shop/store/photos"
	"shop/store/rules"
	"shop/store/shelf"
	"shop/store/storetest"
	"shop/web"
)

func TestMain(m *testing.M) { storetest.Main(m, validateRenderedPages, stopChromium) }

var (
	keyA = bytes.Repeat([]byte{'a'}, 32)
	keyB = bytes.Repeat([]byte{'b'}, 32)
)

// syncBuffer collects the app's log for assertions.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// shop is the real Fiber app on a real port over a fresh table.
type shop struct {
	env     storetest.Env
	base    string
	log     *syncBuffer
	gateway *payment.TestGateway
	// provider is the test card provider, active unless an option chose
	// another: checkout sends the customer to its page (see pay).
	provider *payment.TestProvider
	// subs moves subscriptions' money through the providers (the payments
	// job of a test runs over its providers).
	subs *jobs.SubscriptionPayments
}

// appOption changes the app's configuration before it starts (a test's
// jobs scheduler, say); it sees the test's table.
type appOption func(env storetest.Env, cfg *web.Config)

// startApp serves the app over env's table (or another table name), with
// its DynamoDB requests counted by env's counter and by the app's metrics.
func startApp(t testing.TB, env storetest.Env, table string, keys [][]byte, opts ...appOption) (string, *syncBuffer) {
	t.Helper()
	a := startAppWithGateway(t, env, table, keys, opts...)
	return a.base, a.log
}

// startedApp is an app served for a test, with its card providers.
type startedApp struct {
	base     string
	log      *syncBuffer
	gateway  *payment.TestGateway
	provider *payment.TestProvider
	subs     *jobs.SubscriptionPayments
}

func startAppWithGateway(t testing.TB, env storetest.Env, table string, keys [][]byte, opts ...appOption) startedApp {
	t.Helper()
	logs := &syncBuffer{}
	metrics := web.NewMetrics()
	client, err := store.NewClient(context.Background(), store.ClientConfig{Endpoint: env.Endpoint}, env.Counter, metrics)
	if err != nil {
		t.Fatal(err)
	}
	st := store.New(client, table)
	gateway := payment.NewTestGateway(st)
	// The test provider takes the cards, as in the shop's test mode; its
	// pages, and the pages it sends the customer back to, are under the
	// app's address, known once it is served.
	provider, err := payment.NewTestProvider(context.Background(), st, "")
	if err != nil { // a test of a broken store (no such table): the provider's secret is kept in the test's own
		provider = testProvider(t, env.Store)
	}
	cfg := web.Config{
		Store: st, Log: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		LegacyGateway: gateway, Metrics: metrics, SessionKeys: keys, BcryptCost: bcrypt.MinCost,
		Shelf: shelf.Disk{Dir: t.TempDir(), What: photos.What}, Payments: payment.NewProviders(provider),
		// Each request reads its session, so that tests count a page's
		// requests alike whenever they run; withSessionCache for the cache.
		SessionCache: -1,
		// The API's key cache reloads hourly, not every 3 s: a reload's
		// Query landing inside a measured step made a page count one
		// request more in some runs. Tests of reloading say how often.
		APIKeysEvery: time.Hour,
	}
	for _, o := range opts {
		o(env, &cfg)
	}
	if cfg.SubscriptionPayments == nil { // made here for its links to the app's address
		_, cfg.SubscriptionPayments = jobs.NewCardPayments(cfg.Store, cfg.Payments, "", cfg.Log)
	}
	app, err := web.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, app)
	provider.BaseURL = base
	if active, ok := cfg.Payments.Active().(*payment.TestProvider); ok && active.BaseURL == "" {
		active.BaseURL = base
	}
	if sp := cfg.SubscriptionPayments; sp.BaseURL == "" {
		sp.BaseURL = base
	}
	return startedApp{base: base, log: logs, gateway: gateway, provider: provider, subs: cfg.SubscriptionPayments}
}

// testProvider is the built-in test provider over st, as the shop's test
// mode has it: a web.Config's Payments.
func testProvider(t testing.TB, st *store.Store) *payment.TestProvider {
	t.Helper()
	p, err := payment.NewTestProvider(context.Background(), st, "")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// serve runs app on a free port until the test ends: its base URL.
func serve(t testing.TB, app *fiber.App) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.ShutdownWithTimeout(5 * time.Second) })
	return "http://" + ln.Addr().String()
}

// newShop serves the app over a table of the test's own holding the demo
// shop (from storetest's pool: a table another test used, put back as the
// demo left it). The demo's dates follow its day: a pool a day.
func newShop(t testing.TB, opts ...appOption) *shop {
	t.Helper()
	day := store.FormatDate(rules.DateOf(time.Now(), time.UTC)) // a new store's Today
	env := storetest.Reused(t, "demo "+day, loadDemo)
	a := startAppWithGateway(t, env, env.Table, [][]byte{keyA}, opts...)
	env.Counter.Reset()
	return &shop{env: env, base: a.base, log: a.log, gateway: a.gateway, provider: a.provider, subs: a.subs}
}

// sharedShop is newShop for a test that only reads the demo shop: the
// app is the test's own (its caches, log, request counter and options),
// the table under it is loaded once per test binary and shared by every
// test that asks (storetest.Shared). Loading the demo shop into a table of
// each test's own was most of what a short test cost.
//
// To adopt it, a test must leave the table as it found it for the tests
// beside it: visitors browsing, searching, HTMX partials, static files,
// 404s and refusals of bad input that write nothing. A test that signs in
// (the customer's record and the sign-in limit are written), posts a form
// that is accepted, changes the clock the store sees, or writes through
// s.env.Store takes newShop. When in doubt, newShop.
func sharedShop(t testing.TB, opts ...appOption) *shop {
	t.Helper()
	env := storetest.Shared(t, "demo", loadDemo)
	a := startAppWithGateway(t, env, env.Table, [][]byte{keyA}, opts...)
	env.Counter.Reset()
	return &shop{env: env, base: a.base, log: a.log, gateway: a.gateway, provider: a.provider, subs: a.subs}
}

// newShopWithoutHistory is newShop on the demo shop without its past
// orders, for tests that count every order of a range across its pages.
// Its tables come from a pool of their own, as newShop's do: writing the
// demo's few hundred lasting items into a new table for each test cost
// DynamoDB Local more than finding and undoing what a test wrote.
func newShopWithoutHistory(t testing.TB, opts ...appOption) *shop {
	t.Helper()
	day := store.FormatDate(rules.DateOf(time.Now(), time.UTC)) // a new store's Today
	env := storetest.Reused(t, "demo without history "+day, loadDemoWithoutHistory)
	a := startAppWithGateway(t, env, env.Table, [][]byte{keyA}, opts...)
	env.Counter.Reset()
	return &shop{env: env, base: a.base, log: a.log, gateway: a.gateway, provider: a.provider, subs: a.subs}
}

// loadDemoWithoutHistory puts the demo shop's items but its past orders
// (and what hangs off them) into env's table.
func loadDemoWithoutHistory(t testing.TB, env storetest.Env) {
	t.Helper()
	// The first of the day loads the demo into a table of its own, then
	// comes from the copy it made.
	items := demoItems(t, storetest.New(t))
	if items == nil {
		items = demoItems(t, env)
	}
	history := map[string]bool{"order": true, "orderItem": true, "invoice": true, "shipment": true, "shipmentItem": true,
		"orderNumber": true, "gatewayCharge": true, "orderRefund": true, "gatewayRefund": true}
	kept := make([]map[string]types.AttributeValue, 0, len(items))
	for _, it := range items {
		if kind, ok := it["EntityType"].(*types.AttributeValueMemberS); !ok || !history[kind.Value] {
			kept = append(kept, it)
		}
	}
	env.PutItems(t, kept)
}

// demoShop is the demo shop's items as demo.Load wrote them into the
// first table of the day, copied into each later test's table: a few batch
// writes instead of the 190 requests of loading it (a second a test).
var demoShop struct {
	sync.Mutex
	day   string
	items []map[string]types.AttributeValue
	keys  map[string]bool // of items, once asked (fromDemo)
}

// loadDemo puts the demo shop into env's table.
func loadDemo(t testing.TB, env storetest.Env) {
	t.Helper()
	if items := demoItems(t, env); items != nil {
		env.PutItems(t, items)
	}
}

// demoItems are the demo shop's items of the day, or nil if it was loaded
// into env's table just now to make them.
func demoItems(t testing.TB, env storetest.Env) []map[string]types.AttributeValue {
	t.Helper()
	day := store.FormatDate(env.Store.Today()) // the demo's dates are relative to its day
	demoShop.Lock()
	defer demoShop.Unlock()
	if demoShop.day == day {
		return demoShop.items
	}
	// Once per binary: generous, for a busy machine (its history is a
	// thousand items).
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if _, err := demo.Load(ctx, env.Store, bcrypt.MinCost); err != nil {
		t.Fatalf("demo data: %v", err)
	}
	// The test provider's secret too, as a serving shop makes it at its
	// start: an app over a copy (the shared table too) only reads it.
	if _, err := env.Store.TestPaySecret(ctx); err != nil {
		t.Fatalf("test provider secret: %v", err)
	}
	demoShop.day, demoShop.items, demoShop.keys = day, env.Items(t), nil
	return nil
}

// fromDemo says whether an item is one of the demo shop's own, as loaded
// (by its keys): the demo's past payments are the test provider's, so a
// test counting the provider's records it made leaves them out.
func fromDemo(it map[string]types.AttributeValue) bool {
	pk, _ := it["PK"].(*types.AttributeValueMemberS)
	sk, _ := it["SK"].(*types.AttributeValueMemberS)
	if pk == nil || sk == nil {
		return false
	}
	demoShop.Lock()
	defer demoShop.Unlock()
	if demoShop.keys == nil {
		demoShop.keys = map[string]bool{}
		for _, d := range demoShop.items {
			if p, ok := d["PK"].(*types.AttributeValueMemberS); ok {
				s, _ := d["SK"].(*types.AttributeValueMemberS)
				demoShop.keys[p.Value+"\x00"+s.Value] = true
			}
		}
	}
	return demoShop.keys[pk.Value+"\x00"+sk.Value]
}

// madeHere counts the items of an entity type in s's table that are not
// the demo shop's own: those the test made.
func (s *shop) madeHere(t testing.TB, entity string) int {
	t.Helper()
	n := 0
	for _, it := range s.env.Items(t) {
		if kind, ok := it["EntityType"].(*types.AttributeValueMemberS); ok && kind.Value == entity && !fromDemo(it) {
			n++
		}
	}
	return n
}

// browser is one visitor: a cookie jar, no automatic redirects.
type browser struct {
	t    testing.TB
	base string
	http *http.Client
	csrf string // from the last page that had a form
	shop *shop  // whose provider's pages it pays on (nil: a browser of an address)
}

func (s *shop) browser(t testing.TB) *browser {
	b := newBrowser(t, s.base)
	b.shop = s
	return b
}

func newBrowser(t testing.TB, base string) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: base, http: &http.Client{
		Jar: jar, Timeout: 20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// missingMessages finds lang.Missing's mark of a message id a catalogue
// lacks.
var missingMessages = regexp.MustCompile(`⟦[^⟧]*⟧`)

type page struct {
	status int
	header http.Header
	doc    *goquery.Document
	body   string
}

// setCookie is the response's Set-Cookie line for the cookie name, "" if
// the response sets none.
func (p page) setCookie(name string) string {
	for _, c := range p.header.Values("Set-Cookie") {
		if strings.HasPrefix(c, name+"=") {
			return c
		}
	}
	return ""
}

func (p page) testid(id string) *goquery.Selection {
	return p.doc.Find(`[data-testid="` + id + `"]`)
}

func (b *browser) do(req *http.Request) page {
	b.t.Helper()
	resp, err := b.http.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	renderedPages.keep(req, resp, body)
	if ids := missingMessages.FindAllString(string(body), 5); len(ids) > 0 {
		b.t.Errorf("%s %s shows message ids instead of words (missing from a catalogue in views/lang): %v", req.Method, req.URL.Path, ids)
	}
	parse := body
	if bytes.HasPrefix(bytes.TrimSpace(body), []byte("<tr")) {
		// Table rows for htmx to swap: the HTML parser drops them outside a table.
		parse = append(append([]byte("<table>"), body...), "</table>"...)
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(parse))
	if err != nil {
		b.t.Fatalf("parse %s: %v", req.URL, err)
	}
	if tok, ok := doc.Find(`input[name="_csrf"]`).First().Attr("value"); ok && tok != "" {
		b.csrf = tok
	}
	return page{status: resp.StatusCode, header: resp.Header, doc: doc, body: string(body)}
}

func (b *browser) get(path string, headers ...string) page {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, b.base+path, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return b.do(req)
}

// post submits a form; the CSRF token of the last page is added unless the
// form sets _csrf itself.
func (b *browser) post(path string, form url.Values, headers ...string) page {
	b.t.Helper()
	if _, ok := form["_csrf"]; !ok {
		form.Set("_csrf", b.csrf)
	}
	req, _ := http.NewRequest(http.MethodPost, b.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return b.do(req)
}

func (b *browser) cookies() []*http.Cookie {
	u, _ := url.Parse(b.base)
	return b.http.Jar.Cookies(u)
}

func (b *browser) setCookies(cs []*http.Cookie) {
	u, _ := url.Parse(b.base)
	b.http.Jar.SetCookies(u, cs)
}

// postLogin opens the sign-in form and sends it.
func (b *browser) postLogin(email, password string) page {
	b.t.Helper()
	b.get("/login")
	return b.post("/login", url.Values{"email": {email}, "password": {password}})
}

func (b *browser) signIn(email, password string) {
	b.t.Helper()
	p := b.postLogin(email, password)
	if p.status != http.StatusSeeOther {
		b.t.Fatalf("sign in as %s: status %d: %s", email, p.status, p.testid("form-error").Text())
	}
}

// wantSignedIn fails the test with msg unless the page shows a viewer.
func wantSignedIn(t testing.TB, p page, msg string) {
	t.Helper()
	if p.testid("viewer-name").Length() == 0 {
		t.Fatal(msg)
	}
}

// wantSignedOut fails the test with msg if the page shows a viewer.
func wantSignedOut(t testing.TB, p page, msg string) {
	t.Helper()
	if p.testid("viewer-name").Length() != 0 {
		t.Fatal(msg)
	}
}

func wantStatus(t testing.TB, what string, p page, status int) {
	t.Helper()
	if p.status != status {
		t.Fatalf("%s: status %d, want %d\n%s", what, p.status, status, trim(p.body))
	}
}

func trim(s string) string {
	if len(s) > 600 {
		return s[:600] + "…"
	}
	return s
}

type goquerySelection = goquery.Selection

func itoa(n int) string { return strconv.Itoa(n) }

// sideBySide runs the subtest f at once in a goroutine of its own: run
// several, then wg.Wait, and they go side by side within t's own turn among
// the package's parallel tests. Parallel subtests (t.Parallel in f) would
// wait instead until every parallel test queued behind t had started: they
// ran last of the package, one crawl alone for 20 s at its end.
func sideBySide(t *testing.T, wg *sync.WaitGroup, name string, f func(t *testing.T)) {
	wg.Go(func() { t.Run(name, f) })
}
