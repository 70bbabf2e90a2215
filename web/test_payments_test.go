package web_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/crypto/bcrypt"

	"shop/jobs"
	"shop/store"
	"shop/store/payment"
	stripepay "shop/store/payment/stripe"
	"shop/store/storetest"
	"shop/web"
)

// recordedEvents stands where the store will apply payment events: the
// seam between the webhook route and the store, recording what the route
// hands over. While failing > 0 it refuses (the store could not apply).
type recordedEvents struct {
	mu      sync.Mutex
	got     []payment.Event
	failing int
}

func (r *recordedEvents) ApplyPaymentEvent(_ context.Context, ev payment.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failing > 0 {
		r.failing--
		return errors.New("the table is busy")
	}
	r.got = append(r.got, ev)
	return nil
}

func (r *recordedEvents) events() []payment.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]payment.Event(nil), r.got...)
}

// testPayShop is the shop in test mode: the test provider's pages and
// webhook routed, the webhook's events recorded.
type testPayShop struct {
	env      storetest.Env
	base     string
	provider *payment.TestProvider
	events   *recordedEvents
}

func newTestPayShop(t *testing.T) *testPayShop {
	t.Helper()
	env := storetest.New(t, store.WithListShards(4))
	s := &testPayShop{env: env, events: &recordedEvents{}}
	base, _ := startApp(t, env, env.Table, [][]byte{keyA}, func(env storetest.Env, cfg *web.Config) {
		p, err := payment.NewTestProvider(context.Background(), cfg.Store, "")
		if err != nil {
			t.Fatal(err)
		}
		s.provider = p
		cfg.TestPayments, cfg.PaymentEvents = p, s.events
	})
	s.base = base
	s.provider.BaseURL = base
	return s
}

