package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
	"shop/store/payment"
)

// The soak: a few hundred simulated customers browse, sign up, sign in,
// fill carts and check out against the real shop binary (its own DynamoDB
// Local, on 127.0.0.1), while the DynamoDB Local child is killed twice.
// Then it checks the books and that every request got an answer. Run it
// with go tool task soak; it is not part of the test suite.
var (
	soakFor       = flag.Duration("soak", 0, "run the load and fault test for this long (go tool task soak)")
	soakCustomers = flag.Int("soak-customers", 200, "simulated customers of the soak")
	soakKills     = flag.Int("soak-kills", 2, "times the soak kills the DynamoDB Local child")
)

// soakProducts are demo products the customers buy, with deep stock.
var soakProducts = []string{"cf-gbg-dark", "cf-light", "cf-espresso", "cf-decaf", "cf-filters"}

const (
	soakGiftCard       = "SOAK-GIFT-0001"
	soakRequestTimeout = 10 * time.Second // the shop's own
)

func TestSoak(t *testing.T) {
	if *soakFor <= 0 {
		t.Skip("the soak runs only when asked: go tool task soak")
	}
	dir := t.TempDir()
	sh := startSoakShop(t, dir)
	st, _ := sh.store(t)
	ctx := context.Background()

	// Deep stock, and a gift card some customers pay with.
	stockBefore := map[string]int{}
	for _, id := range soakProducts {
		levels, err := st.ProductStock(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range levels {
			l.Quantity += 100_000
			if err := st.PutStockLevel(ctx, l); err != nil {
				t.Fatal(err)
			}
			stockBefore[id+"|"+l.WarehouseID] = l.Quantity
		}
	}
	gift := store.GiftCard{Code: soakGiftCard, Balance: store.Money{Amount: 200_00, Currency: "EUR"}, Initial: store.Money{Amount: 200_00, Currency: "EUR"}, CreatedAt: time.Now()}
	if _, err := st.CreateGiftCard(ctx, gift); err != nil {
		t.Fatal(err)
	}
	start := time.Now().UTC()

	// The load, and the kills at even intervals within it.
	var tally soakTally
	deadline := start.Add(*soakFor)
	var wg sync.WaitGroup
	for i := range *soakCustomers {
		wg.Go(func() { soakCustomer(sh.base, i, deadline, &tally) })
	}
	kills := 0
	for k := 1; k <= *soakKills; k++ {
		time.Sleep(time.Until(start.Add(*soakFor * time.Duration(k) / time.Duration(*soakKills+1))))
		if err := sh.killEngine(); err != nil {
			t.Errorf("kill the engine: %v", err)
			continue
		}
		kills++
	}
	wg.Wait()
	took := time.Since(start)
	if err := sh.waitReady(90 * time.Second); err != nil {
		t.Fatalf("the shop did not come back after the run: %v\n%s", err, sh.logTail())
	}
	st, client := sh.store(t) // the engine's address may have changed with its restarts

	books := checkSoakBooks(t, st, client, start, stockBefore, gift.Initial)
	t.Logf("soak: %s, %d customers, the engine killed %d times", took.Round(time.Second), *soakCustomers, kills)
	t.Logf("requests: %d answered (%s), %d slow (past the timeout), %d without an answer",
		tally.total.Load(), tally.statuses(), tally.slow.Load(), tally.failed.Load())
	t.Logf("the first 503s: %v", tally.unavailable)
	t.Logf("orders placed: %d (%d with the gift card), sign-ups %d, sign-ins %d", books.orders, books.giftOrders, tally.signups.Load(), tally.signins.Load())
	t.Logf("books: %s", books)
	if n := tally.count(http.StatusInternalServerError); n > 0 {
		t.Errorf("%d answers were 500: %v\nthe shop logged:\n%s", n, tally.examples(), sh.errorLines(10))
	}
	if tally.failed.Load() > 0 || tally.slow.Load() > 0 {
		t.Errorf("%d requests got no answer and %d took longer than the timeout: %v", tally.failed.Load(), tally.slow.Load(), tally.examples())
	}
	if kills < *soakKills {
		t.Errorf("the engine was killed %d times of %d", kills, *soakKills)
	}
	if restarts := strings.Count(sh.log(), "restarted"); kills > 0 && restarts == 0 {
		t.Logf("the shop's log does not say it restarted the engine: %s", sh.logTail())
	}
}

// buildShop builds the shop binary into dir and returns its path.
func buildShop(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "shop")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// soakShop is the shop binary, serving on a free port of 127.0.0.1.
type soakShop struct {
	cmd     *exec.Cmd
	base    string
	dataDir string
	logPath string
}

func startSoakShop(t *testing.T, dir string) *soakShop {
	t.Helper()
	bin := buildShop(t, dir)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	sh := &soakShop{base: "http://" + addr, dataDir: filepath.Join(dir, "data"), logPath: filepath.Join(dir, "shop.log")}
	logFile, err := os.Create(sh.logPath)
	if err != nil {
		t.Fatal(err)
	}
	sh.cmd = exec.Command(bin, "serve", "-bcrypt-cost", "4")
	sh.cmd.Env = append(os.Environ(), "SHOP_ADDR="+addr, "SHOP_DATA_DIR="+sh.dataDir, "SHOP_JOBS=false",
		// Each simulated customer comes from an address of its own, as a
		// proxy on this machine would say.
		"SHOP_PROXY_HEADER=X-Forwarded-For", "SHOP_TRUSTED_PROXIES=127.0.0.1")
	sh.cmd.Stdout, sh.cmd.Stderr = logFile, logFile
	if err := sh.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = sh.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- sh.cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("the shop exited with %v after the soak:\n%s", err, sh.logTail())
			}
		case <-time.After(30 * time.Second):
			_ = sh.cmd.Process.Kill()
			t.Error("the shop did not stop within 30 s of SIGTERM")
		}
		logFile.Close()
	})
	if err := sh.waitReady(3 * time.Minute); err != nil {
		t.Fatalf("the shop did not start: %v\n%s", err, sh.logTail())
	}
	return sh
}

