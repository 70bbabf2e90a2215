package web_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"shop/jobs"
	"shop/store"
	"shop/store/demo"
	"shop/store/dropgate"
	"shop/store/payment"
	"shop/store/storetest"
	"shop/web"
)

var updateCost = flag.Bool("update", false, "rewrite the measured figures of docs/cost.md (and the total in docs/deploying.md) from this run")

// On-demand list prices in us-east-1 since 1 November 2024
// (https://aws.amazon.com/dynamodb/pricing/on-demand/).
const (
	pricePerMillionWrites = 0.625
	pricePerMillionReads  = 0.125
	pricePerGBMonth       = 0.25
	pricePITRPerGBMonth   = 0.20
)

// The shop of the issue, and what the model assumes of it (docs/cost.md
// says why).
const (
	monthDays          = 30
	ordersPerMonth     = 1000 * monthDays
	customers          = 10_000
	subscriptions      = 5_000
	viewsPerOrder      = 20
	replicas           = 3
	newCustomers       = 1_000 // a month
	newSubscriptions   = 250   // a month: 5 % of them turn over
	dropClaims         = 2_000 // a month
	dropDaysOpen       = 4     // days a month some drop is open (and in the gates)
	splitTenderShare   = 0.10  // orders paid partly by gift card
	signedInViewsShare = 0.25  // views by a signed-in customer (each reads the session)
	historyMonths      = 12    // storage is what a year of orders leaves
)

// units is what one action consumed, in request units as on-demand bills
// them.
type units struct {
	Requests    float64 // a mean over several subscriptions is fractional
	Read, Write float64
	// Estimated is the part of Read and Write DynamoDB Local does not
	// report, added by AWS's rules (capacityMeter).
	Estimated float64
}

func (u units) add(v units) units {
	return units{u.Requests + v.Requests, u.Read + v.Read, u.Write + v.Write, u.Estimated + v.Estimated}
}

func (u units) scale(f float64) units {
	return units{u.Requests * f, u.Read * f, u.Write * f, u.Estimated * f}
}

func (u units) sub(v units) units { return u.add(v.scale(-1)) }

func (u units) dollars() float64 {
	return u.Read/1e6*pricePerMillionReads + u.Write/1e6*pricePerMillionWrites
}

// capacityMeter sums the capacity DynamoDB reports for every request of
// the store it watches. DynamoDB Local reports CapacityUnits alone (no
// read/write split), so the operation tells which; and where it reports
// nothing AWS would bill, the meter adds AWS's figure and counts it as
// estimated:
//   - a ConditionCheck inside TransactWriteItems (Local: 0; AWS bills every
//     item of a write transaction, 2 write units per KB);
//   - a Query that finds nothing (Local: 0; AWS bills a read's minimum, half
//     a unit, one when consistent, as it does for a GetItem of no item);
//   - a write refused by its condition (Local returns no capacity with the
//     error; AWS bills it: 1 unit, and 2 per item of a cancelled
//     transaction).
type capacityMeter struct {
	mu  sync.Mutex
	got units
}

func (m *capacityMeter) reset() units {
	m.mu.Lock()
	defer m.mu.Unlock()
	u := m.got
	m.got = units{}
	return u
}

// measure runs fn and returns what it consumed.
func (m *capacityMeter) measure(fn func()) units {
	m.reset()
	fn()
	return m.reset()
}

func (m *capacityMeter) middleware(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("CostMeter",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			out, md, err := next.HandleInitialize(ctx, in)
			m.observe(awsmiddleware.GetOperationName(ctx), in.Parameters, out.Result, err)
			return out, md, err
		}), middleware.After)
}

func (m *capacityMeter) observe(op string, params, result any, err error) {
	var reported []types.ConsumedCapacity
	one := func(c *types.ConsumedCapacity) {
		if c != nil {
			reported = append(reported, *c)
		}
	}
	var estimated float64
	switch out := result.(type) {
	case *dynamodb.GetItemOutput:
		one(out.ConsumedCapacity)
	case *dynamodb.QueryOutput:
		one(out.ConsumedCapacity)
	case *dynamodb.ScanOutput:
		one(out.ConsumedCapacity)
	case *dynamodb.PutItemOutput:
		one(out.ConsumedCapacity)
	case *dynamodb.UpdateItemOutput:
		one(out.ConsumedCapacity)
	case *dynamodb.DeleteItemOutput:
		one(out.ConsumedCapacity)
	case *dynamodb.BatchGetItemOutput:
		reported = out.ConsumedCapacity
	case *dynamodb.BatchWriteItemOutput:
		reported = out.ConsumedCapacity
	case *dynamodb.TransactGetItemsOutput:
		reported = out.ConsumedCapacity
	case *dynamodb.TransactWriteItemsOutput:
		reported = out.ConsumedCapacity
	}
	var total float64
	for _, c := range reported {
		total += aws.ToFloat64(c.CapacityUnits)
	}
	switch in := params.(type) {
	case *dynamodb.TransactWriteItemsInput:
		var cancelled *types.TransactionCanceledException
		if errors.As(err, &cancelled) {
			estimated += 2 * float64(len(in.TransactItems))
		} else if err == nil {
			for _, it := range in.TransactItems {
				if it.ConditionCheck != nil {
					estimated += 2
				}
			}
		}
	case *dynamodb.QueryInput:
		if err == nil && total == 0 {
			estimated += 0.5
			if aws.ToBool(in.ConsistentRead) {
				estimated += 0.5
			}
		}
	}
	var refused *types.ConditionalCheckFailedException
	if errors.As(err, &refused) {
		estimated++
	}
	total += estimated
	m.mu.Lock()
	defer m.mu.Unlock()
	m.got.Requests++
	m.got.Estimated += estimated
	switch op {
	case "GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems":
		m.got.Read += total
	default:
		m.got.Write += total
	}
}