// session opens a hosted session and returns it and its page's path.
func (s *testPayShop) session(t *testing.T, req payment.CheckoutRequest) (payment.CheckoutSession, string) {
	t.Helper()
	if req.Mode == "" {
		req.Mode = payment.ModePayment
	}
	if req.SuccessURL == "" {
		req.SuccessURL = s.base + "/orders/o1?paid={CHECKOUT_SESSION_ID}"
	}
	if req.CancelURL == "" {
		req.CancelURL = s.base + "/checkout"
	}
	if req.Key == "" {
		req.Key = store.NewID()
	}
	cs, err := s.provider.StartCheckout(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return cs, strings.TrimPrefix(cs.URL, s.base)
}

func cardFields(number string) url.Values {
	return url.Values{"card_number": {number}, "expiry": {"12/40"}, "cvc": {"123"}, "name": {"Ada Lovelace"}}
}

// The hosted page says it is a test, what it pays for and how much; a
// form typed wrong or a declined card comes back with the message at its
// field (422) and the session still open; the card that pays goes on to
// the success URL, and the page then says it was paid (409).
func TestTestPaymentPageTakesTheTestCard(t *testing.T) {
	t.Parallel()
	s := newTestPayShop(t)
	cs, path := s.session(t, payment.CheckoutRequest{Amount: eur(4590), Description: "Order 1042: 2 items"})
	b := newBrowser(t, s.base)
	p := b.get(path)
	wantStatus(t, "the page", p, http.StatusOK)
	if banner := p.testid("test-payment-banner").Text(); !strings.Contains(banner, "Test payment — no real money") {
		t.Fatalf("banner %q", banner)
	}
	if got := p.testid("test-payment-amount").Text(); !strings.Contains(got, "€45.90") {
		t.Fatalf("amount %q", got)
	}
	if got := p.testid("test-payment-description").Text(); got != "Order 1042: 2 items" {
		t.Fatalf("description %q", got)
	}
	if p.testid("test-cards").Length() != 1 || p.testid("field-card_number").Length() != 1 || p.testid("nav-cart").Length() != 0 {
		t.Fatal("the page lacks its test cards or card field, or shows the shop's header")
	}

	p = b.post(path, url.Values{"card_number": {""}, "expiry": {"13/40"}, "cvc": {"1"}, "name": {""}})
	wantStatus(t, "an empty form", p, http.StatusUnprocessableEntity)
	for _, field := range []string{"card_number", "name"} {
		if p.testid("error-"+field).Length() != 1 {
			t.Errorf("no error at %s:\n%s", field, trim(p.body))
		}
	}
	p = b.post(path, url.Values{"card_number": {payment.CardSucceeds}, "expiry": {"13/40"}, "cvc": {"123"}, "name": {"Ada"}})
	wantStatus(t, "a bad expiry", p, http.StatusUnprocessableEntity)
	if p.testid("error-expiry").Length() != 1 || p.testid("field-name").AttrOr("value", "") != "Ada" || p.testid("field-card_number").AttrOr("value", "x") != "" {
		t.Fatalf("bad expiry: the error, the name kept, the number not echoed:\n%s", trim(p.body))
	}
	p = b.post(path, cardFields(payment.CardDeclined))
	wantStatus(t, "a declined card", p, http.StatusUnprocessableEntity)
	if got := p.testid("error-card_number").Text(); !strings.Contains(got, "declined") {
		t.Fatalf("declined: %q", got)
	}
	// Headed as what happened, not as a field to check; the field's link
	// says the rest.
	if got := text(p.testid("error-summary")); !strings.HasPrefix(got, "Your card was declined") || strings.Contains(got, "check") {
		t.Fatalf("a declined card's summary says %q, want it headed \"Your card was declined\"", got)
	}
	if p.testid("summary-link-card_number").Length() != 1 {
		t.Fatal("the summary does not link to the card number")
	}
	if got, _ := s.provider.RetrieveCheckout(context.Background(), cs.ID); got.Status != payment.SessionOpen {
		t.Fatalf("after a decline the session is %s", got.Status)
	}

	p = b.post(path, cardFields("4242 4242 4242 4242"))
	wantStatus(t, "the card that pays", p, http.StatusSeeOther)
	if got := p.header.Get("Location"); got != s.base+"/orders/o1?paid="+cs.ID {
		t.Fatalf("went to %q", got)
	}
	p = b.get(path)
	wantStatus(t, "the page once paid", p, http.StatusConflict)
	if p.testid("test-payment-closed").Length() != 1 || p.testid("test-payment-next").AttrOr("href", "") != s.base+"/orders/o1?paid="+cs.ID {
		t.Fatalf("paid page:\n%s", trim(p.body))
	}
	wantStatus(t, "paying again", b.post(path, cardFields(payment.CardSucceeds)), http.StatusConflict)
	if n := s.env.CountEntities(t, "testPayIntent"); n != 1 {
		t.Fatalf("%d payments", n)
	}
}

// Korean and Indonesian readers get the page in their words.
func TestTestPaymentPageSpeaksTheShopsLanguages(t *testing.T) {
	t.Parallel()
	s := newTestPayShop(t)
	_, path := s.session(t, payment.CheckoutRequest{Amount: eur(990), Description: "Order 7"})
	for l, want := range map[string]struct{ banner, declined string }{
		"ko": {"테스트 결제", "카드가 거절되었습니다"}, "id": {"Pembayaran uji", "Kartu Anda ditolak"}, "en": {"Test payment", "Your card was declined"},
	} {
		b := newBrowser(t, s.base)
		p := b.get(path + "?lang=" + l)
		wantStatus(t, l, p, http.StatusOK)
		if got := p.testid("test-payment-banner").Text(); !strings.Contains(got, want.banner) {
			t.Errorf("%s banner %q, want %q", l, got, want.banner)
		}
		p = b.post(path, cardFields(payment.CardInsufficientFunds))
		wantStatus(t, l+" declined", p, http.StatusUnprocessableEntity)
		if got := p.testid("form-error").Text(); got != want.declined {
			t.Errorf("%s: a card without funds is headed %q, want %q", l, got, want.declined)
		}
	}
}

// The card whose bank asks: the page asks the holder, failing it brings
// the card form back with the bank's word, approving it pays.
func TestTestPaymentPageAsksTheBank(t *testing.T) {
	t.Parallel()
	s := newTestPayShop(t)
	cs, path := s.session(t, payment.CheckoutRequest{Amount: eur(2500), Description: "Order 9"})
	b := newBrowser(t, s.base)
	b.get(path)
	p := b.post(path, cardFields(payment.CardAuthenticationRequired))
	wantStatus(t, "the card that asks", p, http.StatusSeeOther)
	if p.header.Get("Location") != path {
		t.Fatalf("went to %q, want the page", p.header.Get("Location"))
	}
	p = b.get(path)
	wantStatus(t, "the question", p, http.StatusOK)
	if p.testid("test-payment-challenge").Length() != 1 || !strings.Contains(p.testid("test-payment-challenge").Text(), "•••• 3184") {
		t.Fatalf("no question:\n%s", trim(p.body))
	}
	challenge := p.doc.Find(`input[name="challenge"]`).AttrOr("value", "")
	p = b.post(path+"/confirm", url.Values{"challenge": {challenge}, "answer": {"fail"}})
	wantStatus(t, "failed", p, http.StatusUnprocessableEntity)
	if !strings.Contains(p.testid("form-error").Text(), "could not confirm") || p.testid("test-payment-form").Length() != 1 {
		t.Fatalf("failed:\n%s", trim(p.body))
	}
	wantStatus(t, "a made-up answer", b.post(path+"/confirm", url.Values{"challenge": {challenge}, "answer": {"maybe"}}), http.StatusBadRequest)
	b.post(path, cardFields(payment.CardAuthenticationOnSetup))
	p = b.get(path)
	challenge = p.doc.Find(`input[name="challenge"]`).AttrOr("value", "")
	p = b.post(path+"/confirm", url.Values{"challenge": {challenge}, "answer": {"approve"}})
	wantStatus(t, "approved", p, http.StatusSeeOther)
	if got, _ := s.provider.RetrieveCheckout(context.Background(), cs.ID); !got.Paid {
		t.Fatalf("approved, the session is %+v", got)
	}
}

// Twenty submissions of one session's form at once: one payment; the
// others are told it was paid.
func TestTestPaymentPageCompletesOnceUnderARace(t *testing.T) {
	t.Parallel()
	s := newTestPayShop(t)
	_, path := s.session(t, payment.CheckoutRequest{Amount: eur(1990)})
	browsers := make([]*browser, 20)
	for i := range browsers {
		browsers[i] = newBrowser(t, s.base)
		browsers[i].get(path)
	}
	statuses := make([]int, len(browsers))
	var wg sync.WaitGroup
	for i, b := range browsers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = b.post(path, cardFields(payment.CardSucceeds)).status
		}()
	}
	wg.Wait()
	count := map[int]int{}
	for _, st := range statuses {
		count[st]++
	}
	if count[http.StatusSeeOther] != 1 || count[http.StatusConflict] != 19 {
		t.Fatalf("answers %v, want one 303 and nineteen 409", count)
	}
	if n := s.env.CountEntities(t, "testPayIntent"); n != 1 {
		t.Fatalf("%d payments", n)
	}
	if n := s.env.CountEntities(t, "testPayEvent"); n != 1 {
		t.Fatalf("%d events", n)
	}
}

