package store_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"shop/store"
	"shop/store/payment"
	stripepay "shop/store/payment/stripe"
)

// Refunds go back through the provider that took the money: the test
// provider's payments at the test provider, the legacy test gateway's
// charges through its own ledger, Stripe's at Stripe (here a stand-in
// server speaking its API), each under a key made from the refund's id.

// testProviderOf is the test provider over the fixture's table and clock.
func testProviderOf(t *testing.T, f holdFixture) *payment.TestProvider {
	t.Helper()
	p, err := payment.NewTestProvider(ctxT(t), f.env.Store, "http://shop.test")
	if err != nil {
		t.Fatal(err)
	}
	p.Now = f.clock.Now
	return p
}

// paidAtTestProvider holds ada's cart and pays its card part on the test
// provider's hosted page: the order is placed with the test provider's
// payment (€39.50 of €49.50; the gift card paid €10.00).
func paidAtTestProvider(t *testing.T, f *holdFixture, p *payment.TestProvider) store.Order {
	t.Helper()
	ctx, st := ctxT(t), f.env.Store
	o := must(st.HoldCheckout(ctx, f.adaCart(t, "hold-pay")))
	s := must(p.StartCheckout(ctx, payment.CheckoutRequest{Mode: payment.ModePayment, Amount: o.Hold.Card, SuccessURL: "http://shop.test/ok",
		ExpiresAt: o.Hold.Until, Key: "cs-" + o.ID, Metadata: map[string]string{"order": o.ID}}))
	if err := st.AttachPaymentSession(ctx, o, payment.ProviderTest, s.ID); err != nil {
		t.Fatal(err)
	}
	paid, err := p.PayCheckout(ctx, s.ID, payment.CardForm{Number: payment.CardSucceeds, Expiry: "12/40", CVC: "123"})
	if err != nil {
		t.Fatal(err)
	}
	applied, err := st.PlaceHeldOrder(ctx, o.ID, store.PaymentResult{Provider: payment.ProviderTest, EventID: "evt_paid_" + o.ID,
		PaymentRef: paid.PaymentRef, Brand: "Visa", Last4: "4242", Amount: o.Hold.Card})
	if err != nil || applied.Order.Status != store.OrderPlaced {
		t.Fatalf("place: %+v, %v", applied, err)
	}
	return applied.Order
}

// Many staff refunds of a test provider payment at once, keys shared by
// pairs (double submits): each refund's card part is one refund at the
// test provider, and the provider's ledger holds exactly what the order's
// refunds gave back to the card, never more than it took. The provider's
// charge.refunded events, applied after, change nothing.
func TestStaffRefundsAtTheTestProviderOnceUnderARace(t *testing.T) {
	t.Parallel()
	f := newHoldFixture(t, 5, 0)
	ctx, st := ctxT(t), f.env.Store
	p := testProviderOf(t, f)
	o := paidAtTestProvider(t, &f, p)
	refunds := payment.NewCardRefunds(payment.NewProviders(p), f.gateway)

	const n = 24
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = st.RefundOrder(ctx, store.OrderRefundRequest{OrderID: o.ID, Key: fmt.Sprintf("race-%d", i%8),
				Reason: "Goodwill", By: refunder, Amount: eur(800)}, refunds)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil && !errors.Is(err, store.ErrRefundExceedsCharge) && !errors.Is(err, store.ErrConflict) {
			t.Errorf("refund %d: %v", i, err)
		}
	}
	d := must(st.OrderDetails(ctx, o.ID))
	var card, total int64
	cardRefunds := 0
	for _, rf := range d.Refunds {
		total += rf.Amount.Amount
		if rf.Card.Amount > 0 {
			cardRefunds++
			card += rf.Card.Amount
			if rf.Status != store.RefundDone || !strings.HasPrefix(rf.GatewayRefundID, "re_test_") || store.ProviderOf(rf.Provider) != payment.ProviderTest {
				t.Errorf("refund %+v: not made at the test provider", rf)
			}
		}
	}
	pay := must(st.TestPayIntent(ctx, o.Hold.PaymentRef))
	if len(d.Refunds) < 1 || total > 4950 || d.Order.Refunded.Amount != total || d.Order.RefundedCard.Amount != card {
		t.Fatalf("%d refunds of %d, %d to the card; the order says %v, %v", len(d.Refunds), total, card, d.Order.Refunded, d.Order.RefundedCard)
	}
	if pay.Refunded.Amount != card || card > pay.Amount.Amount || f.env.CountEntities(t, "testPayRefund") != cardRefunds {
		t.Fatalf("the provider refunded %v in %d refunds; the order's refunds gave %d to the card in %d",
			pay.Refunded, f.env.CountEntities(t, "testPayRefund"), card, cardRefunds)
	}
	if f.env.CountEntities(t, "gatewayRefund") != 0 {
		t.Fatal("a test provider payment was refunded at the legacy gateway")
	}
	// The provider's events say what the refunds said: nothing to do.
	events, _ := must2(st.TestPayDue(ctx, 100))
	applied := 0
	for _, e := range events {
		var ev payment.Event
		if err := json.Unmarshal([]byte(e.Body), &ev); err != nil {
			t.Fatal(err)
		}
		re, ok := payment.RefundEventOf(payment.ProviderTest, ev)
		if !ok {
			continue
		}
		applied++
		if out, err := st.ApplyRefundEvent(ctx, re); err != nil || out != store.RefundEventDuplicate {
			t.Errorf("event %s of a refund done: %s, %v", ev.ID, out, err)
		}
	}
	if applied != cardRefunds {
		t.Fatalf("%d refund events for %d card refunds", applied, cardRefunds)
	}
}