// withMeter serves the app from a store whose requests the meter weighs
// (its clock the test's). The gateway keeps its ledger through the store
// the app was given: a real payment provider keeps its own, so its
// requests are no cost of the shop's table.
func withMeter(m *capacityMeter, opts ...store.Option) appOption {
	return func(env storetest.Env, cfg *web.Config) {
		var counter storetest.Counter // asks each request for its capacity
		client, err := store.NewClient(context.Background(), store.ClientConfig{Endpoint: env.Endpoint}, &counter, cfg.Metrics)
		if err != nil {
			panic(err)
		}
		metered := dynamodb.New(client.Options(), func(o *dynamodb.Options) { o.APIOptions = append(o.APIOptions, m.middleware) })
		cfg.Store = store.New(metered, cfg.Store.Table(), opts...)
	}
}

// The cost of a month on on-demand DynamoDB for the shop of issue 15,
// from what each action consumes here. The figures in docs/cost.md (and
// the total in docs/deploying.md) are this test's: it fails when they
// drift from the measurement beyond rounding; `go test ./web -run
// TestMonthlyCost -update` writes them again.
func TestMonthlyCost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var meter capacityMeter
	clock := storetest.NewClock(time.Now(), 0)
	var gate *dropgate.Gate
	var st *store.Store
	// A gate that does not refresh itself (its refresh is measured on its
	// own), on the metered store.
	quiet := func(_ storetest.Env, cfg *web.Config) {
		st = cfg.Store
		gate = dropgate.New(cfg.Store, nil)
		cfg.Gate = gate
	}
	s := newShop(t, withMeter(&meter, store.WithClock(clock.Now)), quiet, withAPIKeysEvery(time.Hour))
	drop := s.openDrop(t, "Cost roast", 50)
	box := s.coffeeBox(t)
	// Moving the clock on by more than a minute empties the shop window
	// (lists a minute, stock a second); by two seconds, stock alone.
	now := time.Now().Add(time.Second)
	step := func(d time.Duration) { now = now.Add(d); clock.Set(now) }
	step(0)
	products, err := st.AllProducts(ctx)
	if err != nil {
		t.Fatal(err)
	}

	m := map[string]units{}
	var snapBefore map[string]storedItem
	storage := map[string]stored{}
	snapshot := func() { snapBefore = tableItems(t, s.env, now) }
	written := func(what string, times int) {
		storage[what] = diffStored(snapBefore, tableItems(t, s.env, now)).per(times)
	}
	mails := map[string]float64{}
	keeper, err := jobs.NewDeliverer(st, jobs.DeliveryConfig{KeepInOutbox: true, Replica: "cost"})
	if err != nil {
		t.Fatal(err)
	}
	var mailUnits units
	var mailCount, batches int
	drain := func(what string, times int) {
		var n int
		u := meter.measure(func() {
			for {
				batches++
				sent, _, err := keeper.DeliverPending(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if sent == 0 {
					return
				}
				n += sent
			}
		})
		mails[what] = float64(n) / float64(times)
		mailUnits, mailCount = mailUnits.add(u), mailCount+n
	}
	drain("before", 1) // the demo's mails

	// A visitor browsing, the shop window cold and then warm.
	visitor := s.browser(t)
	view := func(b *browser, path string) func() {
		return func() { wantStatus(t, path, b.get(path), http.StatusOK) }
	}
	step(2 * time.Minute)
	m["home cold"] = meter.measure(view(visitor, "/"))
	m["home warm"] = meter.measure(view(visitor, "/"))
	step(2 * time.Second)
	m["product cold"] = meter.measure(view(visitor, "/products/cf-light"))
	m["product warm"] = meter.measure(view(visitor, "/products/cf-light"))
	step(2 * time.Minute)
	m["search cold"] = meter.measure(view(visitor, "/search?q=grinder"))
	m["search warm"] = meter.measure(view(visitor, "/search?q=grinder"))

	// A new customer signs up, signs out, and comes back as a visitor who
	// fills a cart and signs in at checkout.
	email := "cost.counter@example.com"
	snapshot()
	m["sign-up"] = meter.measure(func() {
		visitor.get("/signup")
		p := visitor.post("/signup", url.Values{"email": {email}, "name": {"Cost Counter"}, "password": {"a long enough password"}})
		wantStatus(t, "sign up", p, http.StatusSeeOther)
	})
	written("customer", 1)
	drain("sign-up", 1)
	visitor.get("/") // shows the welcome (and so saves the session once)
	m["signed-in view"] = meter.measure(view(visitor, "/"))
	wantStatus(t, "sign out", visitor.post("/logout", url.Values{}), http.StatusSeeOther)

	// A checkout by card: the hold, the webhook that places the order, and
	// the order's page the customer comes back to. The card's page between
	// is the provider's (with Stripe, Stripe's): not the shop's cost.
	placeOrder := func(b *browser, form func(url.Values)) (units, string) {
		f := b.freshCheckoutForm()
		form(f)
		var held page
		hold := meter.measure(func() { held = b.post("/checkout", f) })
		path := s.paymentPage(held)
		if path == "" {
			t.Fatalf("checkout answered %d to %q, not the payment page", held.status, held.header.Get("Location"))
		}
		b.get(path)
		paid := b.post(path, cardFields(payment.CardSucceeds))
		wantStatus(t, "pay on the test payment page", paid, http.StatusSeeOther)
		order := strings.TrimPrefix(paid.header.Get("Location"), s.base)
		events := s.dueEvents(t)
		complete := meter.measure(func() { s.postEvents(t, events) })
		s.markDelivered(t, events)
		back := meter.measure(func() { wantStatus(t, "the order's page", b.get(order), http.StatusOK) })
		return hold.add(complete).add(back), order
	}
	ship := func(orderPath string) units {
		staff := s.staff(t)
		id := strings.TrimPrefix(orderPath, "/orders/")
		path := "/admin/orders/" + id
		return meter.measure(func() {
			staff.get(path)
			wantStatus(t, "create shipments", staff.post(path+"/shipments", url.Values{"type": {"Standard"}}), http.StatusSeeOther)
			var sid string
			staff.get(path).testid("order-shipment").Each(func(_ int, a *goquerySelection) {
				if sid == "" {
					sid, _ = a.Attr("data-shipment")
				}
			})
			if sid == "" {
				t.Fatal("no shipment made")
			}
			wantStatus(t, "ship", staff.step(path, sid, url.Values{"status": {"shipped"}, "carrier": {"ups"}, "tracking": {"1Z999AA10123456784"}}), http.StatusSeeOther)
			wantStatus(t, "deliver", staff.step(path, sid, url.Values{"status": {"delivered"}}), http.StatusSeeOther)
		})
	}

	shopper := s.browser(t)
	snapshot()
	shopper.get("/products/cf-light")
	m["cart first line"] = meter.measure(func() {
		p := shopper.post("/cart/items", url.Values{"product_id": {"cf-light"}, "quantity": {"1"}})
		wantStatus(t, "first line", p, http.StatusSeeOther)
	})
	m["cart another line"] = meter.measure(func() {
		p := shopper.post("/cart/items", url.Values{"product_id": {"cf-grinder"}, "quantity": {"1"}})
		wantStatus(t, "another line", p, http.StatusSeeOther)
	})
	m["sign-in"] = meter.measure(func() {
		shopper.get("/login")
		p := shopper.post("/login", url.Values{"email": {email}, "password": {"a long enough password"}})
		wantStatus(t, "sign in", p, http.StatusSeeOther)
	})
	var first string
	m["checkout card"], first = placeOrder(shopper, func(url.Values) {})
	m["order list"] = meter.measure(view(shopper, "/orders"))
	m["shipping"] = ship(first)
	written("order", 1)
	drain("order", 1)

	// The second order pays €50 of its total by gift card, the rest by card.
	shopper.addToCart("cf-grinder", "1")
	shopper.addToCart("cf-light", "1")
	var second string
	m["checkout split"], second = placeOrder(shopper, func(f url.Values) { f.Set("giftcard", demo.GiftCardBalance) })
	if p := shopper.get(second); !strings.Contains(p.body, "Gift card") && !strings.Contains(p.body, "gift card") {
		t.Fatalf("the second order shows no gift card payment")
	}
	drain("split order", 1)

	// A subscription taken on the product page with a new card: the form
	// that opens the provider's page, the webhook that starts the
	// subscription, and the page the customer comes back to; the card's
	// page between is the provider's, as for a checkout.
	form := shopper.subscribeForm(box.ID, itoa(s.env.Store.Today().Day()), "1") // a whole period, as every later payment
	snapshot()
	var started page
	subscribe := meter.measure(func() { started = shopper.post("/subscriptions", form) })
	wantStatus(t, "subscribe", started, http.StatusSeeOther)
	back := s.payOnPage(t, shopper, s.local(t, started.header.Get("Location")), payment.CardSucceeds)
	events := s.dueEvents(t)
	complete := meter.measure(func() { s.postEvents(t, events) })
	s.markDelivered(t, events)
	returned := meter.measure(func() { wantStatus(t, "back to the subscriptions", shopper.get(back), http.StatusOK) })
	m["subscribe"] = subscribe.add(complete).add(returned)
	written("subscription", 1)
	drain("subscribe", 1)

	// A drop's claim, and the gate's refresh of it while it is in use.
	shopper.get("/drops/" + drop.ID)
	m["claim"] = meter.measure(func() {
		wantStatus(t, "claim", shopper.press(drop.ID, false), http.StatusOK)
	})
	m["gate refresh"] = meter.measure(func() { gate.Refresh(ctx) })
	drain("claim", 1)

	// The billing jobs: a day's runs with nothing due, then with due
	// subscriptions; what each subscription adds is the difference.
	// The subscriptions made due pay with a card the test provider saved
	// (a demo subscriber's), as every renewal now does: the payment made,
	// its id saved, then confirmed (the provider's ledger is not the
	// shop's cost).
	gateway := payment.NewTestGateway(s.env.Store) // the legacy gateway: no card of it is charged here
	demoSubs, err := s.env.Store.Subscriptions(ctx, s.customerID(t, demo.CustomerEmail))
	if err != nil || len(demoSubs) == 0 || !demoSubs[0].Card.Saved() {
		t.Fatalf("no saved card of a demo subscriber: %+v, %v", demoSubs, err)
	}
	card := demoSubs[0].Card
	// One at a time: no conflicts to retry, the same figure each run.
	runner := jobs.NewRunner(st, gateway, jobs.Config{Replica: "cost", Concurrency: 1, Payments: payment.NewProviders(s.provider)})
	today := st.Today()
	run := func(job string) units {
		return meter.measure(func() {
			if _, err := runner.Run(ctx, job, today, "staff"); err != nil {
				t.Fatalf("%s: %v", job, err)
			}
		})
	}
	run(jobs.JobReminders) // the demo's own due subscriptions
	run(jobs.JobPayments)
	drain("demo runs", 1)
	m["reminders run"], m["payments run"] = run(jobs.JobReminders), run(jobs.JobPayments)
	const due = 8
	harness := &jobsHarness{store: s.env.Store, gateway: gateway, card: card}
	harness.seedDue(t, due, today.AddDate(0, 0, 7))
	m["reminder"] = run(jobs.JobReminders).sub(m["reminders run"]).scale(1.0 / due)
	drain("reminder", due)
	harness.seedDue(t, due, today)
	snapshot()
	payments := run(jobs.JobPayments)
	m["payment"] = payments.sub(m["payments run"]).scale(1.0 / due)
	written("payment", due)
	drain("payment", due)

	// Background work on every replica: the mail delivery's tick (a lease,
	// the pending mail, the lease given back) and the reconcile step.
	m["mail tick"] = meter.measure(func() {
		lease, err := st.AcquireLease(ctx, jobs.LeaseMailDelivery, st.Today(), "cost", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.PendingMail(ctx, 50); err != nil {
			t.Fatal(err)
		}
		if err := st.ReleaseLease(ctx, lease); err != nil {
			t.Fatal(err)
		}
	})
	m["reconcile tick"] = meter.measure(func() {
		for _, f := range []func() (int, error){
			func() (int, error) { return runner.Reconcile(ctx, 15*time.Minute) },
			func() (int, error) { return runner.CloseEndedDrops(ctx) },
			func() (int, error) { return st.FinishDeletions(ctx, st.Now().Add(-15*time.Minute)) },
			func() (int, error) { return runner.CloseStalledRuns(ctx, jobs.JobReminders) },
			func() (int, error) { return runner.CloseStalledRuns(ctx, jobs.JobPayments) },
			func() (int, error) { return runner.CloseStalledRuns(ctx, jobs.JobArchive) },
		} {
			if _, err := f(); err != nil {
				t.Fatal(err)
			}
		}
	})
	if mailCount == 0 {
		t.Fatal("no mail was delivered")
	}
	mailIdle := meter.measure(func() {
		if _, err := st.PendingMail(ctx, 50); err != nil {
			t.Fatal(err)
		}
	})
	// A mail's own cost: its mark as sent (the batches' reads shared out).
	m["mail"] = mailUnits.sub(mailIdle.scale(float64(batches))).scale(1 / float64(mailCount))
	delete(mails, "before")
	delete(mails, "demo runs")

	model := costModel{m: m, storage: storage, mails: mails, products: len(products), productBytes: productBytes(t, s.env)}
	doc := model.render()
	t.Log("\n" + doc)
	checkDoc(t, "../docs/cost.md", doc, model.summary())
}

// productBytes is the average size of a product item.
func productBytes(t *testing.T, env storetest.Env) float64 {
	t.Helper()
	var sum, n float64
	for _, it := range env.Items(t) {
		if kind, ok := it["EntityType"].(*types.AttributeValueMemberS); ok && kind.Value == "product" {
			sum += float64(itemSize(it))
			n++
		}
	}
	if n == 0 {
		t.Fatal("no product items")
	}
	return sum / n
}

// storedItem is an item's size as DynamoDB bills its storage: in the table
// and in each index that holds it (each with 100 bytes of overhead).
type storedItem struct {
	table, indexes float64
	life           float64 // months it is kept; +Inf for ever
}

type stored struct{ table, indexes float64 }

// tableItems reads every item of the test's table (the gateway's ledger
// left out: a real provider keeps it).
func tableItems(t *testing.T, env storetest.Env, now time.Time) map[string]storedItem {
	t.Helper()
	out := map[string]storedItem{}
	for _, it := range env.Items(t) {
		pk, _ := it["PK"].(*types.AttributeValueMemberS)
		sk, _ := it["SK"].(*types.AttributeValueMemberS)
		if pk == nil || sk == nil || strings.HasPrefix(pk.Value, "gw") {
			continue
		}
		size := float64(itemSize(it))
		si := storedItem{table: size + 100, life: math.Inf(1)}
		for _, keys := range [][2]string{{"GSI1-PK", "GSI1-SK"}, {"GSI2-PK", "GSI2-SK"}, {"REM-PK", "REM-SK"}, {"PAY-PK", "PAY-SK"}, {"ATTN-PK", "ATTN-SK"}, {"SHS-PK", "SHS-SK"}} {
			if it[keys[0]] != nil && it[keys[1]] != nil {
				si.indexes += size + 100
			}
		}
		if exp, ok := it["ExpiresAt"].(*types.AttributeValueMemberN); ok {
			if sec, err := strconv.ParseInt(exp.Value, 10, 64); err == nil {
				si.life = math.Max(0, time.Unix(sec, 0).Sub(now).Hours()/24/30)
			}
		}
		out[pk.Value+"\x00"+sk.Value] = si
	}
	return out
}

// storedDiff is what a group of actions added: the items it made, and what
// items already there grew by.
type storedDiff []storedItem

func diffStored(before, after map[string]storedItem) storedDiff {
	var d storedDiff
	for k, a := range after {
		b, ok := before[k]
		if !ok {
			d = append(d, a)
			continue
		}
		if grown := a.table - b.table; grown > 0 {
			d = append(d, storedItem{table: grown, indexes: math.Max(0, a.indexes-b.indexes), life: a.life})
		}
	}
	return d
}

// per is what one action of times keeps after historyMonths of doing it
// once a month: bytes × the months each item lives, within the horizon.
func (d storedDiff) per(times int) stored {
	var s stored
	for _, it := range d {
		months := math.Min(it.life, historyMonths)
		s.table += it.table * months / float64(times)
		s.indexes += it.indexes * months / float64(times)
	}
	return s
}

// itemSize is an item's size by DynamoDB's rules: each attribute's name in
// UTF-8 bytes and its value (numbers about a byte per two digits and one
// more; lists and maps 3 bytes and one per element).
func itemSize(item map[string]types.AttributeValue) int {
	n := 0
	for name, v := range item {
		n += len(name) + valueSize(v)
	}
	return n
}

func valueSize(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return numberSize(v.Value)
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range v.Value {
			n += len(s)
		}
		return n
	case *types.AttributeValueMemberNS:
		n := 0
		for _, s := range v.Value {
			n += numberSize(s)
		}
		return n
	case *types.AttributeValueMemberBS:
		n := 0
		for _, b := range v.Value {
			n += len(b)
		}
		return n
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			n += 1 + valueSize(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for k, e := range v.Value {
			n += 1 + utf8.RuneCountInString(k) + valueSize(e)
		}
		return n
	}
	return 0
}

func numberSize(s string) int {
	digits := strings.TrimLeft(strings.Trim(strings.TrimPrefix(s, "-"), "0"), ".")
	return (len(digits)+1)/2 + 1
}

// costModel turns the measured actions into a month.
type costModel struct {
	m        map[string]units
	storage  map[string]stored
	mails    map[string]float64
	products int
	// productBytes is a product item's average size: the catalogue's read
	// for a shop of more products.
	productBytes float64
}

// catalogueRead is the read units of the whole catalogue of n products:
// eventually consistent, half a unit per 4 KB.
func (c costModel) catalogueRead(n int) float64 {
	return math.Ceil(float64(n)*c.productBytes/4096) * 0.5
}

// row is one line of the month: an action, how often, what it costs.
type row struct {
	what    string
	count   float64
	u       units   // all of them
	dollars float64 // storage's, which has no units
}

func (r row) cost() float64 { return r.u.dollars() + r.dollars }

// windowHitRate is the share of views the shop window answers from memory:
// a copy kept ttl serves every view until it expires, and the next view
// reads again, so with views arriving at random at rate λ on a replica a
// read serves 1+λ·ttl views on average.
func windowHitRate(viewsPerMonth float64, ttl time.Duration) float64 {
	perReplica := viewsPerMonth / replicas / (monthDays * 24 * time.Hour).Seconds()
	x := perReplica * ttl.Seconds()
	return x / (1 + x)
}

func (c costModel) views() (home, product, search float64) {
	v := float64(ordersPerMonth * viewsPerOrder)
	return 0.4 * v, 0.4 * v, 0.2 * v
}

// rows is the month with the shop window; withoutWindow, every view cold.
// With more products than the demo's, a cold list reads the bigger
// catalogue.
func (c costModel) rows(withoutWindow bool, products int) []row {
	m := maps.Clone(c.m)
	for _, k := range []string{"home cold", "search cold"} {
		u := m[k]
		u.Read += c.catalogueRead(products) - c.catalogueRead(c.products)
		m[k] = u
	}
	home, product, search := c.views()
	// Home, catalogue and search share one copy (categories and the whole
	// catalogue, a minute); a product page keeps its stock a second.
	listHit := windowHitRate(home+search, time.Minute)
	productHit := windowHitRate(product/float64(products), time.Second)
	if withoutWindow {
		listHit, productHit = 0, 0
	}
	mixed := func(cold, warm units, hit float64) units { return cold.scale(1 - hit).add(warm.scale(hit)) }
	orders := float64(ordersPerMonth)
	var mailsPerMonth float64
	for what, n := range c.mails {
		mailsPerMonth += n * map[string]float64{
			"sign-up": newCustomers, "order": orders, "split order": 0, // the first order's mails are every order's
			"subscribe": newSubscriptions, "claim": dropClaims, "reminder": subscriptions, "payment": subscriptions,
		}[what]
	}
	line := func(what string, n float64, u units) row { return row{what: what, count: n, u: u} }
	rows := []row{
		line(fmt.Sprintf("home and catalogue views (%.0f%% from the window)", 100*listHit), home, mixed(m["home cold"], m["home warm"], listHit)),
		line(fmt.Sprintf("product page views (%.1f%% from the window)", 100*productHit), product, mixed(m["product cold"], m["product warm"], productHit)),
		line(fmt.Sprintf("searches (%.0f%% from the window)", 100*listHit), search, mixed(m["search cold"], m["search warm"], listHit)),
		line("signed-in views' session reads", signedInViewsShare*(home+product+search), m["signed-in view"]),
		line("carts begun and left", orders, m["cart first line"]),
		line("carts of orders: first line and one more", orders, m["cart first line"].add(m["cart another line"])),
		line("sign-ins", orders, m["sign-in"]),
		line("checkouts by card", orders*(1-splitTenderShare), m["checkout card"]),
		line("checkouts by gift card and card", orders*splitTenderShare, m["checkout split"]),
		line("order lists", orders, m["order list"]),
		line("shipping (create, ship, deliver)", orders, m["shipping"]),
		line("sign-ups", newCustomers, m["sign-up"]),
		line("subscribes", newSubscriptions, m["subscribe"]),
		line("reminders", subscriptions, m["reminder"]),
		line("subscription payments", subscriptions, m["payment"]),
		line("daily job runs (reminders, payments)", 2*monthDays, m["reminders run"].add(m["payments run"]).scale(0.5)),
		line("receipts expiring (TTL)", subscriptions, units{}),
		line("drop claims", dropClaims, m["claim"]),
		line("drop gate refreshes (a second, per replica, while a drop is open)", dropDaysOpen*86400*replicas, m["gate refresh"]),
		line("mails delivered", mailsPerMonth, m["mail"]),
		line("mail delivery ticks (a minute, per replica)", monthDays*24*60*replicas, m["mail tick"]),
		line("reconcile ticks (5 minutes, per replica)", monthDays*24*12*replicas, m["reconcile tick"]),
	}
	for i := range rows {
		rows[i].u = rows[i].u.scale(rows[i].count)
	}
	return rows
}

// storageGB is what the table and its indexes hold after historyMonths.
func (c costModel) storageGB() (table, indexes float64) {
	orders := float64(ordersPerMonth)
	for what, times := range map[string]float64{
		"customer": customers / historyMonths, "order": orders, "subscription": subscriptions / historyMonths, "payment": subscriptions,
	} {
		table += c.storage[what].table * times
		indexes += c.storage[what].indexes * times
	}
	return table / 1e9, indexes / 1e9
}

type monthTotal struct {
	reads, writes, storage, pitr float64
	top                          []row
}

func (c costModel) total(withoutWindow bool, products int) monthTotal {
	var t monthTotal
	rows := c.rows(withoutWindow, products)
	for _, r := range rows {
		t.reads += r.u.Read / 1e6 * pricePerMillionReads
		t.writes += r.u.Write / 1e6 * pricePerMillionWrites
	}
	table, indexes := c.storageGB()
	t.storage = (table + indexes) * pricePerGBMonth
	t.pitr = table * pricePITRPerGBMonth
	rows = append(rows, row{what: "storage", dollars: t.storage}, row{what: "point-in-time recovery", dollars: t.pitr})
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].cost() > rows[j].cost() })
	t.top = rows[:3]
	return t
}

