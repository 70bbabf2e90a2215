package payment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"shop/store"
	"shop/store/storetest"
)

// testProvider is a test provider over a fresh table, its clock and the
// store's the same settable one.
func testProvider(t *testing.T) (*TestProvider, storetest.Env, *storetest.Clock) {
	t.Helper()
	clock := storetest.NewClock(time.Now().UTC().Truncate(time.Millisecond), 0)
	env := storetest.New(t, store.WithClock(clock.Now), store.WithListShards(4))
	p, err := NewTestProvider(context.Background(), env.Store, "http://shop.test/")
	if err != nil {
		t.Fatal(err)
	}
	p.Now = clock.Now
	return p, env, clock
}

func eur(cents int64) store.Money { return store.Money{Amount: cents, Currency: "EUR"} }

// The card as the hosted page takes it: a card that pays, by default.
func card(number string) CardForm {
	return CardForm{Number: number, Expiry: "12/" + fmt.Sprint(time.Now().Year()%100+3), CVC: "123", Name: "Ada Lovelace"}
}

func startPayment(t *testing.T, p *TestProvider, key string, cents int64) CheckoutSession {
	t.Helper()
	s, err := p.StartCheckout(context.Background(), CheckoutRequest{
		Mode: ModePayment, Amount: eur(cents), Description: "Order 1234", SuccessURL: "http://shop.test/orders/o1?session={CHECKOUT_SESSION_ID}",
		CancelURL: "http://shop.test/checkout", Key: key, ExpiresAt: p.Now().Add(30 * time.Minute), Metadata: map[string]string{"order": "o1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// dueEvents are the events waiting for delivery, by type.
func dueEvents(t *testing.T, env storetest.Env) map[string][]Event {
	t.Helper()
	events, _, err := env.Store.TestPayDue(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]Event{}
	for _, e := range events {
		var ev Event
		if err := json.Unmarshal([]byte(e.Body), &ev); err != nil {
			t.Fatalf("event %s: %v", e.ID, err)
		}
		if ev.ID != e.ID || ev.Type != e.Type {
			t.Fatalf("event %s/%s has body %s", e.ID, e.Type, e.Body)
		}
		out[ev.Type] = append(out[ev.Type], ev)
	}
	return out
}

func TestTestProviderStartsOneSessionPerKey(t *testing.T) {
	t.Parallel()
	p, _, _ := testProvider(t)
	ctx := context.Background()
	first := startPayment(t, p, "k1", 1290)
	if first.Status != SessionOpen || first.URL != "http://shop.test/test-payments/checkout/"+first.ID || first.Amount != eur(1290) {
		t.Fatalf("session %+v", first)
	}
	again := startPayment(t, p, "k1", 1290)
	if again.ID != first.ID {
		t.Fatalf("the same key opened a second session: %s, %s", first.ID, again.ID)
	}
	_, err := p.StartCheckout(ctx, CheckoutRequest{Mode: ModePayment, Amount: eur(1), SuccessURL: "http://shop.test/", Key: "k1"})
	if !errors.Is(err, ErrKeyReused) {
		t.Fatalf("the key with another amount: %v", err)
	}
	if _, err := p.StartCheckout(ctx, CheckoutRequest{Mode: ModePayment, Amount: eur(0), SuccessURL: "http://shop.test/", Key: "k2"}); !errors.Is(err, ErrBelowMinimum) {
		t.Fatalf("a session for nothing: %v", err)
	}
	got, err := p.RetrieveCheckout(ctx, first.ID)
	if err != nil || got.Metadata["order"] != "o1" || got.Paid {
		t.Fatalf("retrieve: %+v, %v", got, err)
	}
	if _, err := p.RetrieveCheckout(ctx, "cs_test_nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an unknown session: %v", err)
	}
}

// Twenty submissions of one session's form at once: one payment, one
// event, and everyone else told it was paid.
func TestTestProviderCompletesASessionOnceUnderARace(t *testing.T) {
	t.Parallel()
	p, env, _ := testProvider(t)
	ctx := context.Background()
	s := startPayment(t, p, "race", 4500)
	var wg sync.WaitGroup
	var mu sync.Mutex
	paid, told := 0, 0
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := p.PayCheckout(ctx, s.ID, card(CardSucceeds))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				paid++
			case errors.Is(err, ErrCheckoutComplete):
				told++
			default:
				t.Errorf("pay: %v", err)
			}
		}()
	}
	wg.Wait()
	if paid != 1 || told != 19 {
		t.Fatalf("%d paid, %d told it was paid; want 1 and 19", paid, told)
	}
	if n := env.CountEntities(t, "testPayIntent"); n != 1 {
		t.Fatalf("%d payments for one session", n)
	}
	events := dueEvents(t, env)
	done := events[EventCheckoutCompleted]
	if len(done) != 1 || len(events) != 1 {
		t.Fatalf("events %v", events)
	}
	ev := done[0].Session
	if ev.ID != s.ID || !ev.Paid || ev.Status != SessionComplete || ev.PaymentRef == "" || ev.Amount != eur(4500) || ev.Metadata["order"] != "o1" {
		t.Fatalf("completed event's session %+v", ev)
	}
	pi, err := p.RetrievePayment(ctx, ev.PaymentRef)
	if err != nil || pi.Status != PaymentSucceeded || pi.Amount != eur(4500) || pi.Card == nil || pi.Card.Last4 != "4242" {
		t.Fatalf("its payment %+v, %v", pi, err)
	}
	if _, err := p.ExpireCheckout(ctx, s.ID); !errors.Is(err, ErrCheckoutComplete) {
		t.Fatalf("expiring a paid session: %v", err)
	}
}