func must2[A, B any](a A, b B, err error) (A, B) {
	if err != nil {
		panic(err)
	}
	return a, b
}

// A charge of the legacy test gateway (ch_…, the demo's seeded orders and
// tables from before the test provider) refunds through the gateway's own
// ledger, where the charge is, while the test provider is configured: its
// ledger has payment intents only.
func TestLegacyGatewayChargeRefundsThroughItsLedger(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string][2]int{"p": {10, 0}, "q": {10, 0}}, 1000)
	ctx := ctxT(t)
	d := legacyOrderWithGiftCard(t, f)
	inv, _ := d.Invoice()
	if ref := inv.Payments[len(inv.Payments)-1].Reference; !strings.HasPrefix(ref, "ch_") {
		t.Fatalf("the legacy gateway's charge is %q", ref)
	}
	p, err := payment.NewTestProvider(ctx, f.env.Store, "http://shop.test")
	if err != nil {
		t.Fatal(err)
	}
	refunds := payment.NewCardRefunds(payment.NewProviders(p), f.gateway)
	rf, err := f.env.Store.RefundOrder(ctx, store.OrderRefundRequest{OrderID: d.Order.ID, Key: "rf-old", Reason: "Late", By: refunder, Amount: eur(3000)}, refunds)
	if err != nil || rf.Status != store.RefundDone || rf.Card != eur(2500) || !strings.HasPrefix(rf.GatewayRefundID, "re_") {
		t.Fatalf("refund: %+v, %v", rf, err)
	}
	n, sum := gatewayRefunds(t, f.env)
	if n != 1 || sum != 2500 || f.env.CountEntities(t, "testPayRefund") != 0 {
		t.Fatalf("the gateway's ledger: %d refunds of %d; the test provider's: %d", n, sum, f.env.CountEntities(t, "testPayRefund"))
	}
}