func (t monthTotal) sum() float64 { return t.reads + t.writes + t.storage + t.pitr }

func (c costModel) summary() string {
	return fmt.Sprintf("about **$%.2f a month**", c.total(false, c.products).sum())
}

// render writes the measured part of docs/cost.md.
func (c costModel) render() string {
	var b strings.Builder
	m := c.m
	b.WriteString("### What each action consumes\n\n")
	b.WriteString("| action | requests | read units | write units | of them estimated |\n|---|---:|---:|---:|---:|\n")
	for _, a := range []struct{ key, what string }{
		{"home cold", "home page, shop window cold"},
		{"home warm", "home page, shop window warm"},
		{"product cold", "product page, its stock cold"},
		{"product warm", "product page, warm"},
		{"search cold", "search, shop window cold"},
		{"search warm", "search, warm"},
		{"signed-in view", "any page's session read, signed in"},
		{"sign-up", "sign-up (with its verification mail)"},
		{"cart first line", "cart: its first line"},
		{"cart another line", "cart: another line"},
		{"sign-in", "sign-in (the visitor's cart joins the account's)"},
		{"checkout card", "checkout by card: the hold, the webhook, the order page"},
		{"checkout split", "checkout by gift card and card"},
		{"order list", "order list"},
		{"shipping", "shipping: create, ship, deliver (staff's pages too)"},
		{"subscribe", "subscribe with a new card: the form, the webhook, the page"},
		{"reminder", "a reminder (the job, per subscription)"},
		{"payment", "a renewal (the payments job, per subscription, through the card's provider)"},
		{"reminders run", "the reminders job's day, nothing due"},
		{"payments run", "the payments job's day, nothing due"},
		{"claim", "drop claim"},
		{"gate refresh", "drop gate's refresh of one drop"},
		{"mail", "a mail delivered (marked sent)"},
		{"mail tick", "mail delivery's tick (lease, pending mail)"},
		{"reconcile tick", "reconcile step's tick"},
	} {
		u := m[a.key]
		// A per-subscription figure is a difference of two runs: its
		// estimate can come out below zero (fewer empty shards).
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", a.what, num(u.Requests), num(u.Read), num(u.Write), num(math.Max(0, u.Estimated)))
	}
	b.WriteString("| a receipt expiring (TTL deletes) | 0 | 0 | 0 | 0 |\n")
	fmt.Fprintf(&b, "\nThe catalogue here is the demo's %d products; reading it whole (the window's copy) is part of the cold home page and search.\n", c.products)

	b.WriteString("\n### The month\n\n")
	b.WriteString("| what | a month | read units | write units | $ |\n|---|---:|---:|---:|---:|\n")
	for _, r := range c.rows(false, c.products) {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.what, count(r.count), count(r.u.Read), count(r.u.Write), money(r.u.dollars()))
	}
	t := c.total(false, c.products)
	table, indexes := c.storageGB()
	fmt.Fprintf(&b, "| storage after %d months: table %s GB, indexes %s GB | | | | %s |\n", historyMonths, num(table), num(indexes), money(t.storage))
	fmt.Fprintf(&b, "| point-in-time recovery (the table's %s GB) | | | | %s |\n", num(table), money(t.pitr))
	fmt.Fprintf(&b, "| **total** | | | | **%s** |\n", money(t.sum()))
	fmt.Fprintf(&b, "\nReads %s, writes %s, storage and recovery %s. The three largest: %s (%s), %s (%s), %s (%s).\n",
		money(t.reads), money(t.writes), money(t.storage+t.pitr),
		t.top[0].what, money(t.top[0].cost()), t.top[1].what, money(t.top[1].cost()), t.top[2].what, money(t.top[2].cost()))

	b.WriteString("\n### Without the shop window\n\n")
	b.WriteString("| catalogue | a cold list reads | browsing reads, window | browsing reads, none | the month, window | the month, none |\n|---|---:|---:|---:|---:|---:|\n")
	for _, n := range []int{c.products, 1000, 10000} {
		with, without := c.total(false, n), c.total(true, n)
		var w, wo units
		for _, r := range c.rows(false, n)[:3] {
			w = w.add(r.u)
		}
		for _, r := range c.rows(true, n)[:3] {
			wo = wo.add(r.u)
		}
		what := fmt.Sprintf("%s products", count(float64(n)))
		if n == c.products {
			what += " (the demo's)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", what, num(c.m["home cold"].Read+c.catalogueRead(n)-c.catalogueRead(c.products)),
			count(w.Read), count(wo.Read), money(with.sum()), money(without.sum()))
	}
	fmt.Fprintf(&b, "\nA product item here averages %s bytes.\n", count(c.productBytes))
	return b.String()
}

