package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
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
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/jobs"
	"shop/store"
	"shop/store/demo"
	"shop/store/payment"
	"shop/web"
)

// The cluster check: shop cluster (three replicas on one DynamoDB Local
// behind HAProxy, all on 127.0.0.1) driven through the proxy, to show that
// what one process guarantees holds across replicas: sessions, the sign-in
// limit, stock, the payment job's ticks, a drop's quantity and its gates,
// and a replica killed mid-run. Run it with go tool task cluster-check; it
// is not part of the test suite.
var (
	clusterCheck = flag.Bool("cluster", false, "start shop cluster and check it through its proxy (go tool task cluster-check)")
	clusterPort  = flag.Int("cluster-port", 0, "the proxy's port: the replicas take the next three, DynamoDB Local the fourth after (0: free ports)")
)

// What the check tunes through the shop's own settings: the payment job
// ticks every two seconds, a lease lives ten (renewed every three, so a
// busy machine does not lose it), and a run goes slowly enough
// to be killed midway.
const (
	clusterLeaseTTL = 10 * time.Second
	clusterTick     = 2 * time.Second
)

// clusterRun is the cluster under check.
type clusterRun struct {
	cmd     *exec.Cmd
	state   clusterState
	dir     string
	logPath string
	st      *store.Store
	db      *dynamodb.Client
}

func TestCluster(t *testing.T) {
	if !*clusterCheck {
		t.Skip("the cluster check runs only when asked: go tool task cluster-check")
	}
	if _, err := findHAProxy(); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	cl := startCluster(t, 3)
	t.Logf("cluster up in %s: %s, replicas %d; shop cluster said:\n%s", time.Since(began).Round(time.Second), cl.state.Proxy, len(cl.state.Replicas), logLines(cl.logPath, "level=", 10))
	// The API key first: each replica reloads keys every few seconds.
	apiSecret := cl.apiKey(t, "cluster-check")

	var summary []string
	report := func(name, format string, args ...any) {
		line := fmt.Sprintf("%-9s %s", name, fmt.Sprintf(format, args...))
		summary = append(summary, line)
		t.Log(line)
	}
	check := func(name string, f func(t *testing.T) string) {
		var result string
		ok := t.Run(name, func(t *testing.T) { result = f(t) })
		status := "ok"
		if !ok {
			status = "FAILED"
		}
		report(name, "%s: %s", status, result)
	}
	check("session", cl.checkSession)
	check("limit", cl.checkSignInLimit)
	check("checkout", cl.checkCheckoutRace)
	check("drop", func(t *testing.T) string { return cl.checkDrop(t, apiSecret) })
	check("reqs/s", cl.checkThroughput)
	check("payments", cl.checkPaymentTicks)
	check("kill", cl.checkKillMidRun)

	t.Logf("cluster check took %s", time.Since(began).Round(time.Second))
	fmt.Printf("\n== cluster check (%d replicas behind HAProxy, %s) ==\n%s\n\n", len(cl.state.Replicas), time.Since(began).Round(time.Second), strings.Join(summary, "\n"))
}

// clusterFreePorts finds a proxy port whose next four are free too: the
// replicas' and the engine's.
func clusterFreePorts(t *testing.T) int {
	t.Helper()
	if *clusterPort > 0 {
		return *clusterPort
	}
	for range 50 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		base := l.Addr().(*net.TCPAddr).Port
		l.Close()
		free := base+4 <= 65535
		for p := base + 1; free && p <= base+4; p++ {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
			if err != nil {
				free = false
				break
			}
			l.Close()
		}
		if free {
			return base
		}
	}
	t.Fatal("no five free ports in a row on 127.0.0.1")
	return 0
}

// startCluster starts shop cluster with n replicas and the demo shop, the
// payment job ticking every two seconds (and SHOP_* settings of more), and
// waits until it serves.
func startCluster(t *testing.T, replicas int, more ...string) *clusterRun {
	t.Helper()
	dir := t.TempDir()
	built := time.Now()
	bin := buildShop(t, dir)
	t.Logf("built the shop in %s", time.Since(built).Round(time.Second))
	port := clusterFreePorts(t)
	cl := &clusterRun{dir: filepath.Join(dir, "data"), logPath: filepath.Join(dir, "cluster.log")}
	logFile, err := os.Create(cl.logPath)
	if err != nil {
		t.Fatal(err)
	}
	cl.cmd = exec.Command(bin, "cluster", "-addr", fmt.Sprintf("127.0.0.1:%d", port), "-replica-port", strconv.Itoa(port+1),
		"-engine-port", strconv.Itoa(port+4), "-data-dir", cl.dir, "-bcrypt-cost", "4", "-replicas", strconv.Itoa(replicas))
	cl.cmd.Env = append(os.Environ(), "SHOP_PAYMENTS_CRON=*/2 * * * * *", "SHOP_LEASE_TTL="+clusterLeaseTTL.String(),
		"SHOP_JOB_CONCURRENCY=2", "SHOP_DEMO=true")
	cl.cmd.Env = append(cl.cmd.Env, more...)
	cl.cmd.Stdout, cl.cmd.Stderr = logFile, logFile
	// A test binary that dies (a timeout) takes the cluster with it.
	cl.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := cl.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cl.cmd.Wait() }()
	t.Cleanup(func() {
		_ = cl.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("shop cluster exited with %v:\n%s", err, cl.logTail())
			}
		case <-time.After(90 * time.Second):
			_ = cl.cmd.Process.Kill()
			t.Error("shop cluster did not stop within 90 s of SIGTERM")
		}
		logFile.Close()
		if t.Failed() {
			for _, r := range cl.state.Replicas {
				t.Logf("%s's errors:\n%s", r.Name, logLines(r.Log, "level=ERROR", 10))
			}
		}
	})
	stateFile := filepath.Join(cl.dir, "cluster", clusterFile)
	end := time.Now().Add(4 * time.Minute)
	for {
		b, err := os.ReadFile(stateFile)
		if err == nil && json.Unmarshal(b, &cl.state) == nil && len(cl.state.Replicas) > 0 {
			break
		}
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("shop cluster exited while starting: %v\n%s", err, cl.logTail())
		case <-time.After(300 * time.Millisecond):
		}
		if time.Now().After(end) {
			t.Fatalf("shop cluster did not start within 4 minutes:\n%s", cl.logTail())
		}
	}
	client, err := store.NewClient(context.Background(), store.ClientConfig{Endpoint: cl.state.Engine})
	if err != nil {
		t.Fatal(err)
	}
	loc, err := time.LoadLocation(env("SHOP_TZ", "Europe/Stockholm"))
	if err != nil {
		t.Fatal(err)
	}
	cl.db, cl.st = client, store.New(client, cl.state.Table, store.WithTimeZone(loc))
	return cl
}

