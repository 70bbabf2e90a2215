package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"shop/store"
	"shop/store/demo"
	"shop/store/rules"
	"shop/web"
	"shop/web/paths"
)

// The soak: shop cluster with two replicas behind HAProxy (as the cluster
// check runs it, on 127.0.0.1), and at once for SOAK: a few hundred
// simulated customers browsing, signing up, checking out and cancelling;
// staff refunding, shipping and delivering orders and taking back returns
// the customers ask for; subscribers subscribing, changing and cancelling;
// the payment job ticking every two seconds over seeded due subscriptions;
// and API clients claiming tickets of an API drop. Meanwhile DynamoDB Local
// is killed twice (shop cluster restarts it) and one replica once (left
// dead: HAProxy takes it out). Then it checks the books and that every
// request got an answer. Run it with go tool task soak; it is not part of
// the test suite.
var (
	soakFor       = flag.Duration("soak", 0, "run the load and fault test for this long (go tool task soak)")
	soakCustomers = flag.Int("soak-customers", 200, "simulated customers of the soak")
)

// soakProducts are demo products the customers buy and subscribe to, with
// deep stock.
var soakProducts = []string{"cf-gbg-dark", "cf-light", "cf-espresso", "cf-decaf", "cf-filters"}

const (
	soakGiftCard       = "SOAK-GIFT-0001"
	soakCode           = "SOAK10" // 10 % off, uses limited: it runs out
	soakCodeUses       = 40
	soakRequestTimeout = 10 * time.Second // the shop's own
	// soakGiveBack is how long past its page's deadline a right password's
	// sign-in may still give back its attempts' counts (giveBackTimeout in
	// handlers/account.go): a sign-in may answer that much later.
	soakGiveBack = 5 * time.Second
	// soakEngineAttempt is how long the shop waits for the engine to answer
	// one attempt (store.Breaker's AttemptTimeout) before it answers 503.
	soakEngineAttempt = 8 * time.Second
	// The actors beside the customers.
	soakStaff, soakReturners, soakSubscribers, soakClaimers = 2, 2, 8, 3
	soakDropQuantity                                        = 300
	soakDue                                                 = 80 // subscriptions seeded due for the payments run
	// soakGrace is how long after a fault ends a 503 is still its: a request
	// sent while it lasted ends by the shop's deadline, and the breaker
	// stays open 5 s.
	soakGrace = soakRequestTimeout + 10*time.Second
)

// soakRun is the soak under way: the cluster, the tally and what the
// actors hand each other.
type soakRun struct {
	cl      *clusterRun
	tally   *soakTally
	stopped atomic.Bool // the actors stop
	// placed are orders customers placed, for staff to refund or ship;
	// delivered are orders staff delivered, for their customers to return.
	placed, delivered chan soakOrder
	mu                sync.Mutex
	ours              map[string]bool // the soak's orders: staff touch no other
	tickets           map[string]bool // API clients answered with a ticket
	faults            []soakFault
}

// soakOrder is an order and how its customer signs in.
type soakOrder struct{ id, email, password string }

// soakFault is one fault injected: from its start to when what it broke
// answered again.
type soakFault struct {
	what     string
	from, to time.Time
}

func TestSoak(t *testing.T) {
	if *soakFor <= 0 {
		t.Skip("the soak runs only when asked: go tool task soak")
	}
	if _, err := findHAProxy(); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	cl := startCluster(t, 2, "SHOP_PAYMENT_HOLD="+soakPaymentHold.String())
	t.Logf("cluster up in %s: %s, %d replicas", time.Since(began).Round(time.Second), cl.state.Proxy, len(cl.state.Replicas))
	ctx := context.Background()
	// The cluster's first tick runs today's payments (the demo's); the
	// soak's runs come after it.
	cl.waitLease(t, 2*time.Minute, "the first tick marks today done", func(l store.Lease) bool { return l.Done })

	stockBefore, gift := soakShopFor(t, cl)
	secret := cl.apiKey(t, "soak")
	dropID := soakAPIDrop(t, cl, secret)

	seeded := cl.seedDue(t, soakDue)

	r := &soakRun{cl: cl, tally: &soakTally{}, placed: make(chan soakOrder, 1000), delivered: make(chan soakOrder, 1000),
		ours: map[string]bool{}, tickets: map[string]bool{}}
	start := time.Now().UTC()
	var wg sync.WaitGroup
	for i := range *soakCustomers {
		wg.Go(func() {
			time.Sleep(rand.N(5 * time.Second)) // customers arrive
			r.customer(i)
		})
	}
	for i := range soakStaff {
		wg.Go(func() { r.staff(i) })
	}
	for i := range soakReturners {
		wg.Go(func() { r.returner(i) })
	}
	for i := range soakSubscribers {
		wg.Go(func() { r.subscriber(i) })
	}
	for i := range soakClaimers {
		wg.Go(func() { r.claimer(i, secret, dropID) })
	}

	r.injectFaults(t, start)
	r.stopped.Store(true)
	wg.Wait()
	took := time.Since(start)

	// Everything settles: the engine answers, the replica left serves, and
	// the second payments run (taken over from the killed replica) ends.
	if err := cl.waitEngine(3 * time.Minute); err != nil {
		t.Fatalf("the engine did not come back: %v\n%s", err, cl.logTail())
	}
	// (shop cluster itself is the cleanup's to watch: the child here never
	// says it exited.)
	if err := waitAnswer(ctx, cl.state.Proxy+"/readyz", 2*time.Minute, &child{done: make(chan struct{})}); err != nil {
		t.Fatalf("the cluster does not serve after the soak: %v", err)
	}
	cl.waitLease(t, 3*time.Minute, "the day's payments end", func(l store.Lease) bool { return l.Done })

	// Then the payments settle: the last holds are paid or expire, and the
	// test provider's events (some retried after a fault) are delivered.
	quiet := r.waitQuiet(t, start, 10*time.Minute)
	books := r.checkBooks(t, start, stockBefore, gift.Initial, dropID, seeded)
	outside := r.report(t, start, took, quiet, books)
	r.verdict(t, outside)
}