// A decline keeps the session open and writes nothing; a card typed
// wrong is the card's error.
func TestTestProviderDeclineLeavesTheSessionOpen(t *testing.T) {
	t.Parallel()
	p, env, _ := testProvider(t)
	ctx := context.Background()
	s := startPayment(t, p, "decline", 990)
	for _, tc := range []struct {
		form CardForm
		want error
	}{
		{card(CardDeclined), ErrDeclined},
		{card(CardInsufficientFunds), ErrInsufficientFunds},
		{card(CardProcessingError), ErrProcessing},
		{card("4242 4242 4242 4241"), ErrInvalidNumber},
		{CardForm{Number: CardSucceeds, Expiry: "13/40", CVC: "123"}, ErrInvalidExpiry},
		{CardForm{Number: CardSucceeds, Expiry: "01/20", CVC: "123"}, ErrExpired},
		{CardForm{Number: CardSucceeds, Expiry: "12/40", CVC: "1"}, ErrInvalidCVC},
	} {
		if _, err := p.PayCheckout(ctx, s.ID, tc.form); !errors.Is(err, tc.want) {
			t.Errorf("%+v: %v, want %v", tc.form, err, tc.want)
		}
	}
	if got, _ := p.RetrieveCheckout(ctx, s.ID); got.Status != SessionOpen {
		t.Fatalf("after declines the session is %s", got.Status)
	}
	if n := env.CountEntities(t, "testPayEvent") + env.CountEntities(t, "testPayIntent"); n != 0 {
		t.Fatalf("declines wrote %d events and payments", n)
	}
	if _, err := p.PayCheckout(ctx, s.ID, card(CardSucceedsMC)); err != nil {
		t.Fatalf("another card after the declines: %v", err)
	}
}