// legacyOrderWithGiftCard is orderWithGiftCard as an older shop placed
// it, its card part charged in the request by the legacy test gateway
// (ch_…, in the gateway's ledger): written as SeedOrders writes a past
// order without a card provider.
func legacyOrderWithGiftCard(t *testing.T, f shopFixture) store.OrderDetails {
	t.Helper()
	ctx, st := ctxT(t), f.env.Store
	past := store.PastOrder{Number: "FF-7K3Q92", CustomerID: "cust-1", Buyer: store.Buyer{Name: "Ada", Email: "ada@example.com"},
		PlacedAt: time.Now().Add(-time.Hour).UTC().Truncate(time.Millisecond), ShipTo: request("", "").ShipTo, GiftCardCode: "GIFT-R", Card: f.card,
		Items: []store.OrderItem{
			{ProductID: "p", ProductName: "Product p", Price: eur(1000), Quantity: 3, Allocations: []store.Allocation{{WarehouseID: "w1", Quantity: 3}}},
			{ProductID: "q", ProductName: "Product q", Price: eur(1000), Quantity: 1, Allocations: []store.Allocation{{WarehouseID: "w1", Quantity: 1}}},
		}}
	if n, err := st.SeedOrders(ctx, []store.PastOrder{past}, []store.GiftCard{{Code: "GIFT-R", Balance: eur(500), Initial: eur(500)}}, nil); err != nil || n != 1 {
		t.Fatalf("seed the old order: %d, %v", n, err)
	}
	return must(st.OrderDetails(ctx, must(st.OrderIDByNumber(ctx, past.Number))))
}

// fakeStripe answers the refund and customer requests of the Stripe
// adapter as Stripe's API does, or, while down, with a 500.
type fakeStripe struct {
	*httptest.Server
	down     atomic.Bool
	status   atomic.Value // the refund's status as a read answers it
	creates  atomic.Int32
	deletes  atomic.Int32
	mu       sync.Mutex
	metadata map[string]string // the refund's, as created
	amount   string
}

func newFakeStripe(t *testing.T) *fakeStripe {
	t.Helper()
	fs := &fakeStripe{}
	fs.status.Store(payment.RefundPending)
	fs.Server = httptest.NewServer(http.HandlerFunc(fs.serve))
	t.Cleanup(fs.Close)
	return fs
}

func (fs *fakeStripe) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if fs.down.Load() {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, `{"error":{"type":"api_error","message":"Stripe is down (test)"}}`)
		return
	}
	_ = r.ParseForm()
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/refunds":
		fs.creates.Add(1)
		fs.mu.Lock()
		fs.metadata, fs.amount = map[string]string{}, r.PostForm.Get("amount")
		for k, v := range r.PostForm {
			if name, ok := strings.CutPrefix(k, "metadata["); ok {
				fs.metadata[strings.TrimSuffix(name, "]")] = v[0]
			}
		}
		fs.mu.Unlock()
		fs.refund(w, payment.RefundPending)
	case r.Method == http.MethodGet && r.URL.Path == "/v1/refunds/re_fake_1":
		fs.refund(w, fs.status.Load().(string))
	case r.Method == http.MethodDelete && strings.HasPrefix(r.URL.Path, "/v1/customers/"):
		fs.deletes.Add(1)
		fmt.Fprintf(w, `{"id":%q,"object":"customer","deleted":true}`, strings.TrimPrefix(r.URL.Path, "/v1/customers/"))
	default:
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error":{"type":"invalid_request_error","code":"resource_missing","message":"no such thing"}}`)
	}
}

func (fs *fakeStripe) refund(w http.ResponseWriter, status string) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	meta, _ := json.Marshal(fs.metadata)
	fmt.Fprintf(w, `{"id":"re_fake_1","object":"refund","amount":%s,"currency":"eur","status":%q,"payment_intent":"pi_x","metadata":%s}`,
		fs.amount, status, meta)
}

