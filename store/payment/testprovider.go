package payment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"shop/store"
	"shop/web/paths"
)

// ProviderLedger is where the test provider keeps what a real provider
// keeps on its side: its customers, hosted sessions, payments, refunds,
// saved cards and the events it owes the shop, in the shop's table
// (store.Store), so that every replica and every restart sees them. Every
// change is conditional, and writes the event it reports in the same
// transaction.
type ProviderLedger interface {
	TestPaySecret(ctx context.Context) (string, error)
	PutTestPayCustomer(ctx context.Context, c store.TestPayCustomer) (store.TestPayCustomer, error)
	DeleteTestPayCustomer(ctx context.Context, id string) error
	TestPayMethod(ctx context.Context, id string) (store.TestPayMethod, error)
	PutTestPaySession(ctx context.Context, s store.TestPaySession) (store.TestPaySession, error)
	TestPaySession(ctx context.Context, id string) (store.TestPaySession, error)
	ChangeTestPaySession(ctx context.Context, ch store.TestPaySessionChange) (store.TestPaySession, error)
	ExpireTestPaySession(ctx context.Context, s store.TestPaySession, ev store.TestPayEvent) (store.TestPaySession, error)
	PutTestPayIntent(ctx context.Context, p store.TestPayIntent) (store.TestPayIntent, error)
	TestPayIntent(ctx context.Context, id string) (store.TestPayIntent, error)
	MoveTestPayIntent(ctx context.Context, p store.TestPayIntent, from string, ev *store.TestPayEvent) (store.TestPayIntent, error)
	PutTestPayRefund(ctx context.Context, r store.TestPayRefund, ev store.TestPayEvent) (store.TestPayRefund, error)
	TestPayRefund(ctx context.Context, id string) (store.TestPayRefund, error)
}

// TestSignatureHeader carries the test provider's webhook signature.
const TestSignatureHeader = "Test-Signature"

// Errors of the test provider and its hosted page.
var (
	ErrCheckoutExpired      = errors.New("the checkout session has expired")
	ErrAuthenticationFailed = errors.New("the bank could not confirm it was the card holder")
	// ErrTestProviderClosed: the shop takes cards with Stripe; the test
	// provider only refunds the payments it took before.
	ErrTestProviderClosed = errors.New("the test provider takes no new payments while the shop uses Stripe")
)

// TestProvider is the built-in card provider for development, the demo and
// every test that moves money. It follows the flow of a real one: a hosted
// page the shop serves under /test-payments (clearly marked as a test),
// which takes the test cards (see the Card* constants: 4242… pays,
// 4000…0002 is declined, 4000 0027 6000 3184 asks the holder to confirm
// every payment, 4000 0025 0000 3155 asks on the page and not off-session
// once saved), off-session payments of saved cards, refunds, and signed
// events it writes to the table with each change, which the
// test-payment-events job posts to /webhooks/test. Its records are the
// ledger's (ProviderLedger); the card rules are the test gateway's.
type TestProvider struct {
	// Now is the provider's clock (tests move it).
	Now func() time.Time
	// BaseURL is the shop's address: the hosted pages are under it.
	BaseURL string
	// RefundsOnly: the shop runs with Stripe. No new customer, session or
	// payment (ErrTestProviderClosed); refunds of earlier test payments
	// still go here, the provider that took the money.
	RefundsOnly bool
	// OnEvent, if set, is told each time the provider makes an event (just
	// before it is written): the delivery job wakes from its idle rest.
	OnEvent func()

	ledger ProviderLedger
	secret string
}

// NewTestProvider returns the test provider over ledger, with the table's
// webhook secret (made on the first start, the same for every replica).
func NewTestProvider(ctx context.Context, ledger ProviderLedger, baseURL string) (*TestProvider, error) {
	secret, err := ledger.TestPaySecret(ctx)
	if err != nil {
		return nil, fmt.Errorf("test provider secret: %w", err)
	}
	return &TestProvider{Now: time.Now, BaseURL: strings.TrimSuffix(baseURL, "/"), ledger: ledger, secret: secret}, nil
}