func (cl *clusterRun) logTail() string {
	b, _ := os.ReadFile(cl.logPath)
	return string(b[max(0, len(b)-4000):])
}

// logLines are the first n lines of a log holding what.
func logLines(path, what string, n int) string {
	b, _ := os.ReadFile(path)
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, what) && len(out) < n {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

func (cl *clusterRun) replica(name string) (clusterReplica, bool) {
	for _, r := range cl.state.Replicas {
		if r.Name == name {
			return r, true
		}
	}
	return clusterReplica{}, false
}

// browser is one visitor's browser at an address of its own, through the
// proxy; its cookies go to every replica too (cookies are per host, not
// port).
func (cl *clusterRun) browser(addr string, tally *soakTally) *soakClient {
	jar, _ := cookiejar.New(nil)
	return &soakClient{base: cl.state.Proxy, addr: addr, tally: tally, http: &http.Client{
		Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// press sends a request again while the shop answers 503 (its deadline
// passed on a busy machine), as a person presses again, up to five times.
func press(c *soakClient, method, path string, form url.Values) (int, *goquery.Document, http.Header) {
	for try := 0; ; try++ {
		status, doc, hdr := c.do(method, path, form)
		if status != http.StatusServiceUnavailable || try == 5 {
			return status, doc, hdr
		}
		time.Sleep(time.Second)
	}
}

// checkSession: signed in on one replica, the next requests (on others)
// are signed in too, through the proxy and on each replica directly.
func (cl *clusterRun) checkSession(t *testing.T) string {
	c := cl.browser("10.80.0.1", &soakTally{})
	press(c, http.MethodGet, "/login", nil)
	status, _, hdr := press(c, http.MethodPost, "/login", url.Values{"email": {demo.CustomerEmail}, "password": {demo.CustomerPassword}})
	if status != http.StatusSeeOther {
		t.Fatalf("sign-in answered %d", status)
	}
	signedOn := hdr.Get(web.ReplicaHeader)
	servedBy := map[string]bool{}
	for range 12 {
		status, doc, hdr := press(c, http.MethodGet, "/account", nil)
		if status != http.StatusOK || doc == nil || !strings.Contains(doc.Text(), demo.CustomerEmail) {
			t.Fatalf("/account on %s after signing in on %s: %d (not signed in)", hdr.Get(web.ReplicaHeader), signedOn, status)
		}
		servedBy[hdr.Get(web.ReplicaHeader)] = true
	}
	others := len(servedBy)
	if servedBy[signedOn] {
		others--
	}
	if others == 0 {
		t.Errorf("every /account was served by %s, where the visit signed in: the proxy did not spread them", signedOn)
	}
	for _, r := range cl.state.Replicas {
		c.base = r.URL
		if status, _, _ := press(c, http.MethodGet, "/account", nil); status != http.StatusOK {
			t.Errorf("%s directly: /account answered %d", r.Name, status)
		}
	}
	return fmt.Sprintf("signed in on %s; 12 requests through the proxy served by %s, all signed in; each replica directly: signed in",
		signedOn, strings.Join(sortedKeys(servedBy), ", "))
}

func sortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// checkSignInLimit: wrong passwords from one address spread over the
// replicas are refused at the same attempt as on one replica alone.
func (cl *clusterRun) checkSignInLimit(t *testing.T) string {
	// An attempt answered 503 (a deadline passed on a busy machine) may or
	// may not have been counted: such a round is not evidence, and is run
	// again with a new email and addresses.
	var email string
	busy := false
	firstRefused := func(c *soakClient) (int, map[string]int) {
		servedBy := map[string]int{}
		press(c, http.MethodGet, "/login", nil)
		for n := 1; n <= 20; n++ {
			status, _, hdr := c.do(http.MethodPost, "/login", url.Values{"email": {email}, "password": {"not the password"}})
			servedBy[hdr.Get(web.ReplicaHeader)]++
			switch status {
			case http.StatusTooManyRequests:
				return n, servedBy
			case http.StatusSeeOther:
				t.Fatalf("attempt %d signed in with a wrong password", n)
			case http.StatusServiceUnavailable:
				busy = true
				return 0, servedBy
			}
		}
		return 0, servedBy
	}
	var spread, alone, rounds int
	var servedBy map[string]int
	for rounds = 1; rounds <= 3; rounds++ {
		email, busy = fmt.Sprintf("nobody-%d@cluster.example", time.Now().UnixNano()), false
		spread, servedBy = firstRefused(cl.browser(fmt.Sprintf("10.81.%d.1", rounds), &soakTally{}))
		one := cl.browser(fmt.Sprintf("10.81.%d.2", rounds), &soakTally{})
		one.base = cl.state.Replicas[0].URL
		if !busy {
			alone, _ = firstRefused(one)
		}
		if !busy {
			break
		}
		t.Logf("round %d: an attempt answered 503; again", rounds)
	}
	switch {
	case spread == 0 || alone == 0:
		t.Errorf("no attempt was refused in 20: through the proxy first at %d, on %s alone at %d", spread, cl.state.Replicas[0].Name, alone)
	case spread != alone:
		t.Errorf("through the proxy the first refusal came at attempt %d, on one replica at %d", spread, alone)
	}
	if len(servedBy) < 2 {
		t.Errorf("the attempts were all served by %v", servedBy)
	}
	var spreadText []string
	for _, k := range sortedKeys(servedBy) {
		spreadText = append(spreadText, fmt.Sprintf("%s %d", k, servedBy[k]))
	}
	return fmt.Sprintf("wrong passwords from one address: refused from attempt %d through the proxy (%s), from attempt %d on %s alone (round %d)",
		spread, strings.Join(spreadText, ", "), alone, cl.state.Replicas[0].Name, rounds)
}

// checkCheckoutRace: more buyers than stock check out at once through the
// proxy; exactly the stock is sold, and the table agrees.
func (cl *clusterRun) checkCheckoutRace(t *testing.T) string {
	ctx := context.Background()
	const product, stock, buyers = "cf-espresso", 6, 18
	levels, err := cl.st.ProductStock(ctx, product)
	if err != nil || len(levels) == 0 {
		t.Fatalf("stock of %s: %v %v", product, levels, err)
	}
	for i, l := range levels {
		l.Quantity = 0
		if i == 0 {
			l.Quantity = stock
		}
		if err := cl.st.PutStockLevel(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now().UTC()
	type buyer struct {
		c    *soakClient
		form url.Values
	}
	var ready []buyer
	var mu sync.Mutex
	var wg sync.WaitGroup
	tally := &soakTally{}
	// The buyers get ready three at a time (the race is the checkout, not
	// the sign-ups), each step pressed again on a 503.
	slots := make(chan struct{}, 3)
	for i := range buyers {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			c := cl.browser(fmt.Sprintf("10.82.0.%d", i+1), tally)
			email, password := fmt.Sprintf("buyer-%d-%d@cluster.example", i, start.UnixNano()), "buyer password "+strconv.Itoa(i)
			press(c, http.MethodGet, "/signup", nil)
			status, _, _ := press(c, http.MethodPost, "/signup", url.Values{"email": {email}, "name": {"Buyer " + strconv.Itoa(i)}, "password": {password}})
			if status != http.StatusSeeOther {
				// A 503 may have come after the account was made: sign in.
				press(c, http.MethodGet, "/login", nil)
				status, _, _ = press(c, http.MethodPost, "/login", url.Values{"email": {email}, "password": {password}})
			}
			if status != http.StatusSeeOther {
				t.Errorf("buyer %d: sign-up and sign-in answered %d", i, status)
				return
			}
			press(c, http.MethodGet, "/products/"+product, nil)
			if status, _, _ := press(c, http.MethodPost, "/cart/items", url.Values{"product_id": {product}, "quantity": {"1"}}); status >= 400 {
				t.Errorf("buyer %d: adding to the cart answered %d", i, status)
				return
			}
			status, doc, _ := press(c, http.MethodGet, "/checkout", nil)
			if status != http.StatusOK || doc == nil {
				t.Errorf("buyer %d: checkout page answered %d", i, status)
				return
			}
			key, _ := doc.Find(`input[name="key"]`).Attr("value")
			// The total with delivery to Sweden, as the page's summary gives
			// it once the country is chosen (the form's total has none yet).
			status, sum, _ := press(c, http.MethodPost, "/checkout/summary", url.Values{"country": {"SE"}})
			if status != http.StatusOK || sum == nil {
				t.Errorf("buyer %d: the summary for Sweden answered %d", i, status)
				return
			}
			total, _ := sum.Find(`[data-testid="expected-total"]`).Attr("value")
			form := url.Values{"key": {key}, "total": {total}, "name": {"Cluster Buyer"}, "street": {"Storgatan"}, "number": {"1"},
				"zip": {"41101"}, "city": {"Göteborg"}, "country": {"Sweden"}}
			mu.Lock()
			ready = append(ready, buyer{c, form})
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(ready) != buyers {
		t.Fatalf("%d of %d buyers reached the checkout", len(ready), buyers)
	}
	var placed, refused, busy atomic.Int64
	servedBy := map[string]int{}
	gate := make(chan struct{})
	for _, b := range ready {
		wg.Go(func() {
			<-gate
			// A 503 (the shop's deadline passed while buyers contend for one
			// item on a busy machine) is pressed again, as a customer would:
			// the form's key makes the retry the same checkout.
			status, _, hdr := b.c.do(http.MethodPost, "/checkout", b.form)
			for try := 0; status == http.StatusServiceUnavailable && try < 5; try++ {
				busy.Add(1)
				time.Sleep(time.Second)
				status, _, hdr = b.c.do(http.MethodPost, "/checkout", b.form)
			}
			mu.Lock()
			servedBy[hdr.Get(web.ReplicaHeader)]++
			mu.Unlock()
			switch {
			case status == http.StatusSeeOther && strings.Contains(hdr.Get("Location"), "/test-payments/checkout/"):
				// Held: the card is paid on the test provider's page (the
				// shop's own, through the proxy), and its event, delivered
				// by whichever replica's job ticks, places the order.
				loc := hdr.Get("Location")
				page := loc[strings.Index(loc, "/test-payments/checkout/"):]
				b.c.do(http.MethodGet, page, nil)
				card := url.Values{"card_number": {payment.CardSucceeds}, "expiry": {"12/40"}, "cvc": {"123"}, "name": {"Cluster Buyer"}}
				if status, _, _ := b.c.do(http.MethodPost, page, card); status == http.StatusSeeOther {
					placed.Add(1)
				} else {
					t.Errorf("paying a held checkout answered %d", status)
				}
			case status >= 500 || status == 0:
				t.Errorf("a checkout answered %d", status)
			default:
				refused.Add(1)
			}
		})
	}
	close(gate)
	wg.Wait()

	// Every paid hold placed by its event (the delivery job ticks every 5 s
	// on some replica).
	for deadline := time.Now().Add(90 * time.Second); ; {
		waiting, err := cl.st.HeldOrdersDue(ctx, time.Now().Add(48*time.Hour), 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(waiting) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d paid orders still await their payment's event after 90 s", len(waiting))
		}
		time.Sleep(time.Second)
	}

	// The table: the stock left, and the units the orders since the start
	// took of it.
	left := 0
	levels, err = cl.st.ProductStock(ctx, product)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range levels {
		left += l.Quantity
	}
	orders, units := 0, 0
	for cursor := ""; ; {
		page, err := cl.st.OrdersBetween(ctx, start.Add(-time.Minute), time.Now().Add(time.Minute), 100, cursor)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range page.Items {
			d, err := cl.st.OrderDetails(ctx, o.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range d.Items {
				if it.ProductID == product {
					orders++
					units += it.Quantity
				}
			}
		}
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	if placed.Load() != stock || left != 0 || units != stock || orders != stock {
		t.Errorf("stock %d, %d buyers: %d orders placed (the table holds %d orders of %d units), %d left in stock",
			stock, buyers, placed.Load(), orders, units, left)
	}
	var by []string
	for _, k := range sortedKeys(servedBy) {
		by = append(by, fmt.Sprintf("%s %d", k, servedBy[k]))
	}
	if len(servedBy) < 2 {
		t.Errorf("the checkouts were all served by %v", servedBy)
	}
	return fmt.Sprintf("stock %d, %d buyers at once (%s): %d placed, %d refused (%d answers 503 pressed again); table: %d orders, %d units, %d left",
		stock, buyers, strings.Join(by, ", "), placed.Load(), refused.Load(), busy.Load(), orders, units, left)
}

// apiKey makes an API key and gives its secret. Each replica reloads
// keys every few seconds: a request with it may be refused (401) at first.
func (cl *clusterRun) apiKey(t *testing.T, name string) string {
	t.Helper()
	_, _, secret, err := cl.st.CreateIntegration(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

// apiCall sends a JSON request with the API key and decodes the answer.
func apiCall(method, url, secret string, body any, out any) (int, http.Header, error) {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+secret)
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	if out != nil {
		_ = json.NewDecoder(resp.Body).Decode(out) // an error answer may not be the shape asked for
	}
	return resp.StatusCode, resp.Header, nil
}

// claimUntilAnswered claims a ticket for client, again while the key is
// not yet loaded (401) or the drop is busy (503).
func claimUntilAnswered(base, secret, dropID, client string) (int, string, error) {
	end := time.Now().Add(30 * time.Second)
	for {
		var ans struct {
			Reason string `json:"reason"`
		}
		status, hdr, err := apiCall(http.MethodPost, base+"/api/v1/drops/"+dropID+"/claims", secret, map[string]string{"client": client}, &ans)
		if err != nil {
			return 0, "", err
		}
		if (status != http.StatusUnauthorized && status != http.StatusServiceUnavailable) || time.Now().After(end) {
			return status, hdr.Get(web.ReplicaHeader) + " " + ans.Reason, nil
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// dynamoWrites is how many claims' transactions a replica has sent to
// DynamoDB, from its metrics.
func dynamoWrites(base string) (int, error) {
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("/metrics answered %s", resp.Status)
	}
	n := 0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, `shop_dynamodb_requests_total{operation="TransactWriteItems"`) {
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			return 0, fmt.Errorf("metrics line %q: %w", line, err)
		}
		n += int(v)
	}
	return n, sc.Err()
}

// checkDrop: claims through the proxy hand out exactly the quantity; then
// every replica's gate knows the drop is sold out and refuses further
// claims without a DynamoDB write.
func (cl *clusterRun) checkDrop(t *testing.T, secret string) string {
	ctx := context.Background()
	const quantity, clients = 15, 45
	now := time.Now()
	// The integration's own drop: an API key reaches no other (#25).
	d, err := cl.st.CreateDrop(ctx, store.NewDrop{Title: "Cluster check drop", Quantity: quantity, Opens: now, Closes: now.Add(time.Hour),
		Audience: store.IntegrationAudience("cluster-check"), CreatedBy: store.IntegrationAudience("cluster-check")})
	if err != nil {
		t.Fatal(err)
	}
	var tickets, soldOut atomic.Int64
	var mu sync.Mutex
	servedBy := map[string]int{}
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i := range clients {
		wg.Go(func() {
			<-gate
			status, who, err := claimUntilAnswered(cl.state.Proxy, secret, d.ID, fmt.Sprintf("client-%d", i))
			if err != nil {
				t.Errorf("claim: %v", err)
				return
			}
			replica, reason, _ := strings.Cut(who, " ")
			mu.Lock()
			servedBy[replica]++
			mu.Unlock()
			switch {
			case status == http.StatusCreated, status == http.StatusConflict && reason == "already_claimed":
				// already_claimed: a 503 came after this client's claim was
				// written, and the retry found its ticket.
				tickets.Add(1)
			case status == http.StatusConflict && reason == "sold_out":
				soldOut.Add(1)
			default:
				t.Errorf("a claim answered %d %s", status, who)
			}
		})
	}
	close(gate)
	wg.Wait()
	stored, err := cl.st.DropConsistent(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	page, err := cl.st.DropTickets(ctx, d.ID, 1000, "")
	if err != nil {
		t.Fatal(err)
	}
	if tickets.Load() != quantity || stored.Claimed != quantity || len(page.Items) != quantity {
		t.Errorf("quantity %d, %d clients: %d tickets answered, the drop says %d claimed, the table holds %d tickets",
			quantity, clients, tickets.Load(), stored.Claimed, len(page.Items))
	}

	// Every gate: sold out from memory, and no write for a refused claim.
	var gates []string
	for _, r := range cl.state.Replicas {
		learned := time.Now()
		end := learned.Add(20 * time.Second)
		for {
			var ans struct {
				Status string `json:"status"`
			}
			status, _, err := apiCall(http.MethodGet, r.URL+"/api/v1/drops/"+d.ID, secret, nil, &ans)
			if err == nil && status == http.StatusOK && ans.Status == "sold_out" {
				break
			}
			if time.Now().After(end) {
				t.Fatalf("%s's gate did not learn of the sell-out within 20 s (last: %d %q %v)", r.Name, status, ans.Status, err)
			}
			time.Sleep(200 * time.Millisecond)
		}
		before, err := dynamoWrites(r.URL)
		if err != nil {
			t.Fatal(err)
		}
		for k := range 5 {
			status, who, err := claimUntilAnswered(r.URL, secret, d.ID, fmt.Sprintf("late-%s-%d", r.Name, k))
			if err != nil || status != http.StatusConflict || !strings.HasSuffix(who, "sold_out") {
				t.Errorf("%s: a claim after the sell-out answered %d %q %v", r.Name, status, who, err)
			}
		}
		after, err := dynamoWrites(r.URL)
		if err != nil {
			t.Fatal(err)
		}
		if after != before {
			t.Errorf("%s: 5 claims after the sell-out sent %d transactions to DynamoDB", r.Name, after-before)
		}
		gates = append(gates, fmt.Sprintf("%s %d writes", r.Name, after-before))
	}
	var by []string
	for _, k := range sortedKeys(servedBy) {
		by = append(by, fmt.Sprintf("%s %d", k, servedBy[k]))
	}
	return fmt.Sprintf("quantity %d, %d clients at once (%s): %d tickets, %d sold out; table: %d claimed, %d tickets; then 5 claims on each replica refused sold out from its gate (%s)",
		quantity, clients, strings.Join(by, ", "), tickets.Load(), soldOut.Load(), stored.Claimed, len(page.Items), strings.Join(gates, ", "))
}

// haproxyCommand sends one command to HAProxy's runtime API.
func (cl *clusterRun) haproxyCommand(cmd string) (string, error) {
	conn, err := net.DialTimeout("unix", cl.state.Admin, 5*time.Second)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(cmd + "\n")); err != nil {
		return "", err
	}
	b, err := io.ReadAll(conn)
	return strings.TrimSpace(string(b)), err
}

// loadLoop GETs path through the proxy from workers at once until stop is
// closed: answers by replica, errors by kind.
type loadLoop struct {
	ok       atomic.Int64
	mu       sync.Mutex
	byServer map[string]int
	bad      map[string]int // "replica status" or "no answer: err"
	examples []string
}

// pace is each worker's pause between requests (0: none, as fast as it
// goes).
func (l *loadLoop) run(base, path string, workers int, pace time.Duration, stop <-chan struct{}) {
	l.byServer, l.bad = map[string]int{}, map[string]int{}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if pace > 0 {
					time.Sleep(pace)
				}
				resp, err := client.Get(base + path)
				l.mu.Lock()
				switch {
				case err != nil:
					l.bad["no answer"]++
					if len(l.examples) < 5 {
						l.examples = append(l.examples, err.Error())
					}
				default:
					_, cerr := io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					who := resp.Header.Get(web.ReplicaHeader)
					if who == "" {
						who = "haproxy"
					}
					switch {
					case cerr != nil:
						l.bad[who+" cut off"]++
					case resp.StatusCode != http.StatusOK:
						l.bad[fmt.Sprintf("%s %d", who, resp.StatusCode)]++
					default:
						l.ok.Add(1)
						l.byServer[who]++
					}
				}
				l.mu.Unlock()
			}
		})
	}
	wg.Wait()
}

func (l *loadLoop) failures() int {
	n := 0
	for _, v := range l.bad {
		n += v
	}
	return n
}

// measure runs the load loop for d and returns requests per second.
func measure(base string, workers int, d time.Duration) (float64, *loadLoop) {
	l := &loadLoop{}
	stop := make(chan struct{})
	time.AfterFunc(d, func() { close(stop) })
	t0 := time.Now()
	l.run(base, "/", workers, 0, stop)
	return float64(l.ok.Load()) / time.Since(t0).Seconds(), l
}

// checkThroughput: requests a second for the catalogue through the proxy
// with three replicas, then with two of them taken out of HAProxy. On two
// cores expect no gain: it shows what the proxy costs. Nothing is
// asserted about speed.
func (cl *clusterRun) checkThroughput(t *testing.T) string {
	const workers, each = 8, 5 * time.Second
	measure(cl.state.Proxy, workers, time.Second) // warm every replica's window
	three, l3 := measure(cl.state.Proxy, workers, each)
	if l3.failures() > 0 {
		t.Errorf("with %d replicas: %v %v", len(cl.state.Replicas), l3.bad, l3.examples)
	}
	others := cl.state.Replicas[1:]
	for _, r := range others {
		if out, err := cl.haproxyCommand("disable server " + cl.state.Backend + "/" + r.Name); err != nil || out != "" {
			t.Fatalf("disable %s: %q %v", r.Name, out, err)
		}
	}
	one, l1 := measure(cl.state.Proxy, workers, each)
	for _, r := range others {
		if out, err := cl.haproxyCommand("enable server " + cl.state.Backend + "/" + r.Name); err != nil || out != "" {
			t.Errorf("enable %s: %q %v", r.Name, out, err)
		}
	}
	if l1.failures() > 0 {
		t.Errorf("with one replica: %v %v", l1.bad, l1.examples)
	}
	if len(l1.byServer) != 1 {
		t.Errorf("with two replicas disabled, answers came from %v", l1.byServer)
	}
	// Back to three before the next check.
	end := time.Now().Add(30 * time.Second)
	for seen := map[string]bool{}; len(seen) < len(cl.state.Replicas); {
		resp, err := http.Get(cl.state.Proxy + "/healthz")
		if err == nil {
			seen[resp.Header.Get(web.ReplicaHeader)] = true
			resp.Body.Close()
		}
		if time.Now().After(end) {
			t.Fatalf("the replicas did not all come back into HAProxy: %v", seen)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Sprintf("catalogue, %d clients, %s each: %.0f req/s with %d replicas %v, %.0f req/s with one; ratio 3:1 = %.2f",
		workers, each, three, len(cl.state.Replicas), l3.byServer, one, three/one)
}

// paymentsLease is the payment job's lease of today, as the test reads it.
func (cl *clusterRun) paymentsLease(t *testing.T) store.Lease {
	l, err := cl.st.LeaseOf(context.Background(), jobs.JobPayments, cl.st.Today())
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		t.Fatal(err)
	}
	return l
}

// waitLease polls today's payments lease until ok says so.
func (cl *clusterRun) waitLease(t *testing.T, within time.Duration, what string, ok func(store.Lease) bool) store.Lease {
	t.Helper()
	end := time.Now().Add(within)
	for {
		l := cl.paymentsLease(t)
		if ok(l) {
			return l
		}
		if time.Now().After(end) {
			t.Fatalf("%s: not within %s (the lease: %+v)", what, within, l)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// newBillingDay clears the payments lease of today, as the next day's
// would begin free: the job ran today already (the cluster's first tick),
// and the check needs its ticks again.
func (cl *clusterRun) newBillingDay(t *testing.T) {
	t.Helper()
	key := "lease#" + jobs.JobPayments + "#" + store.FormatDate(cl.st.Today())
	_, err := cl.db.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String(cl.state.Table),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: key}, "SK": &types.AttributeValueMemberS{Value: key}}})
	if err != nil {
		t.Fatal(err)
	}
}

// seedDue makes n subscriptions due today.
func (cl *clusterRun) seedDue(t *testing.T, n int) []store.Subscriber {
	t.Helper()
	testPay, err := payment.NewTestProvider(context.Background(), cl.st, "http://shop.test")
	if err != nil {
		t.Fatal(err)
	}
	subs, err := demo.SeedSubscriptions(context.Background(), cl.st, testPay, n, cl.st.Today(), 0, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return subs
}

// chargedOnce checks each subscription was charged once: one receipt, and
// its next payment a month on. It returns how many were not.
func (cl *clusterRun) chargedOnce(t *testing.T, subs []store.Subscriber) int {
	t.Helper()
	ctx := context.Background()
	wrong := 0
	for _, s := range subs {
		sub, err := cl.st.SubscriptionConsistent(ctx, s.Customer.ID, s.Subscription.ID)
		if err != nil {
			t.Fatal(err)
		}
		receipts, err := cl.st.RecentReceipts(ctx, s.Customer.ID, 10, "")
		if err != nil {
			t.Fatal(err)
		}
		if want := s.Subscription.NextPaymentDate.AddDate(0, 1, 0); len(receipts.Items) != 1 || !sub.NextPaymentDate.Equal(want) {
			if wrong < 5 {
				t.Errorf("subscription %s: %d receipts, next payment %s (want 1 receipt, next %s)",
					s.Subscription.ID, len(receipts.Items), store.FormatDate(sub.NextPaymentDate), store.FormatDate(want))
			}
			wrong++
		}
	}
	return wrong
}

// paymentRuns are the payment runs started since.
func (cl *clusterRun) paymentRuns(t *testing.T, since time.Time) []store.JobRun {
	t.Helper()
	page, err := cl.st.Runs(context.Background(), jobs.JobPayments, 50, "")
	if err != nil {
		t.Fatal(err)
	}
	var out []store.JobRun
	for _, r := range page.Items {
		if !r.StartedAt.Before(since) {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b store.JobRun) int { return a.StartedAt.Compare(b.StartedAt) })
	return out
}

// refusedTicks counts, per replica, the payment ticks it left to another.
func (cl *clusterRun) refusedTicks() map[string]int {
	out := map[string]int{}
	for _, r := range cl.state.Replicas {
		b, _ := os.ReadFile(r.Log)
		for _, line := range strings.Split(string(b), "\n") {
			left := strings.Contains(line, "tick taken by another replica") || strings.Contains(line, "tick already ran on another replica")
			if left && strings.Contains(line, "job="+jobs.JobPayments) {
				out[r.Name]++
			}
		}
	}
	return out
}

// checkPaymentTicks: three schedulers tick every two seconds; one run
// charges every due subscription once, the other replicas' ticks find
// the lease taken.
func (cl *clusterRun) checkPaymentTicks(t *testing.T) string {
	const due = 24
	// The cluster's first tick ran today's job (on the demo's payments).
	cl.waitLease(t, time.Minute, "the first tick marks today done", func(l store.Lease) bool { return l.Done })
	subs := cl.seedDue(t, due)
	refusedBefore := cl.refusedTicks()
	since := time.Now().Add(-time.Second)
	cl.newBillingDay(t)
	l := cl.waitLease(t, 2*time.Minute, "a replica runs the day's payments to the end", func(l store.Lease) bool { return l.Done })
	// The others' ticks during the run and after it find the lease taken.
	time.Sleep(2 * clusterTick)
	runs := cl.paymentRuns(t, since)
	if len(runs) != 1 {
		t.Errorf("%d payment runs started for the day, want 1: %+v", len(runs), runs)
	}
	if len(runs) > 0 && (runs[0].Outcome != store.RunCompleted || runs[0].Counts.Charged != due || runs[0].Replica != l.Owner) {
		t.Errorf("the run: %+v (the lease's owner %s)", runs[0], l.Owner)
	}
	wrong := cl.chargedOnce(t, subs)
	refused := cl.refusedTicks()
	var others []string
	for _, r := range cl.state.Replicas {
		n := refused[r.Name] - refusedBefore[r.Name]
		others = append(others, fmt.Sprintf("%s %d", r.Name, n))
		if r.Name != l.Owner && n == 0 {
			t.Errorf("%s never found the lease taken", r.Name)
		}
	}
	run := store.JobRun{}
	if len(runs) > 0 {
		run = runs[0]
	}
	return fmt.Sprintf("%d subscriptions due, 3 schedulers ticking every %s: %d run (on %s, %s, charged %d in %s); %d not charged exactly once; ticks that found the lease taken: %s",
		due, clusterTick, len(runs), run.Replica, run.Outcome, run.Counts.Charged, run.Duration().Round(time.Millisecond), wrong, strings.Join(others, ", "))
}

// checkKillMidRun: the replica running the payment job is killed (SIGKILL)
// midway; its lease runs out, another replica's tick takes the day over and
// finishes it; every subscription is charged once; a load loop through
// the proxy meanwhile sees no failure but maybe the killed replica's
// requests under way.
func (cl *clusterRun) checkKillMidRun(t *testing.T) string {
	const due = 100
	subs := cl.seedDue(t, due)
	stopLoad := make(chan struct{})
	load := &loadLoop{}
	loaded := make(chan struct{})
	go func() {
		defer close(loaded)
		// Paced: customers browsing, not a benchmark starving the run.
		load.run(cl.state.Proxy, "/", 4, 20*time.Millisecond, stopLoad)
	}()
	defer func() {
		select {
		case <-stopLoad:
		default:
			close(stopLoad)
		}
		<-loaded
	}()
	since := time.Now().Add(-time.Second)
	cl.newBillingDay(t)

	// Wait for a run well under way, then kill its replica.
	var victim store.JobRun
	end := time.Now().Add(time.Minute)
	for victim.ID == "" {
		for _, r := range cl.paymentRuns(t, since) {
			if r.Outcome == store.RunRunning && r.Counts.Charged >= 10 {
				victim = r
			}
		}
		if time.Now().After(end) {
			t.Fatalf("no payment run got under way within a minute: %+v", cl.paymentRuns(t, since))
		}
		time.Sleep(100 * time.Millisecond)
	}
	r, ok := cl.replica(victim.Replica)
	if !ok {
		t.Fatalf("the run's replica %q is none of the cluster's", victim.Replica)
	}
	killed := time.Now()
	if err := syscall.Kill(r.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	t.Logf("killed %s (pid %d) at %d charged of %d", r.Name, r.PID, victim.Counts.Charged, due)

	taken := cl.waitLease(t, time.Minute, "another replica takes the lease", func(l store.Lease) bool { return l.Owner != "" && l.Owner != r.Name })
	takenSeen := time.Since(killed)
	done := cl.waitLease(t, 3*time.Minute, "the day's payments finish", func(l store.Lease) bool { return l.Done })
	time.Sleep(clusterTick) // the load loop goes on a little past the end
	close(stopLoad)
	<-loaded

	runs := cl.paymentRuns(t, since)
	var after store.JobRun
	for _, run := range runs {
		if run.ID != victim.ID && run.Replica == taken.Owner {
			after = run
		}
	}
	takeover := after.StartedAt.Sub(killed)
	if after.ID == "" || after.Outcome != store.RunCompleted || done.Owner != taken.Owner {
		t.Errorf("the run after the kill: %+v; the lease: %+v", after, done)
	}
	if len(runs) != 2 {
		t.Errorf("%d payment runs for the day, want the killed one and the one that took over: %+v", len(runs), runs)
	}
	wrong := cl.chargedOnce(t, subs)

	// The load loop: only the killed replica's requests under way may have
	// failed (HAProxy retries one that got no answer at all).
	var elsewhere []string
	for kind, n := range load.bad {
		if !strings.HasPrefix(kind, r.Name+" ") && kind != "no answer" && !strings.HasPrefix(kind, "haproxy ") {
			elsewhere = append(elsewhere, fmt.Sprintf("%s: %d", kind, n))
		}
	}
	if len(elsewhere) > 0 {
		t.Errorf("requests to the other replicas failed during the kill: %v", elsewhere)
	}
	if n := load.failures(); n > 4 { // at most one under way per worker when the replica died
		t.Errorf("%d requests failed during the kill (4 workers): %v %v", n, load.bad, load.examples)
	}
	return fmt.Sprintf("%d due; killed %s (SIGKILL) %d charged into its run; takeover: %s's run started %s after the kill (lease TTL %s, tick every %s; the test saw the lease move after %s) and charged %d; %d not charged exactly once; load loop meanwhile: %d ok %v, failures %v",
		due, r.Name, victim.Counts.Charged, taken.Owner, takeover.Round(100*time.Millisecond), clusterLeaseTTL, clusterTick,
		takenSeen.Round(100*time.Millisecond), after.Counts.Charged, wrong, load.ok.Load(), load.byServer, load.bad)
}

// The settings a cluster's replicas are told apart and taken over by.
func TestReplicaAndLeaseSettings(t *testing.T) {
	t.Setenv("SHOP_REPLICA", "replica-2")
	t.Setenv("SHOP_LEASE_TTL", "6s")
	cfg, _, err := parseConfig([]string{"serve"})
	if err != nil || cfg.replicaName() != "replica-2" || cfg.leaseTTL != 6*time.Second {
		t.Fatalf("replica %q, lease %s, %v", cfg.replicaName(), cfg.leaseTTL, err)
	}
	for _, tc := range []struct{ name, value, want string }{
		{"SHOP_LEASE_TTL", "1s", "use 3s to 1h"},
		{"SHOP_LEASE_TTL", "soon", "a duration"},
		{"SHOP_REPLICA", "replica 2", "letters, digits"},
		{"SHOP_REPLICA", strings.Repeat("r", 65), "1 to 64"},
	} {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			t.Setenv(tc.name, tc.value)
			if _, _, err := parseConfig([]string{"serve"}); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v, want an error with %q", err, tc.want)
			}
		})
	}
}

// The proxy's configuration: every replica behind it, checked on /healthz,
// the client's address forwarded, a request to a dead replica sent on.
func TestHAProxyConfig(t *testing.T) {
	cfg := haproxyConfig("127.0.0.1:8080", "/tmp/x/haproxy.sock", []clusterReplica{
		{Name: "replica-1", URL: "http://127.0.0.1:8081"}, {Name: "replica-2", URL: "http://127.0.0.1:8082"}})
	for _, want := range []string{
		"bind 127.0.0.1:8080", "balance roundrobin", "option forwardfor", "http-check send meth GET uri /healthz",
		"retry-on conn-failure empty-response", "server replica-1 127.0.0.1:8081 check", "server replica-2 127.0.0.1:8082 check",
		"stats socket /tmp/x/haproxy.sock mode 600 level admin",
	} {
		if !strings.Contains(cfg, want) {
			t.Errorf("haproxy.cfg lacks %q:\n%s", want, cfg)
		}
	}
	haproxy, err := findHAProxy()
	if err != nil {
		t.Skip(err)
	}
	path := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(haproxy, "-c", "-f", path).CombinedOutput(); err != nil {
		t.Errorf("haproxy -c: %v\n%s", err, out)
	}
}