func (fs *fakeStripe) provider(t *testing.T) *stripepay.Provider {
	t.Helper()
	none := int64(0)
	p, err := stripepay.New(stripepay.Config{SecretKey: "sk_test_fake", WebhookSecret: "whsec_fake", APIURL: fs.URL, MaxNetworkRetries: &none})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// paidAtStripe is ada's held order placed by a Stripe payment (€39.50).
func paidAtStripe(t *testing.T, f *holdFixture) store.Order {
	t.Helper()
	ctx, st := ctxT(t), f.env.Store
	o := must(st.HoldCheckout(ctx, f.adaCart(t, "hold-stripe")))
	if err := st.AttachPaymentSession(ctx, o, payment.ProviderStripe, "cs_test_1"); err != nil {
		t.Fatal(err)
	}
	res := paymentOf(o, "evt_paid")
	res.Provider = payment.ProviderStripe
	applied, err := st.PlaceHeldOrder(ctx, o.ID, res)
	if err != nil {
		t.Fatal(err)
	}
	return applied.Order
}

// A refund of a Stripe payment while Stripe is down is written and waits,
// its failed try counted; the card refunds job's retry makes it at Stripe,
// which answers pending; then its refund.updated event and the job's next
// read of it race to confirm it: confirmed once, off the list, the event
// applied once however often it comes.
func TestStripeRefundWaitsWhileStripeIsDownAndIsConfirmedOnce(t *testing.T) {
	t.Parallel()
	f := newHoldFixture(t, 5, 0)
	ctx, st := ctxT(t), f.env.Store
	o := paidAtStripe(t, &f)
	fs := newFakeStripe(t)
	refunds := payment.NewCardRefunds(payment.NewProviders(testProviderOf(t, f), fs.provider(t)), f.gateway)

	fs.down.Store(true)
	rf, err := st.RefundOrder(ctx, store.OrderRefundRequest{OrderID: o.ID, Key: "rf-down", Reason: "Broken", By: refunder, Amount: eur(4950)}, refunds)
	if !errors.Is(err, store.ErrRefundCard) || !errors.Is(err, payment.ErrProviderUnavailable) || rf.Status != store.RefundCardPending ||
		rf.Card != eur(3950) || rf.CardTries.Count != 1 {
		t.Fatalf("refund while Stripe is down: %+v, %v", rf, err)
	}
	if pending := must(st.PendingCardRefunds(ctx)); len(pending) != 1 || pending[0].Provider != payment.ProviderStripe {
		t.Fatalf("waiting: %+v", pending)
	}
	// The job's retry, Stripe back: made there, pending.
	fs.down.Store(false)
	rf, err = st.RetryCardRefund(ctx, o.ID, "rf-down", refunds)
	if err != nil || rf.Status != store.RefundCardPending || rf.GatewayRefundID != "re_fake_1" || fs.creates.Load() != 1 {
		t.Fatalf("retry: %+v, %v (%d refunds at Stripe)", rf, err, fs.creates.Load())
	}
	fs.mu.Lock()
	meta, amount := fs.metadata, fs.amount
	fs.mu.Unlock()
	if amount != "3950" || meta[store.RefundMetaOrder] != o.ID || meta[store.RefundMetaRefund] != "rf-down" || meta[store.RefundMetaKey] == "" {
		t.Fatalf("Stripe was asked for %s with %v", amount, meta)
	}
	// A read while still pending changes nothing and refunds nothing again.
	if rf, err = st.RetryCardRefund(ctx, o.ID, "rf-down", refunds); err != nil || rf.Status != store.RefundCardPending || fs.creates.Load() != 1 {
		t.Fatalf("read while pending: %+v, %v", rf, err)
	}
	if rf.CreditNote != "" {
		t.Fatalf("a refund the provider has not confirmed has credit note %s", rf.CreditNote)
	}
	// Succeeded: the event (ten deliveries) and the job at once.
	fs.status.Store(payment.RefundSucceeded)
	ev := store.RefundEvent{Provider: payment.ProviderStripe, EventID: "evt_refund_ok", RefundRef: "re_fake_1", PaymentRef: o.Hold.PaymentRef,
		Status: payment.RefundSucceeded, Metadata: meta}
	var confirmed atomic.Int32
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%4 == 3 {
				if _, err := st.RetryCardRefund(ctx, o.ID, "rf-down", refunds); err != nil {
					t.Errorf("job: %v", err)
				}
				return
			}
			out, err := st.ApplyRefundEvent(ctx, ev)
			if err != nil {
				t.Errorf("event: %v", err)
			}
			if out == store.RefundEventConfirmed {
				confirmed.Add(1)
			}
		}()
	}
	wg.Wait()
	rf = must(st.OrderRefund(ctx, o.ID, "rf-down"))
	if rf.Status != store.RefundDone || rf.GatewayRefundID != "re_fake_1" || confirmed.Load() > 1 || fs.creates.Load() != 1 {
		t.Fatalf("after the event and the job: %+v, confirmed by %d events, %d refunds at Stripe", rf, confirmed.Load(), fs.creates.Load())
	}
	if want := fmt.Sprintf("CN%d-000001", time.Now().Year()); rf.CreditNote != want {
		t.Fatalf("the confirmed refund's credit note is %q, want %s", rf.CreditNote, want)
	}
	if pending := must(st.PendingCardRefunds(ctx)); len(pending) != 0 {
		t.Fatalf("still waiting: %+v", pending)
	}
	if out, err := st.ApplyRefundEvent(ctx, ev); err != nil || out != store.RefundEventDuplicate {
		t.Fatalf("the event again: %s, %v", out, err)
	}
	if d := must(st.OrderDetails(ctx, o.ID)); d.Order.RefundedCard != eur(3950) || d.Order.Refunded != eur(4950) {
		t.Fatalf("the order's sums: %+v", d.Order)
	}
}