// soakShopFor gives the demo shop deep stock of the soak's products, a
// gift card and a discount code the customers share, and refunds of the
// unused days on cancelling now; it gives the stock levels as they were
// then, and the gift card.
func soakShopFor(t *testing.T, cl *clusterRun) (map[string]int, store.GiftCard) {
	t.Helper()
	ctx := context.Background()
	stockBefore := map[string]int{}
	for _, id := range soakProducts {
		levels, err := cl.st.ProductStock(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range levels {
			l.Quantity += 100_000
			if err := cl.st.PutStockLevel(ctx, l); err != nil {
				t.Fatal(err)
			}
			stockBefore[id+"|"+l.WarehouseID] = l.Quantity
		}
	}
	gift := store.GiftCard{Code: soakGiftCard, Balance: store.Money{Amount: 300_00, Currency: "EUR"}, Initial: store.Money{Amount: 300_00, Currency: "EUR"}, CreatedAt: time.Now()}
	if _, err := cl.st.CreateGiftCard(ctx, gift); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.st.CreateDiscountCode(ctx, store.DiscountCode{Code: soakCode, Kind: store.DiscountPercent, Percent: 10,
		ExpiresAt: time.Now().Add(24 * time.Hour), UsageLimit: soakCodeUses, CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	// Subscribers who cancel now get their unused days back, through the
	// test provider: its refunds of receipts' payments are in the books.
	set, err := cl.st.SubscriptionSettings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	set.RefundUnusedOnCancel, set.ChangedBy = true, "soak"
	if _, err := cl.st.SaveSubscriptionSettings(ctx, set); err != nil {
		t.Fatal(err)
	}
	return stockBefore, gift
}

// injectFaults kills the engine at a quarter and three quarters of SOAK,
// and at half the replica running the payments run, each at least a
// quarter of SOAK after what the one before broke answers again (a
// restarted DynamoDB Local can take a minute on a busy machine). The load
// goes on for SOAK, and a quarter of it after the last fault.
func (r *soakRun) injectFaults(t *testing.T, start time.Time) {
	settle := *soakFor / 4
	at := func(f float64) {
		time.Sleep(time.Until(start.Add(time.Duration(f * float64(*soakFor)))))
		if n := len(r.faults); n > 0 {
			time.Sleep(time.Until(r.faults[n-1].to.Add(settle)))
		}
	}
	at(0.25)
	r.killEngine(t)
	at(0.5)
	r.killPaymentsReplica(t)
	at(0.75)
	r.killEngine(t)
	at(1)
}

// report prints what the soak did and the books, and gives the answers
// 503 (or 502, 504) that came with no fault under way.
func (r *soakRun) report(t *testing.T, start time.Time, took, quiet time.Duration, books []string) []string {
	t.Helper()
	var report []string
	line := func(format string, args ...any) { report = append(report, fmt.Sprintf(format, args...)) }
	line("soak: %s through HAProxy over %d replicas; %d customers, %d staff, %d returners, %d subscribers, %d API clients at once",
		took.Round(time.Second), len(r.cl.state.Replicas), *soakCustomers, soakStaff, soakReturners, soakSubscribers, soakClaimers)
	line("requests: %d (%s)", r.tally.total(), r.tally.kinds())
	line("answers: %s; %d without an answer, %d slower than the timeout", r.tally.statuses(), r.tally.failed, r.tally.slow)
	for _, f := range r.faults {
		line("fault: %s at %s, answering again %s later", f.what, f.from.Sub(start).Round(100*time.Millisecond), f.to.Sub(f.from).Round(100*time.Millisecond))
	}
	inFault, busy, outside := r.classify503s()
	line("503s: %d while a fault lasted (or within %s of its end), %d with none when the engine's %s attempt or the shop's %s deadline passed (a busy machine), %d other",
		inFault, soakGrace, busy, soakEngineAttempt, soakRequestTimeout, len(outside))
	line("done: %s", r.tally.eventsText())
	line("quiet %s after the load: no order awaiting its payment, every event of the test provider delivered", quiet.Round(time.Second))
	for _, b := range books {
		line("books: %s", b)
	}
	for _, l := range report {
		t.Log(l)
	}
	fmt.Printf("\n== soak ==\n%s\n\n", strings.Join(report, "\n"))

	return outside
}

// verdict fails the soak on a 500, an answer missing or too slow, a 503
// with no fault under way, work not done, or a card number typed on a
// page of the shop's own.
func (r *soakRun) verdict(t *testing.T, outside []string) {
	t.Helper()
	if n := r.tally.count(http.StatusInternalServerError); n > 0 {
		t.Errorf("%d answers were 500: %v", n, r.tally.examples())
		for _, rep := range r.cl.state.Replicas {
			t.Logf("%s's errors:\n%s", rep.Name, logLines(rep.Log, "level=ERROR", 10))
		}
	}
	if r.tally.failed > 0 || r.tally.slow > 0 {
		t.Errorf("%d requests got no answer and %d took longer than the timeout: %v", r.tally.failed, r.tally.slow, r.tally.examples())
	}
	if len(outside) > 0 {
		t.Errorf("%d answers 503 (or 502, 504) came with no fault under way, the first: %v", len(outside), outside[:min(5, len(outside))])
	}
	for _, work := range []string{"orders held for the card", "paid on the provider's page", "cards declined on the page",
		"held orders cancelled by their customer", "orders placed", "refunds of whole orders", "refunds in part", "orders shipped and delivered",
		"returns requested", "returns refunded", "subscriptions", "subscription changes", "tickets claimed"} {
		if r.tally.done(work) == 0 {
			t.Errorf("no %s: the soak did not do all it is for", work)
		}
	}
	if n := r.tally.done(soakCardOffPage); n > 0 {
		t.Errorf("%d %s: a card is typed on the provider's page only", n, soakCardOffPage)
	}
	if len(r.faults) != 3 {
		t.Errorf("%d faults injected of 3", len(r.faults))
	}
}

// killEngine kills DynamoDB Local (SIGKILL), the one Java process under
// shop cluster, once it answers, and notes how long it took to answer
// again.
func (r *soakRun) killEngine(t *testing.T) {
	if err := r.cl.waitEngine(2 * time.Minute); err != nil {
		t.Errorf("the engine did not answer before its kill: %v", err)
		return
	}
	var java []int
	for _, pid := range descendants(r.cl.cmd.Process.Pid) {
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if strings.TrimSpace(string(comm)) == "java" {
			java = append(java, pid)
		}
	}
	if len(java) != 1 {
		t.Errorf("%d java processes under shop cluster (%v), want its one DynamoDB Local", len(java), java)
		return
	}
	from := time.Now()
	if err := syscall.Kill(java[0], syscall.SIGKILL); err != nil {
		t.Errorf("kill the engine: %v", err)
		return
	}
	time.Sleep(time.Second) // it dies
	if err := r.cl.waitEngine(3 * time.Minute); err != nil {
		t.Errorf("the engine did not come back: %v\n%s", err, r.cl.logTail())
	}
	r.fault("DynamoDB Local killed (SIGKILL), restarted by shop cluster", from, time.Now())
}

// killPaymentsReplica starts the payments run over the subscriptions
// seeded due (the day's lease cleared, as a new day would begin) and kills
// (SIGKILL) the replica running it once it is under way; the other
// replica's tick takes the day over once the lease runs out. The killed
// replica is not started again: the soak ends on one.
func (r *soakRun) killPaymentsReplica(t *testing.T) {
	cl := r.cl
	since := time.Now().Add(-time.Second)
	cl.newBillingDay(t)
	victim := cl.state.Replicas[len(cl.state.Replicas)-1]
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if runs := cl.paymentRuns(t, since); len(runs) > 0 && runs[0].Outcome == store.RunRunning {
			if rep, ok := cl.replica(runs[0].Replica); ok {
				victim = rep
			}
			break
		}
	}
	from := time.Now()
	if err := syscall.Kill(victim.PID, syscall.SIGKILL); err != nil {
		t.Errorf("kill %s: %v", victim.Name, err)
		return
	}
	// HAProxy's check takes it out after two failures a second apart.
	to := from
	for end := from.Add(30 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if out, err := cl.haproxyCommand("show servers state " + cl.state.Backend); err == nil && soakServerDown(out, victim.Name) {
			to = time.Now()
			break
		}
	}
	r.fault(victim.Name+" killed (SIGKILL) running the payments, left dead", from, to)
}

// soakServerDown reads HAProxy's "show servers state": the server's
// operational state is 0 when it is down.
func soakServerDown(state, server string) bool {
	for _, line := range strings.Split(state, "\n") {
		f := strings.Fields(line)
		if len(f) > 5 && f[3] == server {
			return f[5] == "0"
		}
	}
	return false
}

func (r *soakRun) fault(what string, from, to time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.faults = append(r.faults, soakFault{what, from, to})
}

// waitEngine waits until DynamoDB Local answers.
func (cl *clusterRun) waitEngine(within time.Duration) error {
	end := time.Now().Add(within)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		_, err := cl.db.ListTables(ctx, &dynamodb.ListTablesInput{})
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(end) {
			return err
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// classify503s counts the answers 502, 503 and 504 that came while a fault
// lasted or within soakGrace of its end, and the 503s that came with no
// fault under way when the engine's attempt or the shop's own deadline
// passed (the machine too busy to answer in time), and lists the others.
func (r *soakRun) classify503s() (in, busy int, outside []string) {
	for _, a := range r.tally.unavailableAnswers() {
		during := false
		for _, f := range r.faults {
			during = during || !a.at.Before(f.from) && !a.at.After(f.to.Add(soakGrace))
		}
		switch {
		case during:
			in++
		case a.status == http.StatusServiceUnavailable && a.took >= soakEngineAttempt-500*time.Millisecond:
			busy++
		default:
			outside = append(outside, a.String())
		}
	}
	return in, busy, outside
}

// browser is one visitor's browser through the proxy, its requests
// tallied under kind.
func (r *soakRun) browser(kind, addr string) *soakClient {
	c := r.cl.browser(addr, r.tally)
	c.kind = kind
	return c
}

// think: people read a page before the next click, and wait a few
// seconds when the shop said it is busy (503).
func (c *soakClient) think() {
	pause := time.Duration(300+rand.IntN(1200)) * time.Millisecond
	if c.busy {
		pause += time.Duration(2+rand.IntN(4)) * time.Second
	}
	time.Sleep(pause)
}

func (r *soakRun) before() bool { return !r.stopped.Load() }

// hand passes an order on, unless nobody is taking them.
func (r *soakRun) hand(to chan soakOrder, o soakOrder) {
	select {
	case to <- o:
	default:
	}
}

// take waits for an order until the deadline.
func (r *soakRun) take(from chan soakOrder) (soakOrder, bool) {
	select {
	case o := <-from:
		return o, true
	case <-time.After(2 * time.Second):
		return soakOrder{}, false
	}
}

// signUp makes a customer's account and leaves the browser signed in.
func soakSignUp(c *soakClient, email, password string) bool {
	c.do(http.MethodGet, paths.Signup, nil)
	status, _, _ := c.do(http.MethodPost, paths.Signup, url.Values{"email": {email}, "name": {"Soak Customer"}, "password": {password}})
	return status == http.StatusSeeOther
}

// soakSignIn signs in, pressing again on a 503.
func soakSignIn(c *soakClient, email, password string) bool {
	press(c, http.MethodGet, paths.Login, nil)
	status, _, _ := press(c, http.MethodPost, paths.Login, url.Values{"email": {email}, "password": {password}})
	return status == http.StatusSeeOther
}

// customer plays customers one after another until the deadline: each
// browses, signs up, fills a cart, checks out (sometimes with the gift
// card or the discount code) and pays on the provider's page (sometimes
// after a declined card; sometimes leaving it and cancelling the held
// order, or leaving it to expire), sometimes cancels the order placed,
// and sometimes signs out and in again, with a wrong password first.
// Orders placed and not cancelled go to staff.
func (r *soakRun) customer(n int) {
	for k := 0; r.before(); k++ {
		c := r.browser("customers", fmt.Sprintf("10.%d.%d.%d", n/250, n%250, k%250+1))
		product := soakProducts[rand.IntN(len(soakProducts))]
		c.do(http.MethodGet, "/", nil)
		c.think()
		c.do(http.MethodGet, paths.Product(product), nil)
		c.think()
		if rand.IntN(3) == 0 {
			continue // a visitor who only looks
		}
		email := fmt.Sprintf("soak-%d-%d-%d@example.com", n, k, time.Now().UnixNano()%1e6)
		password := "soak password " + strconv.Itoa(n)
		if !soakSignUp(c, email, password) {
			c.think()
			continue
		}
		r.tally.add("sign-ups")
		c.think()
		c.do(http.MethodGet, paths.Product(product), nil)
		c.do(http.MethodPost, "/cart/items", url.Values{"product_id": {product}, "quantity": {strconv.Itoa(1 + rand.IntN(2))}})
		c.think()
		var pay soakPayment
		switch x := rand.IntN(10); {
		case x < 4:
			pay.giftCard = soakGiftCard // the total stays: a gift card pays, it does not discount
		case x < 6:
			pay.code = soakCode
		}
		if id, placed := r.order(c, pay); placed {
			r.tally.add("orders placed")
			if rand.IntN(10) == 0 {
				c.think()
				if soakSubmit(c, paths.OrderCancel(id), "cancel-form", nil) == http.StatusSeeOther {
					r.tally.add("orders cancelled by their customer")
				}
			} else {
				r.hand(r.placed, soakOrder{id, email, password})
			}
		}
		c.think()
		if rand.IntN(4) == 0 {
			c.do(http.MethodPost, paths.Logout, url.Values{})
			c.do(http.MethodGet, paths.Login, nil)
			c.do(http.MethodPost, paths.Login, url.Values{"email": {email}, "password": {"not the password"}})
			if status, _, _ := c.do(http.MethodPost, paths.Login, url.Values{"email": {email}, "password": {password}}); status == http.StatusSeeOther {
				r.tally.add("sign-ins")
			}
		}
	}
}

// soakSubmit opens page, fills the form of data-testid with what the page
// put in it and set, and sends it (pressed again on a 503). It gives the
// answer's status, 0 when the page has no such form.
func soakSubmit(c *soakClient, page, testid string, set func(url.Values, *goquery.Selection)) int {
	status, _ := soakSubmitTo(c, page, testid, set)
	return status
}

// soakSubmitTo is soakSubmit, with where the answer sends the browser.
func soakSubmitTo(c *soakClient, page, testid string, set func(url.Values, *goquery.Selection)) (int, string) {
	status, doc, _ := press(c, http.MethodGet, page, nil)
	if status != http.StatusOK || doc == nil {
		return 0, ""
	}
	return soakSendTo(c, doc.Find(`form[data-testid="`+testid+`"]`).First(), set)
}

// soakSend sends a form of a page as a browser would, with what set
// changes.
func soakSend(c *soakClient, form *goquery.Selection, set func(url.Values, *goquery.Selection)) int {
	status, _ := soakSendTo(c, form, set)
	return status
}

// soakSendTo is soakSend, with where the answer sends the browser.
func soakSendTo(c *soakClient, form *goquery.Selection, set func(url.Values, *goquery.Selection)) (int, string) {
	action, ok := form.Attr("action")
	if !ok {
		return 0, ""
	}
	v := formValues(form)
	if set != nil {
		set(v, form)
	}
	status, _, hdr := press(c, http.MethodPost, action, v)
	if hdr == nil {
		return status, ""
	}
	return status, hdr.Get("Location")
}

// formValues is what a browser sends of a form left as it came: each
// field's value, the checked boxes, each select's chosen option.
func formValues(form *goquery.Selection) url.Values {
	v := url.Values{}
	form.Find("input, select, textarea").Each(func(_ int, f *goquery.Selection) {
		name, _ := f.Attr("name")
		if _, disabled := f.Attr("disabled"); name == "" || disabled {
			return
		}
		switch goquery.NodeName(f) {
		case "select":
			opt := f.Find("option[selected]").First()
			if opt.Length() == 0 {
				opt = f.Find("option").First()
			}
			v.Add(name, opt.AttrOr("value", opt.Text()))
		case "textarea":
			v.Add(name, f.Text())
		default:
			if typ := f.AttrOr("type", "text"); typ == "radio" || typ == "checkbox" {
				if _, checked := f.Attr("checked"); !checked {
					return
				}
			}
			v.Add(name, f.AttrOr("value", ""))
		}
	})
	return v
}

// staff signs in to the console and works through the orders customers
// placed: refunds some whole and some in part, ships and delivers the
// others, and takes back the returns their customers ask for.
func (r *soakRun) staff(n int) {
	c := r.browser("staff", fmt.Sprintf("10.91.0.%d", n+1))
	for !soakSignIn(c, demo.StaffEmail, demo.StaffPassword) {
		if !r.before() {
			return
		}
		time.Sleep(time.Second)
	}
	for r.before() {
		if o, ok := r.take(r.placed); ok {
			switch x := rand.IntN(10); {
			case x < 2:
				r.refund(c, o, true)
			case x < 4:
				r.refund(c, o, false)
			default:
				r.shipAndDeliver(c, o)
			}
		}
		if rand.IntN(3) == 0 {
			r.takeBackReturns(c)
		}
	}
}

// refund refunds an order from its console page: every unit, or one unit
// (an amount where no line has two).
func (r *soakRun) refund(c *soakClient, o soakOrder, whole bool) {
	status := soakSubmit(c, paths.AdminOrder(o.id), "refund-form", func(v url.Values, form *goquery.Selection) {
		one := false
		form.Find(`input[type="number"]`).Each(func(_ int, f *goquery.Selection) {
			name, left := f.AttrOr("name", ""), f.AttrOr("max", "0")
			switch {
			case whole:
				v.Set(name, left)
			case !one && left != "0" && left != "1":
				v.Set(name, "1")
				one = true
			}
		})
		if !whole && !one {
			v.Set("amount", "1.00")
		}
		v.Set("reason", "soak: a refund")
		v.Set("confirm", "yes") // as the confirmation page sends it
	})
	if status == http.StatusSeeOther {
		if whole {
			r.tally.add("refunds of whole orders")
		} else {
			r.tally.add("refunds in part")
		}
	}
}

// shipAndDeliver makes an order's shipments and moves each to shipped
// (with a carrier's tracking number) and delivered, each step confirmed on
// its page; a delivered order goes to its customer, who may return it.
func (r *soakRun) shipAndDeliver(c *soakClient, o soakOrder) {
	if soakSubmit(c, paths.AdminOrder(o.id), "create-shipments-form", nil) != http.StatusSeeOther {
		return
	}
	status, doc, _ := press(c, http.MethodGet, paths.AdminOrder(o.id), nil)
	if status != http.StatusOK || doc == nil {
		return
	}
	var shipments []string
	doc.Find(`[data-testid="order-shipment"]`).Each(func(_ int, s *goquery.Selection) { shipments = append(shipments, s.AttrOr("data-shipment", "")) })
	for _, sid := range shipments {
		for _, to := range []string{"shipped", "delivered"} {
			status, doc, _ := press(c, http.MethodGet, paths.AdminShipment(sid), nil)
			if status != http.StatusOK || doc == nil {
				return
			}
			step := doc.Find(`form:has(input[name="status"][value="` + to + `"])`).First()
			if step.Length() == 0 {
				return
			}
			// The step asks to confirm on a page of its own.
			status, confirm, _ := press(c, http.MethodPost, step.AttrOr("action", paths.AdminShipment(sid)), func() url.Values {
				v := formValues(step)
				if to == "shipped" {
					v.Set("carrier", "postnord")
					v.Set("tracking", "RR123456785SE")
				}
				return v
			}())
			if status != http.StatusOK || confirm == nil || soakSend(c, confirm.Find(`form[data-testid="confirm-form"]`), nil) != http.StatusSeeOther {
				return
			}
		}
	}
	r.tally.add("orders shipped and delivered")
	r.hand(r.delivered, o)
}

// takeBackReturns works through the requested returns of the soak's
// orders: each received, inspected (every line accepted) and refunded.
func (r *soakRun) takeBackReturns(c *soakClient) {
	status, doc, _ := press(c, http.MethodGet, paths.AdminReturns, nil)
	if status != http.StatusOK || doc == nil {
		return
	}
	var pages []string
	doc.Find(`[data-testid="return-link"]`).Each(func(_ int, a *goquery.Selection) {
		href := a.AttrOr("href", "")
		rest, _ := strings.CutPrefix(href, "/admin/orders/")
		orderID, _, _ := strings.Cut(rest, "/")
		r.mu.Lock()
		ours := r.ours[orderID]
		r.mu.Unlock()
		if ours {
			pages = append(pages, href)
		}
	})
	for _, p := range pages {
		for _, step := range []string{"receive-form", "inspect-form", "refund-form"} {
			status := soakSubmit(c, p, step, func(v url.Values, form *goquery.Selection) {
				form.Find(`[data-testid="verdict-accept"]`).Each(func(_ int, f *goquery.Selection) { v.Set(f.AttrOr("name", ""), f.AttrOr("value", "")) })
				if step == "refund-form" {
					v.Set("confirm", "yes") // as the confirmation page sends it
				}
			})
			if status != http.StatusSeeOther {
				break // another staff member's step first (409), or a fault
			}
			if step == "refund-form" {
				r.tally.add("returns refunded")
			}
		}
	}
}

// returner signs in as the customer of a delivered order and asks to
// return one unit of its first line.
func (r *soakRun) returner(n int) {
	for k := 0; r.before(); k++ {
		o, ok := r.take(r.delivered)
		if !ok {
			continue
		}
		c := r.browser("returns", fmt.Sprintf("10.92.%d.%d", n, k%250+1))
		if !soakSignIn(c, o.email, o.password) {
			c.think()
			continue
		}
		status := soakSubmit(c, paths.Order(o.id), "return-form", func(v url.Values, form *goquery.Selection) {
			v.Set("qty-0", "1")
			form.Find(`select[name="reason"] option`).EachWithBreak(func(_ int, opt *goquery.Selection) bool {
				v.Set("reason", opt.AttrOr("value", ""))
				return v.Get("reason") == ""
			})
		})
		if status == http.StatusSeeOther {
			r.tally.add("returns requested")
		}
	}
}

// subscriber plays subscribers one after another: each signs up,
// subscribes to a product, changes the payment day and the period, and
// cancels, at the period's end or now.
func (r *soakRun) subscriber(n int) {
	for k := 0; r.before(); k++ {
		c := r.browser("subscriptions", fmt.Sprintf("10.90.%d.%d", n, k%250+1))
		email := fmt.Sprintf("soak-sub-%d-%d-%d@example.com", n, k, time.Now().UnixNano()%1e6)
		if !soakSignUp(c, email, "soak subscriber password") {
			c.think()
			continue
		}
		c.think()
		if !r.subscribe(c, soakProducts[rand.IntN(len(soakProducts))]) {
			c.think()
			continue
		}
		r.tally.add("subscriptions")
		steps := []struct {
			form string
			set  func(url.Values, *goquery.Selection)
		}{
			{"sub-day-form", func(v url.Values, _ *goquery.Selection) { v.Set("day", strconv.Itoa(1+rand.IntN(28))) }},
			{"sub-period-form", func(v url.Values, _ *goquery.Selection) {
				v.Set("period", strconv.Itoa(rules.Periods[rand.IntN(len(rules.Periods))]))
			}},
			{[]string{"sub-cancel-period-end-form", "sub-cancel-now-form"}[rand.IntN(2)], nil},
		}
		for _, s := range steps {
			c.think()
			if soakSubmit(c, paths.Subscriptions, s.form, s.set) == http.StatusSeeOther {
				r.tally.add("subscription changes")
			}
		}
	}
}

// soakAPIDrop is the API drop the clients claim on, made with the key
// through the API (again while the replicas have not loaded the key).
func soakAPIDrop(t *testing.T, cl *clusterRun, secret string) string {
	t.Helper()
	now := time.Now().UTC()
	body := map[string]any{"title": "Soak drop", "quantity": soakDropQuantity,
		"opens": now.Format(time.RFC3339), "closes": now.Add(2 * time.Hour).Format(time.RFC3339)}
	for end := now.Add(30 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		var d struct {
			ID string `json:"id"`
		}
		status, _, err := apiCall(http.MethodPost, cl.state.Proxy+"/api/v1/drops", secret, body, &d)
		if err == nil && status == http.StatusCreated {
			return d.ID
		}
		if time.Now().After(end) {
			t.Fatalf("the API drop: %d %v", status, err)
		}
	}
}

// claimer claims tickets of the API drop for client ids of its own, now
// and then twice for one client (already claimed), each claim sent again
// while the key is not loaded (401), the client is too fast (429) or the
// shop is busy (503).
func (r *soakRun) claimer(n int, secret, dropID string) {
	for k := 0; r.before(); k++ {
		client := fmt.Sprintf("soak-%d-%d", n, k)
		for range 1 + min(1, rand.IntN(5)/4) {
			r.claim(secret, dropID, client)
		}
		time.Sleep(time.Duration(100+rand.IntN(300)) * time.Millisecond)
	}
}

func (r *soakRun) claim(secret, dropID, client string) {
	path := "/api/v1/drops/" + dropID + "/claims"
	// Until answered: a claim answered 503 may have been written.
	for end := time.Now().Add(3 * time.Minute); time.Now().Before(end); {
		var ans struct {
			Reason string `json:"reason"`
		}
		t0 := time.Now()
		status, hdr, err := apiCall(http.MethodPost, r.cl.state.Proxy+path, secret, map[string]string{"client": client}, &ans)
		r.tally.answer("api", http.MethodPost, path, status, hdr.Get(web.ReplicaHeader), time.Since(t0), err)
		switch {
		case err != nil:
			return
		case status == http.StatusCreated, status == http.StatusConflict && ans.Reason == "already_claimed":
			r.mu.Lock()
			r.tickets[client] = true
			r.mu.Unlock()
			if status == http.StatusCreated {
				r.tally.add("tickets claimed")
			} else {
				r.tally.add("claims again for a ticket held")
			}
			return
		case status == http.StatusConflict && ans.Reason == "sold_out":
			r.tally.add("claims refused sold out")
			return
		case status == http.StatusUnauthorized, status == http.StatusTooManyRequests, status == http.StatusServiceUnavailable:
			time.Sleep(time.Second)
		default:
			return
		}
	}
}

// soakTally counts the answers.
type soakTally struct {
	mu             sync.Mutex
	byStatus       map[int]int
	byKind, events map[string]int
	failed, slow   int
	bad            []string
	unavailable    []soakAnswer // every 502, 503 and 504
}

// soakAnswer is one answer that said the shop could not serve.
type soakAnswer struct {
	at               time.Time
	status           int
	method, path, by string
	took             time.Duration
}

func (a soakAnswer) String() string {
	by := a.by
	if by == "" {
		by = "haproxy"
	}
	return fmt.Sprintf("%d %s %s from %s at %s after %s", a.status, a.method, a.path, by, a.at.Format("15:04:05.000"), a.took.Round(time.Millisecond))
}

func (t *soakTally) answer(kind, method, path string, status int, replica string, took time.Duration, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byStatus == nil {
		t.byStatus, t.byKind, t.events = map[int]int{}, map[string]int{}, map[string]int{}
	}
	t.byKind[kind]++
	switch {
	case err != nil:
		t.failed++
		t.note(fmt.Sprintf("%s %s: %v", method, path, err))
		return
	case took > soakRequestTimeout+2*time.Second && !(path == paths.Login && took <= soakRequestTimeout+soakGiveBack+2*time.Second):
		t.slow++
		t.note(fmt.Sprintf("%s %s: %d after %s", method, path, status, took.Round(time.Millisecond)))
	}
	switch status {
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		t.unavailable = append(t.unavailable, soakAnswer{time.Now(), status, method, path, replica, took})
	default:
		if status >= 500 {
			t.note(fmt.Sprintf("%s %s: %d from %s", method, path, status, replica))
		}
	}
	t.byStatus[status]++
}

func (t *soakTally) add(event string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.events == nil {
		t.byStatus, t.byKind, t.events = map[int]int{}, map[string]int{}, map[string]int{}
	}
	t.events[event]++
}

// done is how many times event happened.
func (t *soakTally) done(event string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.events[event]
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

func (t *soakTally) total() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, v := range t.byKind {
		n += v
	}
	return n
}

func (t *soakTally) examples() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.bad)
}

func (t *soakTally) unavailableAnswers() []soakAnswer {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.unavailable)
}

func (t *soakTally) statuses() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var parts []string
	for _, c := range slices.Sorted(maps.Keys(t.byStatus)) {
		parts = append(parts, fmt.Sprintf("%d: %d", c, t.byStatus[c]))
	}
	return strings.Join(parts, ", ")
}

