package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/crypto/bcrypt"

	"shop/jobs"
	"shop/store"
	"shop/store/demo"
	"shop/store/payment"
	"shop/store/storetest"
)

// startShopOn starts the shop binary serving from the test's table, with
// its settings and SHOP_* overrides in more.
func startShopOn(t *testing.T, env storetest.Env, more ...string) *shopBinary {
	t.Helper()
	dir := t.TempDir()
	sh, logFile := launchShop(t, dir, append(shopEnv(env, filepath.Join(dir, "data")), more...))
	t.Cleanup(func() { logFile.Close() })
	t.Cleanup(func() {
		if sh.cmd.ProcessState == nil {
			_ = sh.cmd.Process.Kill()
			_ = sh.cmd.Wait()
		}
		if t.Failed() {
			t.Logf("shop log:\n%s", sh.logTail())
		}
	})
	if err := sh.waitReady(time.Minute); err != nil {
		t.Fatalf("the shop did not start: %v\n%s", err, sh.logTail())
	}
	return sh
}

// shopEnv points the binary at the test's table, in the store's zone.
func shopEnv(env storetest.Env, dataDir string) []string {
	return append(os.Environ(), "DYNAMODB_ENDPOINT="+env.Endpoint, "SHOP_TABLE="+env.Table, "SHOP_DATA_DIR="+dataDir,
		"SHOP_TZ="+env.Store.Location().String(), "SHOP_DEMO=false")
}

// terminate sends SIGTERM and waits for the process's end: how long it
// took, and its exit code.
func (sh *shopBinary) terminate(t *testing.T, within time.Duration) (time.Duration, int) {
	t.Helper()
	sent := time.Now()
	if err := sh.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	return sh.exited(t, sent, within)
}

func (sh *shopBinary) exited(t *testing.T, since time.Time, within time.Duration) (time.Duration, int) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- sh.cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
		return time.Since(since), sh.cmd.ProcessState.ExitCode()
	case <-time.After(within):
		_ = sh.cmd.Process.Kill()
		t.Fatalf("the shop did not exit within %v of SIGTERM:\n%s", within, sh.logTail())
	}
	return 0, -1
}

// account makes an account with a password, at bcrypt's cheapest cost.
func account(t *testing.T, st *store.Store, email, password string, role store.Role) {
	t.Helper()
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateCustomer(context.Background(), store.NewCustomer{Email: email, Name: "Shutdown test", PasswordHash: string(hash), Role: role}); err != nil {
		t.Fatal(err)
	}
}

// visit is a browser's cookies and its page's CSRF token.
type visit struct {
	base   string
	client *http.Client
	csrf   string
}