// A refund Stripe reports failed (refund.updated, failed) stays listed for
// staff, the event applied once; staff's retry is a new refund under the
// next round's key, and an event of the failed round confirms nothing.
func TestStripeRefundReportedFailedWaitsForStaffAndRetriesUnderANewKey(t *testing.T) {
	t.Parallel()
	f := newHoldFixture(t, 5, 0)
	ctx, st := ctxT(t), f.env.Store
	o := paidAtStripe(t, &f)
	fs := newFakeStripe(t)
	refunds := payment.NewCardRefunds(payment.NewProviders(fs.provider(t)), nil)
	rf, err := st.RefundOrder(ctx, store.OrderRefundRequest{OrderID: o.ID, Key: "rf-1", Reason: "Broken", By: refunder, Amount: eur(4950)}, refunds)
	if err != nil || rf.Status != store.RefundCardPending || rf.GatewayRefundID != "re_fake_1" {
		t.Fatalf("refund: %+v, %v", rf, err)
	}
	fs.mu.Lock()
	first := fs.metadata
	fs.mu.Unlock()
	failed := store.RefundEvent{Provider: payment.ProviderStripe, EventID: "evt_failed", RefundRef: "re_fake_1", Status: payment.RefundFailed, Metadata: first}
	for i, want := range []store.RefundEventOutcome{store.RefundEventFailed, store.RefundEventDuplicate} {
		if out, err := st.ApplyRefundEvent(ctx, failed); err != nil || out != want {
			t.Fatalf("failed event, delivery %d: %s, %v", i+1, out, err)
		}
	}
	rf = must(st.OrderRefund(ctx, o.ID, "rf-1"))
	if rf.Status != store.RefundCardPending || rf.GatewayRefundID != "" || !rf.CardTries.NeedsStaff() || rf.CardTries.Problem != store.CardRefundRefused {
		t.Fatalf("after the failure: %+v", rf)
	}
	// Staff's "Retry now": a new refund at Stripe, under another key.
	rf, err = st.RetryCardRefund(ctx, o.ID, "rf-1", refunds)
	fs.mu.Lock()
	second := fs.metadata
	fs.mu.Unlock()
	if err != nil || rf.GatewayRefundID != "re_fake_1" || fs.creates.Load() != 2 || second[store.RefundMetaKey] == first[store.RefundMetaKey] {
		t.Fatalf("staff's retry: %+v, %v; keys %q then %q", rf, err, first[store.RefundMetaKey], second[store.RefundMetaKey])
	}
	// A success reported of the failed round's refund confirms nothing.
	stale := store.RefundEvent{Provider: payment.ProviderStripe, EventID: "evt_stale", RefundRef: "re_fake_1", Status: payment.RefundSucceeded, Metadata: first}
	if out, err := st.ApplyRefundEvent(ctx, stale); err != nil || out != store.RefundEventIgnored {
		t.Fatalf("an event of the failed round: %s, %v", out, err)
	}
	ok := stale
	ok.EventID, ok.Metadata = "evt_ok", second
	if out, err := st.ApplyRefundEvent(ctx, ok); err != nil || out != store.RefundEventConfirmed {
		t.Fatalf("the new round's success: %s, %v", out, err)
	}
	if rf = must(st.OrderRefund(ctx, o.ID, "rf-1")); rf.Status != store.RefundDone {
		t.Fatalf("done: %+v", rf)
	}
}