// A session past its time is gone (410), an unknown one not found (404),
// and a form without the visit's token refused (403).
func TestTestPaymentPageWhenThereIsNothingToPay(t *testing.T) {
	t.Parallel()
	s := newTestPayShop(t)
	cs, path := s.session(t, payment.CheckoutRequest{Amount: eur(500), ExpiresAt: time.Now().Add(2 * time.Second)})
	b := newBrowser(t, s.base)
	wantStatus(t, "no token", b.post(path, cardFields(payment.CardSucceeds)), http.StatusForbidden)
	wantStatus(t, "unknown", b.get("/test-payments/checkout/cs_test_nothing"), http.StatusNotFound)
	wantStatus(t, "not an id", b.get("/test-payments/checkout/a.b"), http.StatusNotFound)
	b.get(path)
	time.Sleep(time.Until(cs.ExpiresAt) + 10*time.Millisecond)
	p := b.post(path, cardFields(payment.CardSucceeds))
	wantStatus(t, "past its time", p, http.StatusGone)
	if p.testid("test-payment-next").AttrOr("href", "") != s.base+"/checkout" {
		t.Fatalf("expired page:\n%s", trim(p.body))
	}
	if _, err := s.provider.ExpireCheckout(context.Background(), cs.ID); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "expired", b.get(path), http.StatusGone)
}