// A session past its time cannot be paid, and expiring it says so once.
func TestTestProviderExpiresASession(t *testing.T) {
	t.Parallel()
	p, env, clock := testProvider(t)
	ctx := context.Background()
	s := startPayment(t, p, "late", 990)
	clock.Set(s.ExpiresAt)
	if _, err := p.PayCheckout(ctx, s.ID, card(CardSucceeds)); !errors.Is(err, ErrCheckoutExpired) {
		t.Fatalf("paying at its expiry: %v", err)
	}
	// The due list holds it now, for the events job to expire.
	if _, expired, err := env.Store.TestPayDue(ctx, 10); err != nil || len(expired) != 1 || expired[0] != s.ID {
		t.Fatalf("due to expire: %v, %v", expired, err)
	}
	got, err := p.ExpireCheckout(ctx, s.ID)
	if err != nil || got.Status != SessionExpired || got.Paid || got.URL != "" {
		t.Fatalf("expire: %+v, %v", got, err)
	}
	if got, err = p.ExpireCheckout(ctx, s.ID); err != nil || got.Status != SessionExpired {
		t.Fatalf("expire again: %+v, %v", got, err)
	}
	events := dueEvents(t, env)
	if len(events[EventCheckoutExpired]) != 1 || len(events) != 1 || events[EventCheckoutExpired][0].Session.ID != s.ID {
		t.Fatalf("events %v", events)
	}
	if _, expired, _ := env.Store.TestPayDue(ctx, 10); len(expired) != 0 {
		t.Fatalf("still due to expire: %v", expired)
	}
}

// The card that always asks: the page waits on the bank's question;
// failing it leaves the session open, approving it pays.
func TestTestProviderAsksTheHolderToConfirm(t *testing.T) {
	t.Parallel()
	p, env, _ := testProvider(t)
	ctx := context.Background()
	s := startPayment(t, p, "3ds", 2500)
	got, err := p.PayCheckout(ctx, s.ID, card(CardAuthenticationRequired))
	if !errors.Is(err, ErrAuthenticationRequired) || got.Challenge == nil || got.Challenge.Card.Last4 != "3184" {
		t.Fatalf("pay with 3184: %+v, %v", got, err)
	}
	first := got.Challenge.ID
	if _, err := p.AnswerChallenge(ctx, s.ID, first, false); !errors.Is(err, ErrAuthenticationFailed) {
		t.Fatalf("fail the question: %v", err)
	}
	if _, err := p.AnswerChallenge(ctx, s.ID, first, true); !errors.Is(err, ErrAuthenticationFailed) {
		t.Fatalf("approve a question no longer asked: %v", err)
	}
	if n := env.CountEntities(t, "testPayEvent"); n != 0 {
		t.Fatalf("%d events before paying", n)
	}
	got, err = p.PayCheckout(ctx, s.ID, card(CardAuthenticationOnSetup))
	if !errors.Is(err, ErrAuthenticationRequired) {
		t.Fatalf("pay with 3155: %v", err)
	}
	got, err = p.AnswerChallenge(ctx, s.ID, got.Challenge.ID, true)
	if err != nil || got.Status != SessionComplete || got.Card.Last4 != "3155" || got.PaymentRef == "" {
		t.Fatalf("approved: %+v, %v", got, err)
	}
	if len(dueEvents(t, env)[EventCheckoutCompleted]) != 1 {
		t.Fatal("no completed event")
	}
}

// saveCard saves a card for a customer through a setup session, answering
// the bank's question if it asks.
func saveCard(t *testing.T, p *TestProvider, customer, number string) string {
	t.Helper()
	ctx := context.Background()
	s, err := p.StartCheckout(ctx, CheckoutRequest{Mode: ModeSetup, CustomerRef: customer, SuccessURL: "http://shop.test/ok", Key: "setup-" + number})
	if err != nil {
		t.Fatal(err)
	}
	done, err := p.PayCheckout(ctx, s.ID, card(number))
	if errors.Is(err, ErrAuthenticationRequired) {
		done, err = p.AnswerChallenge(ctx, s.ID, done.Challenge.ID, true)
	}
	if err != nil {
		t.Fatal(err)
	}
	if done.MethodRef == "" || done.PaymentRef != "" {
		t.Fatalf("setup session %+v", done)
	}
	got, err := p.RetrieveCheckout(ctx, s.ID)
	if err != nil || got.Card == nil || got.Card.Ref != done.MethodRef || got.Card.Provider != ProviderTest {
		t.Fatalf("setup session's card %+v, %v", got.Card, err)
	}
	return done.MethodRef
}