func (t *soakTally) kinds() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return countsText(t.byKind)
}

func (t *soakTally) eventsText() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return countsText(t.events)
}

// countsText is "name n, name n" in the names' order.
func countsText(m map[string]int) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// soakClient is one simulated visitor's browser at an address of its own.
type soakClient struct {
	base, addr, kind string
	http             *http.Client
	csrf             string
	tally            *soakTally
	busy             bool // the last answer was 503
}

func (c *soakClient) do(method, path string, form url.Values) (int, *goquery.Document, http.Header) {
	return c.send(method, path, form, false)
}

// send is do, as htmx asks when hx is set. A card number goes only to the
// provider's page: one sent anywhere else is counted, and fails the soak.
func (c *soakClient) send(method, path string, form url.Values, hx bool) (int, *goquery.Document, http.Header) {
	if form.Has("card_number") && !strings.HasPrefix(path, "/test-payments/") {
		c.tally.add(soakCardOffPage)
	}
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
	if hx {
		req.Header.Set("HX-Request", "true")
	}
	t0 := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		c.tally.answer(c.kind, method, path, 0, "", time.Since(t0), err)
		return 0, nil, nil
	}
	defer resp.Body.Close()
	doc, _ := goquery.NewDocumentFromReader(bufio.NewReader(resp.Body))
	c.tally.answer(c.kind, method, path, resp.StatusCode, resp.Header.Get(web.ReplicaHeader), time.Since(t0), nil)
	c.busy = resp.StatusCode == http.StatusServiceUnavailable
	if doc != nil {
		if tok, ok := doc.Find(`input[name="_csrf"]`).First().Attr("value"); ok && tok != "" {
			c.csrf = tok
		}
	}
	return resp.StatusCode, doc, resp.Header
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