func (sh *soakShop) waitReady(within time.Duration) error {
	end := time.Now().Add(within)
	for {
		resp, err := http.Get(sh.base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(end) {
			return fmt.Errorf("not ready after %s (last: %v)", within, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// store is a store over the shop's engine, at the address the shop wrote.
func (sh *soakShop) store(t *testing.T) (*store.Store, *dynamodb.Client) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sh.dataDir, "dynamodb-endpoint"))
	if err != nil {
		t.Fatal(err)
	}
	client, err := store.NewClient(context.Background(), store.ClientConfig{Endpoint: strings.TrimSpace(string(b))})
	if err != nil {
		t.Fatal(err)
	}
	return store.New(client, "shop"), client
}

// killEngine kills -9 every Java process under the shop: its DynamoDB
// Local.
func (sh *soakShop) killEngine() error {
	pids := descendants(sh.cmd.Process.Pid)
	killed := 0
	for _, pid := range pids {
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if strings.TrimSpace(string(comm)) != "java" {
			continue
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err == nil {
			killed++
		}
	}
	if killed == 0 {
		return fmt.Errorf("no java process under the shop (pid %d; children %v)", sh.cmd.Process.Pid, pids)
	}
	return nil
}

// descendants are the processes under pid, from /proc.
func descendants(pid int) []int {
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after ")".
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 {
			if pp, err := strconv.Atoi(fields[1]); err == nil {
				parent[p] = pp
			}
		}
	}
	var out []int
	for p := range parent {
		for a := parent[p]; a > 1; a = parent[a] {
			if a == pid {
				out = append(out, p)
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

func (sh *soakShop) log() string {
	b, _ := os.ReadFile(sh.logPath)
	return string(b)
}

// errorLines are the first n lines the shop logged at level ERROR.
func (sh *soakShop) errorLines(n int) string {
	var out []string
	for _, line := range strings.Split(sh.log(), "\n") {
		if strings.Contains(line, "level=ERROR") && len(out) < n {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

func (sh *soakShop) logTail() string {
	l := sh.log()
	return l[max(0, len(l)-4000):]
}

// soakTally counts the answers.
type soakTally struct {
	total, slow, failed, signups, signins, orders atomic.Int64
	mu                                            sync.Mutex
	byStatus                                      map[int]int
	bad                                           []string
	unavailable                                   []string // the first 503s
}

func (t *soakTally) answer(method, path string, status int, took time.Duration, err error) {
	t.total.Add(1)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byStatus == nil {
		t.byStatus = map[int]int{}
	}
	switch {
	case err != nil:
		t.failed.Add(1)
		t.note(fmt.Sprintf("%s %s: %v", method, path, err))
		return
	case took > soakRequestTimeout+2*time.Second:
		t.slow.Add(1)
		t.note(fmt.Sprintf("%s %s: %d after %s", method, path, status, took.Round(time.Millisecond)))
	case status >= 500 && status != http.StatusServiceUnavailable:
		t.note(fmt.Sprintf("%s %s: %d", method, path, status))
	case status == http.StatusServiceUnavailable && len(t.unavailable) < 5:
		t.unavailable = append(t.unavailable, fmt.Sprintf("%s %s after %s", method, path, took.Round(time.Millisecond)))
	}
	t.byStatus[status]++
}

func (t *soakTally) note(s string) {
	if len(t.bad) < 10 {
		t.bad = append(t.bad, s)
	}
}

func (t *soakTally) count(status int) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.byStatus[status]
}

func (t *soakTally) examples() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.bad)
}

func (t *soakTally) statuses() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var codes []int
	for c := range t.byStatus {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	var parts []string
	for _, c := range codes {
		parts = append(parts, fmt.Sprintf("%d: %d", c, t.byStatus[c]))
	}
	return strings.Join(parts, ", ")
}

// soakClient is one simulated customer's browser at an address of its own.
type soakClient struct {
	base, addr string
	http       *http.Client
	csrf       string
	tally      *soakTally
}

func (c *soakClient) do(method, path string, form url.Values) (int, *goquery.Document, http.Header) {
	var body io.Reader
	if form != nil {
		if _, ok := form["_csrf"]; !ok {
			form.Set("_csrf", c.csrf)
		}
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, c.base+path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("X-Forwarded-For", c.addr)
	t0 := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		c.tally.answer(method, path, 0, time.Since(t0), err)
		return 0, nil, nil
	}
	defer resp.Body.Close()
	doc, _ := goquery.NewDocumentFromReader(bufio.NewReader(resp.Body))
	c.tally.answer(method, path, resp.StatusCode, time.Since(t0), nil)
	if doc != nil {
		if tok, ok := doc.Find(`input[name="_csrf"]`).First().Attr("value"); ok && tok != "" {
			c.csrf = tok
		}
	}
	return resp.StatusCode, doc, resp.Header
}

// soakCustomer plays customers one after another until the deadline: each
// browses, signs up, fills a cart, checks out (sometimes with the gift
// card, sometimes with a declined card), and sometimes signs out and in
// again, with a wrong password first.
func soakCustomer(base string, n int, deadline time.Time, tally *soakTally) {
	for k := 0; time.Now().Before(deadline); k++ {
		jar, _ := cookiejar.New(nil)
		c := &soakClient{base: base, addr: fmt.Sprintf("10.%d.%d.%d", n/250, n%250, k%250+1), tally: tally, http: &http.Client{
			Jar: jar, Timeout: soakRequestTimeout + 5*time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}}
		// People read a page before the next click.
		think := func() { time.Sleep(time.Duration(300+rand.IntN(1200)) * time.Millisecond) }
		product := soakProducts[rand.IntN(len(soakProducts))]
		c.do(http.MethodGet, "/", nil)
		think()
		c.do(http.MethodGet, "/products/"+product, nil)
		think()
		if rand.IntN(3) == 0 {
			continue // a visitor who only looks
		}
		email := fmt.Sprintf("soak-%d-%d-%d@example.com", n, k, time.Now().UnixNano()%1e6)
		password := "soak password " + strconv.Itoa(n)
		c.do(http.MethodGet, "/signup", nil)
		if status, _, _ := c.do(http.MethodPost, "/signup", url.Values{"email": {email}, "name": {"Soak " + strconv.Itoa(n)}, "password": {password}}); status != http.StatusSeeOther {
			continue
		}
		tally.signups.Add(1)
		think()
		c.do(http.MethodGet, "/products/"+product, nil)
		c.do(http.MethodPost, "/cart/items", url.Values{"product_id": {product}, "quantity": {strconv.Itoa(1 + rand.IntN(2))}})
		think()
		status, doc, _ := c.do(http.MethodGet, "/checkout", nil)
		if status != http.StatusOK || doc == nil {
			continue
		}
		key, _ := doc.Find(`input[name="key"]`).Attr("value")
		total, _ := doc.Find(`[data-testid="expected-total"]`).Attr("value")
		form := url.Values{"key": {key}, "total": {total}, "name": {"Soak Customer"}, "street": {"Storgatan"}, "number": {"1"},
			"zip": {"41101"}, "city": {"Göteborg"}, "country": {"Sweden"}, "card_number": {payment.CardSucceeds}, "expiry": {"12/30"}, "cvc": {"123"}}
		switch r := rand.IntN(10); {
		case r == 0:
			form.Set("card_number", payment.CardDeclined)
		case r < 4:
			form.Set("giftcard", soakGiftCard) // the total stays: a gift card pays, it does not discount
		}
		status, _, hdr := c.do(http.MethodPost, "/checkout", form)
		if status == http.StatusSeeOther && strings.HasPrefix(hdr.Get("Location"), "/orders/") {
			tally.orders.Add(1)
		}
		think()
		if rand.IntN(4) == 0 {
			c.do(http.MethodPost, "/logout", url.Values{})
			c.do(http.MethodGet, "/login", nil)
			c.do(http.MethodPost, "/login", url.Values{"email": {email}, "password": {"not the password"}})
			if status, _, _ := c.do(http.MethodPost, "/login", url.Values{"email": {email}, "password": {password}}); status == http.StatusSeeOther {
				tally.signins.Add(1)
			}
		}
	}
}

// soakBooks is what the books hold after the soak.
type soakBooks struct {
	orders, giftOrders, charges, chargesOpen, chargesVoided int
	giftSpent                                               store.Money
}

func (b soakBooks) String() string {
	return fmt.Sprintf("%d orders, each with its invoice and its stock taken; gift card spent %s and never below zero; %d card charges: %d paid orders, %d voided, %d of checkouts still open (younger than the reconcile age)",
		b.orders, b.giftSpent, b.charges, b.charges-b.chargesVoided-b.chargesOpen, b.chargesVoided, b.chargesOpen)
}

// checkSoakBooks checks every order placed since start: its invoice, its
// stock taken, the gift card's balance, and every card charge accounted
// for.
func checkSoakBooks(t *testing.T, st *store.Store, client *dynamodb.Client, start time.Time, stockBefore map[string]int, giftInitial store.Money) soakBooks {
	t.Helper()
	ctx := context.Background()
	var books soakBooks
	taken := map[string]int{}
	paidBy := map[string]bool{} // charge ids the invoices name
	giftSpent := int64(0)
	end := time.Now().Add(time.Minute) // one range for every page: a cursor is pinned to its range
	for cursor := ""; ; {
		page, err := st.OrdersBetween(ctx, start.Add(-time.Minute), end, 100, cursor)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range page.Items {
			d, err := st.OrderDetails(ctx, o.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Invoices) == 0 {
				t.Errorf("order %s has no invoice", o.ID)
			}
			for _, it := range d.Items {
				for _, a := range it.Allocations {
					taken[it.ProductID+"|"+a.WarehouseID] += a.Quantity
				}
			}
			for _, inv := range d.Invoices {
				for _, p := range inv.Payments {
					if p.Type == "GiftCard" {
						giftSpent += p.Amount.Amount
						books.giftOrders++
						continue
					}
					paidBy[strings.Fields(p.Reference)[0]] = true
				}
			}
			books.orders++
		}
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	for key, before := range stockBefore {
		product, warehouse, _ := strings.Cut(key, "|")
		levels, err := st.ProductStock(ctx, product)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range levels {
			if l.WarehouseID != warehouse {
				continue
			}
			if l.Quantity < 0 || before-l.Quantity != taken[key] {
				t.Errorf("stock of %s in %s: %d before, %d after, orders took %d", product, warehouse, before, l.Quantity, taken[key])
			}
		}
	}
	gift, err := st.GiftCard(ctx, soakGiftCard)
	if err != nil {
		t.Fatal(err)
	}
	books.giftSpent = store.Money{Amount: giftSpent, Currency: "EUR"}
	if gift.Balance.Amount < 0 || giftInitial.Amount-gift.Balance.Amount != giftSpent {
		t.Errorf("gift card: %s of %s left, invoices spent %s", gift.Balance, giftInitial, books.giftSpent)
	}

	// The gateway's ledger: every charge since the start is paid for by an
	// order, or voided, or belongs to a checkout still open and younger
	// than the reconcile age (15 minutes; the reconcile job settles it).
	open := map[string]bool{}
	intents, err := st.OpenCheckoutIntents(ctx, time.Now().Add(time.Second), 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range intents {
		if time.Since(in.StartedAt) < 15*time.Minute {
			open[in.ChargeKey] = true
		}
	}
	for _, ch := range soakCharges(t, st, client, start) {
		if ch.ID == "" {
			continue // a declined card: nothing charged
		}
		books.charges++
		switch {
		case ch.Voided:
			books.chargesVoided++
		case paidBy[ch.ID]:
		case open[ch.Key]:
			books.chargesOpen++
		default:
			t.Errorf("charge %s (key %s, %s) belongs to no order, was not voided, and no open checkout holds it", ch.ID, ch.Key, ch.Amount)
		}
	}
	return books
}

// soakCharges reads the test gateway's ledger since start. Only tests
// scan.
func soakCharges(t *testing.T, st *store.Store, client *dynamodb.Client, start time.Time) []store.GatewayCharge {
	t.Helper()
	ctx := context.Background()
	expr, err := expression.NewBuilder().WithFilter(expression.Name("EntityType").Equal(expression.Value("gatewayCharge")).
		And(expression.Name("At").GreaterThanEqual(expression.Value(start.Format("2006-01-02T15:04:05.000Z07:00"))))).
		WithProjection(expression.NamesList(expression.Name("PK"))).Build()
	if err != nil {
		t.Fatal(err)
	}
	var out []store.GatewayCharge
	p := dynamodb.NewScanPaginator(client, &dynamodb.ScanInput{TableName: aws.String(st.Table()), FilterExpression: expr.Filter(),
		ProjectionExpression: expr.Projection(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values()})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			pk, _ := it["PK"].(*types.AttributeValueMemberS)
			ch, err := st.GatewayCharge(ctx, strings.TrimPrefix(pk.Value, "gw#"))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, ch)
		}
	}
	return out
}