// An off-session payment is created once per key and charged once,
// however many confirm it at once.
func TestTestProviderChargesAPaymentOncePerKey(t *testing.T) {
	t.Parallel()
	p, env, _ := testProvider(t)
	ctx := context.Background()
	cus, err := p.EnsureCustomer(ctx, CustomerRequest{CustomerID: "c1", Email: "ada@example.com", Name: "Ada", Key: "cus-c1"})
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := p.EnsureCustomer(ctx, CustomerRequest{CustomerID: "c1", Key: "cus-c1"}); again != cus {
		t.Fatalf("the same key made a second customer: %s, %s", cus, again)
	}
	pm := saveCard(t, p, cus, CardSucceeds)
	req := PaymentRequest{Amount: eur(1500), CustomerRef: cus, MethodRef: pm, Key: "sub-s1-2026-01-01-a1", Metadata: map[string]string{"subscription": "s1"}}
	first, err := p.CreatePayment(ctx, req)
	if err != nil || first.Status != PaymentRequiresConfirmation {
		t.Fatalf("create: %+v, %v", first, err)
	}
	if again, err := p.CreatePayment(ctx, req); err != nil || again.ID != first.ID {
		t.Fatalf("the same key again: %+v, %v", again, err)
	}
	other := req
	other.Amount = eur(1600)
	if _, err := p.CreatePayment(ctx, other); !errors.Is(err, ErrKeyReused) {
		t.Fatalf("the key with another amount: %v", err)
	}
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if pi, err := p.ConfirmPayment(ctx, first.ID); err != nil || pi.Status != PaymentSucceeded {
				t.Errorf("confirm: %+v, %v", pi, err)
			}
		}()
	}
	wg.Wait()
	events := dueEvents(t, env)
	if len(events[EventPaymentSucceeded]) != 1 || events[EventPaymentSucceeded][0].Payment.Metadata["subscription"] != "s1" {
		t.Fatalf("events %v", events)
	}
	if n := env.CountEntities(t, "testPayIntent"); n != 1 {
		t.Fatalf("%d payments", n)
	}
	if _, err := p.CreatePayment(ctx, PaymentRequest{Amount: eur(1), CustomerRef: "cus_test_other", MethodRef: pm, Key: "x"}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another customer's card: %v", err)
	}
}