var _ Provider = (*TestProvider)(nil)

// Name is "test".
func (p *TestProvider) Name() string { return ProviderTest }

func (p *TestProvider) now() time.Time { return p.Now().UTC().Truncate(time.Millisecond) }

// ref is a new id of the provider's, Stripe-like: cs_test_…, pi_test_….
func ref(kind string) string { return kind + "_test_" + store.NewID() }

func (p *TestProvider) open() error {
	if p.RefundsOnly {
		return ErrTestProviderClosed
	}
	return nil
}

// Sign signs an event's body with the provider's secret at a time, as
// its deliveries are signed (tests sign their own).
func (p *TestProvider) Sign(body []byte, at time.Time) string { return SignWebhook(p.secret, body, at) }

// EnsureCustomer creates the provider's customer once per c.Key.
func (p *TestProvider) EnsureCustomer(ctx context.Context, c CustomerRequest) (string, error) {
	if err := p.open(); err != nil {
		return "", err
	}
	made, err := p.ledger.PutTestPayCustomer(ctx, store.TestPayCustomer{ID: ref("cus"), Key: c.Key, CustomerID: c.CustomerID,
		Email: c.Email, Name: c.Name, CreatedAt: p.now()})
	if err != nil && !errors.Is(err, store.ErrConflict) {
		return "", err
	}
	if errors.Is(err, store.ErrConflict) && made.CustomerID != c.CustomerID {
		return "", ErrKeyReused
	}
	return made.ID, nil
}

// DeleteCustomer deletes the provider's customer; one gone is fine.
func (p *TestProvider) DeleteCustomer(ctx context.Context, id string) error {
	return p.ledger.DeleteTestPayCustomer(ctx, id)
}

// StartCheckout opens a hosted session once per req.Key (a repeat answers
// the first session; with another amount or mode, ErrKeyReused). Without
// an ExpiresAt it is open for a day.
func (p *TestProvider) StartCheckout(ctx context.Context, req CheckoutRequest) (CheckoutSession, error) {
	if err := p.open(); err != nil {
		return CheckoutSession{}, err
	}
	now := p.now()
	switch {
	case req.Mode != ModePayment && req.Mode != ModeSetup:
		return CheckoutSession{}, fmt.Errorf("checkout mode %q: want payment or setup", req.Mode)
	case req.Mode == ModePayment && req.Amount.Amount <= 0:
		return CheckoutSession{}, ErrBelowMinimum
	case req.Mode == ModeSetup && req.CustomerRef == "":
		return CheckoutSession{}, errors.New("a setup session saves a card for a customer: no customer given")
	case req.SuccessURL == "":
		return CheckoutSession{}, errors.New("a checkout session needs a success URL")
	}
	until := req.ExpiresAt.UTC().Truncate(time.Millisecond)
	if req.ExpiresAt.IsZero() {
		until = now.Add(24 * time.Hour)
	}
	if !until.After(now) {
		return CheckoutSession{}, fmt.Errorf("checkout session would expire at %s, before now", until.Format(time.RFC3339))
	}
	s := store.TestPaySession{
		ID: ref("cs"), Key: req.Key, Mode: string(req.Mode), Amount: req.Amount, Description: req.Description,
		CustomerRef: req.CustomerRef, SaveCard: req.SaveCard || req.Mode == ModeSetup, SuccessURL: req.SuccessURL,
		CancelURL: req.CancelURL, Metadata: req.Metadata, Status: SessionOpen, CreatedAt: now, OpenUntil: until,
	}
	if req.Mode == ModeSetup {
		s.Amount = store.Money{Currency: req.Amount.Currency}
	}
	made, err := p.ledger.PutTestPaySession(ctx, s)
	if errors.Is(err, store.ErrConflict) && made.ID != "" {
		if made.Mode != s.Mode || made.Amount != s.Amount {
			return CheckoutSession{}, ErrKeyReused
		}
		err = nil
	}
	if err != nil {
		return CheckoutSession{}, err
	}
	return p.checkoutSession(made), nil
}