// A payment the shop charged off-session that the bank wants confirmed:
// its page asks, and the answer goes back to the shop's return URL.
func TestTestPaymentConfirmPageForAnOffSessionPayment(t *testing.T) {
	t.Parallel()
	s := newTestPayShop(t)
	ctx := context.Background()
	cus, err := s.provider.EnsureCustomer(ctx, payment.CustomerRequest{CustomerID: "c1", Key: "c1"})
	if err != nil {
		t.Fatal(err)
	}
	_, path := s.session(t, payment.CheckoutRequest{Mode: payment.ModeSetup, CustomerRef: cus})
	b := newBrowser(t, s.base)
	p := b.get(path)
	if p.testid("test-payment-amount").Length() != 0 || !strings.Contains(p.testid("test-payment-title").Text(), "Save a card") {
		t.Fatalf("a setup page:\n%s", trim(p.body))
	}
	b.post(path, cardFields(payment.CardAuthenticationRequired))
	p = b.get(path)
	p = b.post(path+"/confirm", url.Values{"challenge": {p.doc.Find(`input[name="challenge"]`).AttrOr("value", "")}, "answer": {"approve"}})
	wantStatus(t, "card saved", p, http.StatusSeeOther)
	saved, err := s.provider.Session(ctx, strings.TrimPrefix(path, "/test-payments/checkout/"))
	if err != nil || saved.MethodRef == "" {
		t.Fatalf("saved: %+v, %v", saved, err)
	}
	pi, err := s.provider.CreatePayment(ctx, payment.PaymentRequest{Amount: eur(1500), CustomerRef: cus, MethodRef: saved.MethodRef,
		Key: "sub-1", Description: "Coffee, March", ReturnURL: s.base + "/subscriptions"})
	if err != nil {
		t.Fatal(err)
	}
	pi, err = s.provider.ConfirmPayment(ctx, pi.ID)
	if !errors.Is(err, payment.ErrAuthenticationRequired) || pi.RedirectURL == "" {
		t.Fatalf("confirm: %+v, %v", pi, err)
	}
	confirm := strings.TrimPrefix(pi.RedirectURL, s.base)
	p = b.get(confirm)
	wantStatus(t, "the bank's page", p, http.StatusOK)
	if !strings.Contains(p.testid("test-payment-amount").Text(), "€15.00") || p.testid("challenge-approve").Length() != 1 {
		t.Fatalf("bank's page:\n%s", trim(p.body))
	}
	p = b.post(confirm, url.Values{"challenge": {pi.ID}, "answer": {"approve"}})
	wantStatus(t, "approved", p, http.StatusSeeOther)
	if got := p.header.Get("Location"); got != s.base+"/subscriptions?payment_intent="+pi.ID {
		t.Fatalf("back to %q", got)
	}
	if got, _ := s.provider.RetrievePayment(ctx, pi.ID); got.Status != payment.PaymentSucceeded {
		t.Fatalf("payment %+v", got)
	}
	wantStatus(t, "answered already", b.get(confirm), http.StatusConflict)
}

// postEvent sends body to the webhook with a signature header (none when
// sig is empty).
func postEvent(t testing.TB, base string, body []byte, sig string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/webhooks/test", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if sig != "" {
		req.Header.Set(payment.TestSignatureHeader, sig)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	_, _ = out.ReadFrom(resp.Body)
	if c := resp.Header.Get("Set-Cookie"); c != "" {
		t.Errorf("the webhook set a cookie: %s", c)
	}
	return resp.StatusCode, out.String()
}