func newVisit(base string) *visit {
	jar, _ := cookiejar.New(nil)
	return &visit{base: base, client: &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// do sends a request (a form with the visit's token) and keeps the page's
// token.
func (v *visit) do(t *testing.T, method, path string, form url.Values) int {
	t.Helper()
	var body io.Reader
	if form != nil {
		form.Set("_csrf", v.csrf)
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, v.base+path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := v.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	if doc, err := goquery.NewDocumentFromReader(resp.Body); err == nil {
		if tok, ok := doc.Find(`input[name="_csrf"]`).First().Attr("value"); ok && tok != "" {
			v.csrf = tok
		}
	}
	return resp.StatusCode
}

// A hangup (the terminal that started the shop closed) shuts it down as
// SIGTERM does, saying so, rather than ending it at once without a line.
func TestSIGHUPShutsDownAndSaysSo(t *testing.T) {
	t.Parallel()
	if signal.Ignored(syscall.SIGHUP) {
		t.Skip("SIGHUP is ignored here (nohup): the shop started from this test would ignore it too")
	}
	env := storetest.New(t)
	sh := startShopOn(t, env, "SHOP_JOBS=false")
	sent := time.Now()
	if err := sh.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	took, code := sh.exited(t, sent, 30*time.Second)
	if code != 0 {
		t.Fatalf("exit code %d after SIGHUP (%v), want 0:\n%s", code, sh.cmd.ProcessState, sh.logTail())
	}
	for _, want := range []string{"shutting down", "(hangup)", "shutdown: requests answered"} {
		if !strings.Contains(sh.log(), want) {
			t.Errorf("the log does not say %q:\n%s", want, sh.logTail())
		}
	}
	t.Logf("SIGHUP to exit: %v", took.Round(time.Millisecond))
}

// On SIGTERM, with a drain of two seconds: /healthz answers 503 while the
// shop still serves; then new connections are refused while a sign-in
// whose body is still arriving (a slow upload) is answered in full; the
// shop exits 0 once it is.
func TestSIGTERMAnswersTheRequestsInFlightAndRefusesNewOnes(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	account(t, env.Store, "slow@shutdown.example", "slow upload password", store.RoleCustomer)
	sh := startShopOn(t, env, "SHOP_JOBS=false", "SHOP_SHUTDOWN_DRAIN=2s", "SHOP_SHUTDOWN_TIMEOUT=15s")
	host := strings.TrimPrefix(sh.base, "http://")

	v := newVisit(sh.base)
	if status := v.do(t, http.MethodGet, "/login", nil); status != http.StatusOK || v.csrf == "" {
		t.Fatalf("sign-in page: %d, token %q", status, v.csrf)
	}
	u, _ := url.Parse(sh.base)
	var cookies []string
	for _, c := range v.client.Jar.Cookies(u) {
		cookies = append(cookies, c.Name+"="+c.Value)
	}
	// The sign-in form with 64 KB of padding, of which the shop gets the
	// first part now and the rest only after the shutdown began.
	body := url.Values{"_csrf": {v.csrf}, "email": {"slow@shutdown.example"}, "password": {"slow upload password"},
		"pad": {strings.Repeat("x", 64<<10)}}.Encode()
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	head := fmt.Sprintf("POST /login HTTP/1.1\r\nHost: %s\r\nCookie: %s\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n",
		host, strings.Join(cookies, "; "), len(body))
	cut := len(body) / 2
	if _, err := io.WriteString(conn, head+body[:cut]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the shop is reading it

	sent := time.Now()
	if err := sh.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// The drain: still served, but not healthy, so a proxy stops sending.
	waitStatus(t, sh.base+"/healthz", http.StatusServiceUnavailable, 1500*time.Millisecond)
	// Then the listener closes.
	for {
		c, err := net.DialTimeout("tcp", host, time.Second)
		if err != nil {
			if !errors.Is(err, syscall.ECONNREFUSED) {
				t.Fatalf("a new connection after the drain: %v, want refused", err)
			}
			break
		}
		c.Close()
		if time.Since(sent) > 5*time.Second {
			t.Fatal("new connections still taken 5 s after SIGTERM")
		}
		time.Sleep(20 * time.Millisecond)
	}
	refused := time.Since(sent)
	if sh.cmd.ProcessState != nil {
		t.Fatal("the shop exited with a request in flight")
	}

	if _, err := io.WriteString(conn, body[cut:]); err != nil {
		t.Fatalf("the rest of the body: %v", err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("the answer to the request in flight: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !strings.Contains(resp.Header.Get("Set-Cookie"), "=") {
		t.Fatalf("the sign-in in flight: %s, Set-Cookie %q; want 303 signed in", resp.Status, resp.Header.Get("Set-Cookie"))
	}

	took, code := sh.exited(t, sent, 20*time.Second)
	if code != 0 {
		t.Fatalf("exit code %d, want 0:\n%s", code, sh.logTail())
	}
	t.Logf("SIGTERM to exit: %v (new connections refused after %v, the request in flight answered before)", took.Round(time.Millisecond), refused.Round(time.Millisecond))
	for _, want := range []string{"shutting down", "shutdown: drained", "shutdown: stopped taking connections, requests in flight answered", "shutdown: requests answered"} {
		if !strings.Contains(sh.log(), want) {
			t.Errorf("the log does not say %q", want)
		}
	}
}

// A payment run of many subscriptions gets SIGTERM mid-run: the shop exits
// 0 well within its deadline, the run's record says interrupted with what
// it did, its lease is free at once (not after its 30 s), and the next
// process (shop jobs run, under the lease) charges the rest: each
// subscription once, each charge with its receipt.
func TestSIGTERMInterruptsAPaymentRunAndGivesItsLeaseBack(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	ctx := context.Background()
	n := 150
	today := env.Store.Today()
	testPay, err := payment.NewTestProvider(ctx, env.Store, "http://shop.test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := demo.SeedSubscriptions(ctx, env.Store, testPay, n, today, 0, io.Discard); err != nil {
		t.Fatal(err)
	}
	account(t, env.Store, "staff@shutdown.example", "staff password", store.RoleStaff)
	never := "0 0 1 1 *" // no tick of its own during the test
	sh := startShopOn(t, env, "SHOP_JOB_CONCURRENCY=2", "SHOP_SHUTDOWN_TIMEOUT=20s",
		"SHOP_PAYMENTS_CRON="+never, "SHOP_REMINDERS_CRON="+never, "SHOP_ARCHIVE_CRON="+never)

	staff := newVisit(sh.base)
	staff.do(t, http.MethodGet, "/login", nil)
	if status := staff.do(t, http.MethodPost, "/login", url.Values{"email": {"staff@shutdown.example"}, "password": {"staff password"}}); status != http.StatusSeeOther {
		t.Fatalf("staff sign-in: %d", status)
	}
	staff.do(t, http.MethodGet, "/admin/jobs", nil)
	if status := staff.do(t, http.MethodPost, "/admin/jobs/payments/run", url.Values{"date": {store.FormatDate(today)}}); status != http.StatusSeeOther {
		t.Fatalf("Run now: %d", status)
	}

	// SIGTERM once a score are charged (at two at a time, the run takes
	// several seconds more).
	var running store.JobRun
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		runs, err := env.Store.Runs(ctx, jobs.JobPayments, 1, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(runs.Items) == 1 && runs.Items[0].Counts.Charged >= 20 {
			running = runs.Items[0]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run did not get going: %+v", runs.Items)
		}
	}
	took, code := sh.terminate(t, 30*time.Second)
	if code != 0 {
		t.Fatalf("exit code %d, want 0:\n%s", code, sh.logTail())
	}
	if took > 20*time.Second {
		t.Fatalf("SIGTERM to exit took %v, beyond the 20 s deadline", took)
	}

	first, err := env.Store.Run(ctx, jobs.JobPayments, running.ID)
	if err != nil {
		t.Fatal(err)
	}
	c := first.Counts
	if first.Outcome != store.RunInterrupted || !strings.Contains(first.Error, "shutdown") || first.EndedAt.IsZero() {
		t.Fatalf("the run after SIGTERM: outcome %q, error %q", first.Outcome, first.Error)
	}
	if c.Due == 0 || c.Charged < running.Counts.Charged || c.Charged >= n || c.Failed != 0 {
		t.Fatalf("the interrupted run's counts: %+v", c)
	}
	if receipts, ledger := env.CountEntities(t, "receipt"), paidAtTestProvider(t, env); receipts != c.Charged || ledger != c.Charged {
		t.Fatalf("%d receipts, %d ledger charges; the run counted %d charged", receipts, ledger, c.Charged)
	}
	lease, err := env.Store.LeaseOf(ctx, jobs.JobPayments, today)
	if err != nil || lease.Done || !lease.ExpiresAt.Before(time.Now()) {
		t.Fatalf("the lease after SIGTERM: %+v %v, want given back", lease, err)
	}
	t.Logf("SIGTERM to exit: %v; the run charged %d of %d before it stopped; the lease of %s %s was free at once (held by %s until %s)",
		took.Round(time.Millisecond), c.Charged, n, lease.Job, store.FormatDate(lease.Date), lease.Owner, lease.ExpiresAt.Format(time.RFC3339Nano))
	for _, want := range []string{"shutdown: run interrupted, lease given back", "shutdown: billing runs stopped", "shutdown: schedules stopped", "shutdown: mail delivery stopped", "shutdown: requests answered, runs stopped, leases given back"} {
		if !strings.Contains(sh.log(), want) {
			t.Errorf("the log does not say %q", want)
		}
	}

	// The next process takes the lease at once and does the rest.
	again := exec.Command(sh.cmd.Path, "jobs", "run", "payments", "--date", store.FormatDate(today))
	again.Env = shopEnv(env, t.TempDir())
	out, err := again.CombinedOutput()
	if err != nil {
		t.Fatalf("shop jobs run after the shutdown: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var second store.RunCounts
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &second); err != nil {
		t.Fatalf("last line: %v\n%s", err, out)
	}
	if c.Charged+second.Charged != n {
		t.Fatalf("charged %d, then %d: want %d in all", c.Charged, second.Charged, n)
	}
	if receipts, ledger := env.CountEntities(t, "receipt"), paidAtTestProvider(t, env); receipts != n || ledger != n {
		t.Fatalf("%d receipts and %d ledger charges, want %d", receipts, ledger, n)
	}
	open, err := env.Store.OpenIntents(ctx, time.Now().Add(time.Hour), 10)
	if err != nil || len(open) != 0 {
		t.Fatalf("open payment intents: %d %v", len(open), err)
	}
}

// paidAtTestProvider counts the payments the test provider took (its
// payments that succeeded): the renewals of cards it saved.
func paidAtTestProvider(t *testing.T, env storetest.Env) int {
	t.Helper()
	n := 0
	for _, it := range env.Items(t) {
		kind, _ := it["EntityType"].(*types.AttributeValueMemberS)
		status, _ := it["Status"].(*types.AttributeValueMemberS)
		if kind != nil && kind.Value == "testPayIntent" && status != nil && status.Value == payment.PaymentSucceeded {
			n++
		}
	}
	return n
}