// RetrieveCheckout reads a session.
func (p *TestProvider) RetrieveCheckout(ctx context.Context, id string) (CheckoutSession, error) {
	s, err := p.ledger.TestPaySession(ctx, id)
	if err != nil {
		return CheckoutSession{}, err
	}
	return p.checkoutSession(s), nil
}

// ExpireCheckout ends an open session unpaid and sends
// checkout.session.expired; one expired already is fine, one paid answers
// ErrCheckoutComplete with the session.
func (p *TestProvider) ExpireCheckout(ctx context.Context, id string) (CheckoutSession, error) {
	s, err := p.ledger.TestPaySession(ctx, id)
	if err != nil {
		return CheckoutSession{}, err
	}
	if s.Status == SessionOpen {
		now := p.now()
		next := s
		next.Status, next.ClosedAt, next.Challenge = SessionExpired, now, nil
		cs := p.checkoutSession(next)
		ev, err := p.event(EventCheckoutExpired, now, Event{Session: &cs})
		if err != nil {
			return CheckoutSession{}, err
		}
		s, err = p.ledger.ExpireTestPaySession(ctx, next, ev)
		if err != nil && !errors.Is(err, store.ErrTestPaySessionClosed) {
			return CheckoutSession{}, err
		}
	}
	if s.Status == SessionComplete {
		return p.checkoutSession(s), ErrCheckoutComplete
	}
	return p.checkoutSession(s), nil
}

func (p *TestProvider) checkoutSession(s store.TestPaySession) CheckoutSession {
	cs := CheckoutSession{
		ID: s.ID, Status: s.Status, Paid: s.Status == SessionComplete, Amount: s.Amount, PaymentRef: s.PaymentRef,
		CustomerRef: s.CustomerRef, Metadata: maps.Clone(s.Metadata), ExpiresAt: s.OpenUntil,
	}
	if s.Status == SessionOpen {
		cs.URL = p.BaseURL + paths.TestPaymentCheckout(s.ID)
	}
	if s.MethodRef != "" && s.Card != nil {
		cs.Card = savedMethod(s.MethodRef, *s.Card)
	}
	return cs
}

func savedMethod(id string, c store.TestPayCard) *SavedMethod {
	return &SavedMethod{Provider: ProviderTest, Ref: id, Brand: c.Brand, Last4: c.Last4, ExpMonth: c.ExpMonth, ExpYear: c.ExpYear}
}

// event is an event of type typ at at: its body is the Event as JSON.
func (p *TestProvider) event(typ string, at time.Time, ev Event) (store.TestPayEvent, error) {
	ev.ID, ev.Type, ev.Created = ref("evt"), typ, at
	if p.OnEvent != nil {
		p.OnEvent()
	}
	body, err := json.Marshal(ev)
	if err != nil {
		return store.TestPayEvent{}, err
	}
	return store.TestPayEvent{ID: ev.ID, Type: typ, Created: at, Body: string(body)}, nil
}

// ParseEvent checks the signature (TestSignatureHeader) over the raw body
// first, within SignatureTolerance, and then reads the event.
func (p *TestProvider) ParseEvent(body []byte, signature string) (Event, error) {
	if err := VerifyWebhook(p.secret, body, signature, p.Now(), SignatureTolerance); err != nil {
		return Event{}, err
	}
	var ev Event
	if err := json.Unmarshal(body, &ev); err != nil {
		return Event{}, fmt.Errorf("test provider event: %w", err)
	}
	if ev.ID == "" || ev.Type == "" {
		return Event{}, errors.New("test provider event: no id or type")
	}
	return ev, nil
}