// Off-session, the card that always asks fails (or waits at its
// RedirectURL when there is a way back); the one that asked at setup pays;
// a declining card fails with its event.
func TestTestProviderOffSessionCards(t *testing.T) {
	t.Parallel()
	p, env, _ := testProvider(t)
	ctx := context.Background()
	cus, err := p.EnsureCustomer(ctx, CustomerRequest{CustomerID: "c2", Key: "cus-c2"})
	if err != nil {
		t.Fatal(err)
	}
	always, setup := saveCard(t, p, cus, CardAuthenticationRequired), saveCard(t, p, cus, CardAuthenticationOnSetup)
	charge := func(pm, key, returnURL string) (PaymentIntent, error) {
		pi, err := p.CreatePayment(ctx, PaymentRequest{Amount: eur(700), CustomerRef: cus, MethodRef: pm, Key: key, ReturnURL: returnURL})
		if err != nil {
			t.Fatal(err)
		}
		return p.ConfirmPayment(ctx, pi.ID)
	}
	pi, err := charge(always, "a1", "")
	if !errors.Is(err, ErrAuthenticationRequired) || pi.Status != PaymentRequiresMethod || pi.DeclineCode != "authentication_required" {
		t.Fatalf("3184 off-session: %+v, %v", pi, err)
	}
	pi, err = charge(always, "a2", "http://shop.test/subscriptions")
	if !errors.Is(err, ErrAuthenticationRequired) || pi.Status != PaymentRequiresAction || pi.RedirectURL != "http://shop.test/test-payments/payments/"+pi.ID+"/confirm" {
		t.Fatalf("3184 with a way back: %+v, %v", pi, err)
	}
	if again, err := p.ConfirmPayment(ctx, pi.ID); !errors.Is(err, ErrAuthenticationRequired) || again.Status != PaymentRequiresAction {
		t.Fatalf("confirmed again while waiting: %+v, %v", again, err)
	}
	if got, err := p.AnswerPayment(ctx, pi.ID, true); err != nil || got.Status != PaymentSucceeded {
		t.Fatalf("approved: %+v, %v", got, err)
	}
	if pi, err := charge(setup, "s1", ""); err != nil || pi.Status != PaymentSucceeded || pi.Card.Last4 != "3155" {
		t.Fatalf("3155 off-session: %+v, %v", pi, err)
	}
	short := saveCard(t, p, cus, CardInsufficientFunds)
	if pi, err := charge(short, "i1", ""); !errors.Is(err, ErrInsufficientFunds) || pi.Status != PaymentRequiresMethod || pi.DeclineCode != "insufficient_funds" {
		t.Fatalf("9995 off-session: %+v, %v", pi, err)
	}
	events := dueEvents(t, env)
	if len(events[EventPaymentFailed]) != 2 || len(events[EventPaymentSucceeded]) != 2 {
		t.Fatalf("events %v", events)
	}
}

// Refunds racing on one payment never give back more than it took; one
// key refunds once.
func TestTestProviderRefundsWithinThePayment(t *testing.T) {
	t.Parallel()
	p, env, _ := testProvider(t)
	ctx := context.Background()
	s := startPayment(t, p, "to-refund", 1000)
	done, err := p.PayCheckout(ctx, s.ID, card(CardSucceeds))
	if err != nil {
		t.Fatal(err)
	}
	pay := done.PaymentRef
	var wg sync.WaitGroup
	ids := make([]string, 10)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := p.Refund(ctx, RefundRequest{PaymentRef: pay, Amount: eur(300), Key: "refund-same"})
			if err != nil {
				t.Errorf("refund twin: %v", err)
			}
			ids[i] = r.ID
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] || id == "" {
			t.Fatalf("one key, refunds %v", ids)
		}
	}
	if _, err := p.Refund(ctx, RefundRequest{PaymentRef: pay, Amount: eur(299), Key: "refund-same"}); !errors.Is(err, ErrKeyReused) {
		t.Fatalf("the key with another amount: %v", err)
	}
	// Twenty refunds of 100 with their own keys: 700 is left, so 7 pass.
	var mu sync.Mutex
	passed, exceeded := 0, 0
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := p.Refund(ctx, RefundRequest{PaymentRef: pay, Amount: eur(100), Key: fmt.Sprintf("refund-%d", i)})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				passed++
			case errors.Is(err, store.ErrRefundExceedsCharge):
				exceeded++
			default:
				t.Errorf("refund: %v", err)
			}
		}()
	}
	wg.Wait()
	if passed != 7 || exceeded != 13 {
		t.Fatalf("%d refunds passed, %d exceeded; want 7 and 13", passed, exceeded)
	}
	pi, err := env.Store.TestPayIntent(ctx, pay)
	if err != nil || pi.Refunded != eur(1000) {
		t.Fatalf("refunded %v, %v; want all of it", pi.Refunded, err)
	}
	if n := env.CountEntities(t, "testPayRefund"); n != 8 {
		t.Fatalf("%d refunds kept, want 8", n)
	}
	if got := len(dueEvents(t, env)[EventChargeRefunded]); got != 8 {
		t.Fatalf("%d refund events, want 8", got)
	}
	if _, err := p.Refund(ctx, RefundRequest{PaymentRef: pay, Amount: eur(0), Key: "zero"}); !errors.Is(err, store.ErrBadRefund) {
		t.Fatalf("a refund of nothing: %v", err)
	}
}