func num(f float64) string {
	if f == math.Trunc(f) {
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	if math.Abs(f) >= 10 {
		return strconv.FormatFloat(f, 'f', 1, 64)
	}
	return strconv.FormatFloat(f, 'f', 2, 64)
}

// count writes a monthly figure with thousands separated.
func count(f float64) string {
	s := strconv.FormatFloat(math.Round(f), 'f', 0, 64)
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

func money(f float64) string { return fmt.Sprintf("$%.2f", f) }

// totalDoc names the monthly total in its section "On Amazon DynamoDB".
const totalDoc = "../docs/deploying.md"

const (
	costBegin = "<!-- measured: web/cost_test.go writes from here -->"
	costEnd   = "<!-- measured: to here -->"
)

var numberInText = regexp.MustCompile(`-?\d[\d,]*(\.\d+)?`)

// checkDoc compares the measured part of the doc, and the total in
// docs/deploying.md ("On Amazon DynamoDB"), with this run's; -update
// writes them.
func checkDoc(t *testing.T, path, measured, total string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	i, j := strings.Index(doc, costBegin), strings.Index(doc, costEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no measured part between %q and %q", path, costBegin, costEnd)
	}
	totalText, err := os.ReadFile(totalDoc)
	if err != nil {
		t.Fatal(err)
	}
	totalLine := regexp.MustCompile(`about \*\*\$[\d.,]+ a month\*\*`)
	if !totalLine.Match(totalText) {
		t.Fatalf("%s's section on Amazon DynamoDB names no monthly total (about **$N a month**)", totalDoc)
	}
	if *updateCost {
		doc = doc[:i+len(costBegin)] + "\n" + measured + doc[j:]
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(totalDoc, totalLine.ReplaceAllLiteral(totalText, []byte(total)), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if msg := sameBeyondRounding(strings.TrimSpace(doc[i+len(costBegin):j]), strings.TrimSpace(measured)); msg != "" {
		t.Errorf("%s no longer says what was measured (go test ./web -run TestMonthlyCost -update writes it): %s", path, msg)
	}
	if msg := sameBeyondRounding(string(totalLine.Find(totalText)), total); msg != "" {
		t.Errorf("%s's monthly total: %s", totalDoc, msg)
	}
}

// sameBeyondRounding compares two texts line by line: the words must be
// the same, each number within 5 % (or half a unit) of the other, since an
// item's size moves with the day's dates and ids.
func sameBeyondRounding(doc, measured string) string {
	a, b := strings.Split(doc, "\n"), strings.Split(measured, "\n")
	if len(a) != len(b) {
		return fmt.Sprintf("%d lines, measured %d", len(a), len(b))
	}
	for k := range a {
		if numberInText.ReplaceAllString(a[k], "#") != numberInText.ReplaceAllString(b[k], "#") {
			return fmt.Sprintf("line %d says %q, measured %q", k+1, a[k], b[k])
		}
		x, y := numberInText.FindAllString(a[k], -1), numberInText.FindAllString(b[k], -1)
		for n := range x {
			p, perr := strconv.ParseFloat(strings.ReplaceAll(x[n], ",", ""), 64)
			q, qerr := strconv.ParseFloat(strings.ReplaceAll(y[n], ",", ""), 64)
			if err := errors.Join(perr, qerr); err != nil {
				return fmt.Sprintf("line %d: %v", k+1, err)
			}
			if math.Abs(p-q) > math.Max(0.5, 0.05*math.Max(math.Abs(p), math.Abs(q))) {
				return fmt.Sprintf("line %d says %s, measured %s: %q", k+1, x[n], y[n], b[k])
			}
		}
	}
	return ""
}