// The webhook: a good signature hands the event over; a bad, missing or
// stale one is refused before anything is read; the same event sent twice
// is handed over twice (the store applies it once by its id); a type the
// shop does not act on is acknowledged and not handed over; a store that
// cannot apply it answers 500, so it comes again.
func TestTestPaymentWebhook(t *testing.T) {
	t.Parallel()
	s := newTestPayShop(t)
	body := []byte(`{"ID":"evt_test_1","Type":"checkout.session.completed","Created":"2026-01-01T00:00:00Z","Session":{"ID":"cs_test_1","Status":"complete","Paid":true}}`)
	now := time.Now()
	status, _ := postEvent(t, s.base, body, s.provider.Sign(body, now))
	if status != http.StatusOK {
		t.Fatalf("good: %d", status)
	}
	got := s.events.events()
	if len(got) != 1 || got[0].ID != "evt_test_1" || got[0].Session == nil || got[0].Session.ID != "cs_test_1" || !got[0].Session.Paid {
		t.Fatalf("handed over %+v", got)
	}
	for name, sig := range map[string]string{
		"missing":   "",
		"bad":       payment.SignWebhook("whsec_someone_else", body, now),
		"stale":     s.provider.Sign(body, now.Add(-6*time.Minute)),
		"garbage":   "t=abc,v1=xyz",
		"from when": fmt.Sprintf("t=%d", now.Unix()),
	} {
		if status, _ := postEvent(t, s.base, body, sig); status != http.StatusBadRequest {
			t.Errorf("%s signature: %d, want 400", name, status)
		}
	}
	tampered := bytes.Replace(body, []byte(`"Paid":true`), []byte(`"Paid":false`), 1)
	if status, _ := postEvent(t, s.base, tampered, s.provider.Sign(body, now)); status != http.StatusBadRequest {
		t.Errorf("a body other than the one signed: %d", status)
	}
	notJSON := []byte("not json")
	if status, _ := postEvent(t, s.base, notJSON, s.provider.Sign(notJSON, now)); status != http.StatusBadRequest {
		t.Errorf("signed, but not an event: %d", status)
	}
	// Replayed within the tolerance, and sent twice: handed over each time.
	sig := s.provider.Sign(body, now.Add(-time.Minute))
	for range 2 {
		if status, _ := postEvent(t, s.base, body, sig); status != http.StatusOK {
			t.Fatalf("replayed: %d", status)
		}
	}
	if n := len(s.events.events()); n != 3 {
		t.Fatalf("%d handed over, want 3 (the store applies each id once)", n)
	}
	other := []byte(`{"ID":"evt_test_2","Type":"customer.updated","Created":"2026-01-01T00:00:00Z"}`)
	if status, answer := postEvent(t, s.base, other, s.provider.Sign(other, now)); status != http.StatusOK || answer != "ignored" {
		t.Fatalf("an unknown type: %d %q", status, answer)
	}
	if n := len(s.events.events()); n != 3 {
		t.Fatalf("an unknown type was handed over")
	}
	s.events.mu.Lock()
	s.events.failing = 1
	s.events.mu.Unlock()
	if status, _ := postEvent(t, s.base, body, s.provider.Sign(body, now)); status != http.StatusInternalServerError {
		t.Fatalf("not applied: %d, want 500", status)
	}
	// A 70 KB event is refused on its head. Sent whole, the client may
	// still be writing when the server closes, and read a reset instead
	// of the answer: the head and 16 KB are sent, as a sender would have.
	big := append(append([]byte(`{"ID":"evt_test_3","Type":"checkout.session.completed","Pad":"`), bytes.Repeat([]byte("x"), 70<<10)...), `"}`...)
	if resp := rawPost(t, s.base, "/webhooks/test", "Content-Length: "+strconv.Itoa(len(big)),
		payment.TestSignatureHeader+": "+s.provider.Sign(big, now)); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("a 70 KB event: %d, want 413", resp.StatusCode)
	}
}