// In Stripe mode nothing new goes to the test provider; its refunds do.
func TestTestProviderRefundsOnlyInStripeMode(t *testing.T) {
	t.Parallel()
	p, _, _ := testProvider(t)
	ctx := context.Background()
	s := startPayment(t, p, "before-stripe", 800)
	done, err := p.PayCheckout(ctx, s.ID, card(CardSucceeds))
	if err != nil {
		t.Fatal(err)
	}
	p.RefundsOnly = true
	if _, err := p.StartCheckout(ctx, CheckoutRequest{Mode: ModePayment, Amount: eur(1), SuccessURL: "http://shop.test/", Key: "new"}); !errors.Is(err, ErrTestProviderClosed) {
		t.Fatalf("a new session in Stripe mode: %v", err)
	}
	if _, err := p.EnsureCustomer(ctx, CustomerRequest{CustomerID: "c9", Key: "c9"}); !errors.Is(err, ErrTestProviderClosed) {
		t.Fatalf("a new customer in Stripe mode: %v", err)
	}
	if _, err := p.CreatePayment(ctx, PaymentRequest{Amount: eur(1), Key: "p"}); !errors.Is(err, ErrTestProviderClosed) {
		t.Fatalf("a new payment in Stripe mode: %v", err)
	}
	if r, err := p.Refund(ctx, RefundRequest{PaymentRef: done.PaymentRef, Amount: eur(800), Key: "r"}); err != nil || r.Status != RefundSucceeded {
		t.Fatalf("refund of a test payment in Stripe mode: %+v, %v", r, err)
	}
}

// Events are signed with the table's secret; ParseEvent refuses anything
// else, and a signature older than five minutes.
func TestTestProviderSignsItsEvents(t *testing.T) {
	t.Parallel()
	p, env, clock := testProvider(t)
	body := []byte(`{"ID":"evt_test_1","Type":"checkout.session.completed","Created":"2026-01-01T00:00:00Z"}`)
	now := clock.Now()
	sig := p.Sign(body, now)
	ev, err := p.ParseEvent(body, sig)
	if err != nil || ev.ID != "evt_test_1" || ev.Type != EventCheckoutCompleted {
		t.Fatalf("parse: %+v, %v", ev, err)
	}
	// Another replica over the same table signs alike.
	twin, err := NewTestProvider(context.Background(), env.Store, "http://other.test")
	if err != nil {
		t.Fatal(err)
	}
	twin.Now = clock.Now
	if _, err := twin.ParseEvent(body, sig); err != nil {
		t.Fatalf("the other replica: %v", err)
	}
	for name, c := range map[string]struct {
		body []byte
		sig  string
	}{
		"missing":     {body, ""},
		"other body":  {append([]byte(" "), body...), sig},
		"other key":   {body, SignWebhook("whsec_other", body, now)},
		"too old":     {body, p.Sign(body, now.Add(-SignatureTolerance-time.Second))},
		"from later":  {body, p.Sign(body, now.Add(SignatureTolerance+time.Second))},
		"no time":     {body, "v1=" + sig[len("t=1234567890,v1="):]},
		"not hex":     {body, fmt.Sprintf("t=%d,v1=zz", now.Unix())},
		"two times":   {body, sig + fmt.Sprintf(",t=%d", now.Unix())},
		"just a time": {body, fmt.Sprintf("t=%d", now.Unix())},
	} {
		if _, err := p.ParseEvent(c.body, c.sig); !errors.Is(err, ErrBadSignature) {
			t.Errorf("%s: %v, want ErrBadSignature", name, err)
		}
	}
	// Within the tolerance, and with a second (rolled) signature.
	old := p.Sign(body, now.Add(-4*time.Minute))
	if _, err := p.ParseEvent(body, old+",v1=00ff"); err != nil {
		t.Fatalf("four minutes old, two signatures: %v", err)
	}
}