// The delivery job against the shop's own route: a session paid on its
// page reaches the store's seam once delivered, again when delivered
// twice, late when held back, and after a retry when the store refused.
func TestTestPaymentEventsReachTheWebhook(t *testing.T) {
	t.Parallel()
	s := newTestPayShop(t)
	deliver := &jobs.TestPaymentEvents{Store: s.env.Store, Provider: s.provider, URL: s.base + "/webhooks/test",
		Log: slog.New(slog.DiscardHandler), Jitter: func() float64 { return 0 }}
	pay := func(cents int64) payment.CheckoutSession {
		cs, path := s.session(t, payment.CheckoutRequest{Amount: eur(cents)})
		b := newBrowser(t, s.base)
		b.get(path)
		wantStatus(t, "pay", b.post(path, cardFields(payment.CardSucceeds)), http.StatusSeeOther)
		return cs
	}
	first, second := pay(100), pay(200)
	deliver.Filter = func(ev store.TestPayEvent) jobs.EventDelivery {
		if strings.Contains(ev.Body, first.ID) {
			return jobs.HoldEvent
		}
		return jobs.DeliverEventTwice
	}
	n, err := deliver.DeliverDue(context.Background())
	if err != nil || n != (jobs.EventCounts{Delivered: 1, Held: 1}) {
		t.Fatalf("first run: %+v, %v", n, err)
	}
	deliver.Filter = nil
	s.events.mu.Lock()
	s.events.failing = 1
	s.events.mu.Unlock()
	if n, err = deliver.DeliverDue(context.Background()); err != nil || n != (jobs.EventCounts{Failed: 1}) {
		t.Fatalf("the store refuses: %+v, %v", n, err)
	}
	ev, _, _ := s.env.Store.TestPayDue(context.Background(), 10)
	if len(ev) != 0 {
		t.Fatalf("due before its backoff: %v", ev)
	}
	var held store.TestPayEvent
	for _, e := range allEvents(t, s.env) {
		if strings.Contains(e.Body, first.ID) {
			held = e
		}
	}
	if held.Attempts != 1 || !strings.Contains(held.LastError, "500") {
		t.Fatalf("the refused event: %+v", held)
	}
	held.NextAttemptAt = time.Now().Add(-time.Second) // its backoff over
	if err := s.env.Store.MarkTestPayEvent(context.Background(), held); err != nil {
		t.Fatal(err)
	}
	if n, err = deliver.DeliverDue(context.Background()); err != nil || n != (jobs.EventCounts{Delivered: 1}) {
		t.Fatalf("retried: %+v, %v", n, err)
	}
	var order []string
	for _, e := range s.events.events() {
		order = append(order, e.Session.ID)
	}
	if len(order) != 3 || order[0] != second.ID || order[1] != second.ID || order[2] != first.ID {
		t.Fatalf("the store's seam took %v (first %s, second %s)", order, first.ID, second.ID)
	}
}

// allEvents reads every test provider event of the table.
func allEvents(t *testing.T, env storetest.Env) []store.TestPayEvent {
	t.Helper()
	var out []store.TestPayEvent
	for _, it := range env.Items(t) {
		kind, _ := it["EntityType"].(*types.AttributeValueMemberS)
		pk, _ := it["PK"].(*types.AttributeValueMemberS)
		if kind == nil || pk == nil || kind.Value != "testPayEvent" {
			continue
		}
		ev, err := env.Store.TestPayEvent(context.Background(), strings.TrimPrefix(pk.Value, "gwevent#"))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}

func eur(cents int64) store.Money { return store.Money{Amount: cents, Currency: "EUR"} }

// Outside test mode (Stripe's, where the test provider only refunds its
// own old payments) neither its pages nor its webhook are routed. And a
// shop with no card provider at all is not served: it would have nowhere
// to take a card.
func TestTestPaymentRoutesOnlyInTestMode(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	if _, err := web.New(web.Config{Store: env.Store, Log: discardLog(), SessionKeys: [][]byte{keyA}, BcryptCost: bcrypt.MinCost}); err == nil ||
		!strings.Contains(err.Error(), "no card provider") {
		t.Errorf("a shop without a card provider: %v, want it refused", err)
	}
	stripeMode := func(_ storetest.Env, cfg *web.Config) {
		sp, err := stripepay.New(stripepay.Config{SecretKey: "sk_test_modes", WebhookSecret: "whsec_modes", APIURL: "http://127.0.0.1:9"})
		if err != nil {
			t.Fatal(err)
		}
		test := cfg.Payments.Active().(*payment.TestProvider)
		test.RefundsOnly = true
		cfg.Payments = payment.NewProviders(sp, test)
	}
	for name, opts := range map[string][]appOption{"stripe mode": {stripeMode}} {
		base, _ := startApp(t, env, env.Table, [][]byte{keyA}, opts...)
		b := newBrowser(t, base)
		wantStatus(t, name+": the page", b.get("/test-payments/checkout/cs_test_1"), http.StatusNotFound)
		body := []byte(`{"ID":"evt_test_1","Type":"checkout.session.completed"}`)
		if status, _ := postEvent(t, base, body, payment.SignWebhook("whsec_x", body, time.Now())); status != http.StatusNotFound {
			t.Errorf("%s: the webhook answered %d, want 404", name, status)
		}
	}
}
