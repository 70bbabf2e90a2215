package payment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
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

// CardForm is the hosted page's card form as typed.
type CardForm struct {
	Number string
	Expiry string // MM/YY
	CVC    string
	Name   string
}

// Session reads a session for its hosted page.
func (p *TestProvider) Session(ctx context.Context, id string) (store.TestPaySession, error) {
	return p.ledger.TestPaySession(ctx, id)
}

// closed is the answer of a session that can no longer be paid:
// ErrCheckoutComplete, ErrCheckoutExpired, or nil while it can.
func (p *TestProvider) closed(s store.TestPaySession) error {
	switch {
	case s.Status == SessionComplete:
		return ErrCheckoutComplete
	case s.Status != SessionOpen || !p.now().Before(s.OpenUntil):
		return ErrCheckoutExpired
	}
	return nil
}

// PayCheckout takes the hosted page's card for a session. A card typed
// wrong answers the card's error (ErrInvalidNumber and the like); a
// declined one the bank's (ErrDeclined, ErrInsufficientFunds,
// ErrProcessing; in setup mode only the first), the session staying open
// for another card; a card whose
// bank asks the holder to confirm answers ErrAuthenticationRequired, the
// session now waiting on that challenge (AnswerChallenge). Otherwise the
// session is complete: paid (and the card saved, if asked), with its
// checkout.session.completed event, once whoever else submits it at the
// same time (ErrCheckoutComplete). A session past its time is
// ErrCheckoutExpired.
func (p *TestProvider) PayCheckout(ctx context.Context, id string, form CardForm) (store.TestPaySession, error) {
	s, err := p.ledger.TestPaySession(ctx, id)
	if err != nil {
		return store.TestPaySession{}, err
	}
	if err := p.closed(s); err != nil {
		return s, err
	}
	typed, err := readCard(form.Number, form.Expiry, form.CVC, p.Now())
	if err != nil {
		return s, err
	}
	card := storedCard(typed)
	// A decline is not kept: another card may be tried. Saving a card
	// (setup) charges nothing, so only the card declined outright is
	// refused then; one short of funds is saved, and its charges fail.
	if err := errorOf(card.Outcome); err != nil && (s.Mode == string(ModePayment) || card.Outcome == outcomeDeclined) {
		return s, err
	}
	if card.Auth == authNever {
		return p.complete(ctx, s, card, "")
	}
	next := s
	next.Challenge = &store.TestPayChallenge{ID: store.NewID(), Card: card}
	s, err = p.ledger.ChangeTestPaySession(ctx, store.TestPaySessionChange{Session: next, At: p.now()})
	if errors.Is(err, store.ErrTestPaySessionClosed) {
		return s, p.closed(s)
	}
	if err != nil {
		return s, err
	}
	return s, ErrAuthenticationRequired
}

// AnswerChallenge is the holder's answer to the bank's question the
// session waits on: approved, the session completes as PayCheckout's
// would; failed, the question is dropped and ErrAuthenticationFailed
// answers (another card may be tried). An answer to a question no longer
// asked (answered in another tab) is ErrCheckoutComplete or, the session
// still open, ErrAuthenticationFailed.
func (p *TestProvider) AnswerChallenge(ctx context.Context, id, challenge string, approve bool) (store.TestPaySession, error) {
	s, err := p.ledger.TestPaySession(ctx, id)
	if err != nil {
		return store.TestPaySession{}, err
	}
	if err := p.closed(s); err != nil {
		return s, err
	}
	if s.Challenge == nil || s.Challenge.ID != challenge {
		return s, ErrAuthenticationFailed
	}
	if approve {
		return p.complete(ctx, s, s.Challenge.Card, challenge)
	}
	next := s
	next.Challenge = nil
	s, err = p.ledger.ChangeTestPaySession(ctx, store.TestPaySessionChange{Session: next, At: p.now(), Challenge: challenge})
	if errors.Is(err, store.ErrTestPaySessionClosed) {
		if cerr := p.closed(s); cerr != nil {
			return s, cerr
		}
		return s, ErrAuthenticationFailed
	}
	if err != nil {
		return s, err
	}
	return s, ErrAuthenticationFailed
}

// storedCard is a typed card as the provider keeps it.
func storedCard(c typedCard) store.TestPayCard {
	last := c.Expires.AddDate(0, -1, 0) // Expires is the month after
	return store.TestPayCard{Brand: c.Brand, Last4: c.Last4, ExpMonth: int(last.Month()), ExpYear: last.Year(),
		Outcome: c.Outcome, Auth: c.Auth, Expires: c.Expires}
}

// complete pays (and saves the card of) an open session in one write with
// its payment, card and event.
func (p *TestProvider) complete(ctx context.Context, s store.TestPaySession, card store.TestPayCard, challenge string) (store.TestPaySession, error) {
	now := p.now()
	done := s
	done.Status, done.ClosedAt, done.Challenge, done.Card = SessionComplete, now, nil, &card
	ch := store.TestPaySessionChange{Session: done, At: now, Challenge: challenge}
	if s.SaveCard {
		ch.Method = &store.TestPayMethod{ID: ref("pm"), CustomerRef: s.CustomerRef, Card: card, CreatedAt: now}
		done.MethodRef = ch.Method.ID
	}
	if s.Mode == string(ModePayment) {
		ch.Payment = &store.TestPayIntent{ID: ref("pi"), Status: PaymentSucceeded, Amount: s.Amount, CustomerRef: s.CustomerRef,
			MethodRef: done.MethodRef, SessionID: s.ID, Description: s.Description, Card: &card, Metadata: s.Metadata,
			Refunded: store.Money{Currency: s.Amount.Currency}, CreatedAt: now}
		done.PaymentRef = ch.Payment.ID
	}
	ch.Session = done
	cs := p.checkoutSession(done)
	ev, err := p.event(EventCheckoutCompleted, now, Event{Session: &cs})
	if err != nil {
		return s, err
	}
	ch.Event = &ev
	got, err := p.ledger.ChangeTestPaySession(ctx, ch)
	if errors.Is(err, store.ErrTestPaySessionClosed) {
		if cerr := p.closed(got); cerr != nil {
			return got, cerr
		}
		return got, ErrAuthenticationFailed // open, but its question was answered in another tab
	}
	return got, err
}

// CreatePayment creates an unconfirmed off-session payment of a saved
// card, once per req.Key (a repeat answers the first; with another amount
// or card, ErrKeyReused).
func (p *TestProvider) CreatePayment(ctx context.Context, req PaymentRequest) (PaymentIntent, error) {
	if err := p.open(); err != nil {
		return PaymentIntent{}, err
	}
	if req.Amount.Amount <= 0 {
		return PaymentIntent{}, ErrBelowMinimum
	}
	m, err := p.ledger.TestPayMethod(ctx, req.MethodRef)
	if err != nil {
		return PaymentIntent{}, err
	}
	if m.CustomerRef != req.CustomerRef {
		return PaymentIntent{}, fmt.Errorf("card %s is not customer %s's: %w", req.MethodRef, req.CustomerRef, store.ErrNotFound)
	}
	pi := store.TestPayIntent{ID: ref("pi"), Key: req.Key, Status: PaymentRequiresConfirmation, Amount: req.Amount,
		CustomerRef: req.CustomerRef, MethodRef: req.MethodRef, Description: req.Description, ReturnURL: req.ReturnURL,
		Metadata: req.Metadata, Refunded: store.Money{Currency: req.Amount.Currency}, CreatedAt: p.now()}
	made, err := p.ledger.PutTestPayIntent(ctx, pi)
	if errors.Is(err, store.ErrConflict) && made.ID != "" {
		if made.Amount != pi.Amount || made.MethodRef != pi.MethodRef {
			return PaymentIntent{}, ErrKeyReused
		}
		err = nil
	}
	if err != nil {
		return PaymentIntent{}, err
	}
	return p.paymentIntent(made), nil
}

// Decline codes a payment keeps, as Stripe names them.
const (
	declineCard           = "card_declined"
	declineInsufficient   = "insufficient_funds"
	declineProcessing     = "processing_error"
	declineExpired        = "expired_card"
	declineAuthentication = "authentication_required"
)

// declineOf is a declined outcome's code and error.
func declineOf(outcome string) (string, error) {
	switch outcome {
	case outcomeInsufficient:
		return declineInsufficient, ErrInsufficientFunds
	case outcomeProcessing:
		return declineProcessing, ErrProcessing
	}
	return declineCard, ErrDeclined
}

// answerOf is what a payment as it stands answers a confirmation.
func answerOf(pi store.TestPayIntent) error {
	switch pi.Status {
	case PaymentSucceeded:
		return nil
	case PaymentRequiresAction:
		return ErrAuthenticationRequired
	case PaymentRequiresMethod:
		switch pi.DeclineCode {
		case declineInsufficient:
			return ErrInsufficientFunds
		case declineProcessing:
			return ErrProcessing
		case declineAuthentication:
			return ErrAuthenticationRequired
		}
		return ErrDeclined
	case PaymentCanceled:
		return ErrVoided
	}
	return fmt.Errorf("payment %s is %s", pi.ID, pi.Status)
}

// ConfirmPayment charges a payment's card, once: confirmed again (or by
// two at once), it answers as it stands. A card whose bank asks on every
// payment (CardAuthenticationRequired) answers ErrAuthenticationRequired:
// with a ReturnURL the payment waits for the holder at its RedirectURL
// (requires_action), without one it fails. Each charge or failure writes
// its event (payment_intent.succeeded or payment_intent.payment_failed).
func (p *TestProvider) ConfirmPayment(ctx context.Context, id string) (PaymentIntent, error) {
	pi, err := p.ledger.TestPayIntent(ctx, id)
	if err != nil {
		return PaymentIntent{}, err
	}
	if pi.Status != PaymentRequiresConfirmation && pi.Status != PaymentRequiresMethod {
		return p.paymentIntent(pi), answerOf(pi)
	}
	now := p.now()
	next := pi
	next.DeclineCode = ""
	m, err := p.ledger.TestPayMethod(ctx, pi.MethodRef)
	switch {
	case errors.Is(err, store.ErrNotFound):
		next.Status, next.DeclineCode = PaymentRequiresMethod, declineCard
	case err != nil:
		return PaymentIntent{}, err
	case !now.Before(m.Card.Expires):
		next.Card, next.Status, next.DeclineCode = &m.Card, PaymentRequiresMethod, declineExpired
	case m.Card.Outcome != outcomeOK:
		next.Card, next.Status = &m.Card, PaymentRequiresMethod
		next.DeclineCode, _ = declineOf(m.Card.Outcome)
	case m.Card.Auth == authAlways && pi.ReturnURL != "":
		next.Card, next.Status = &m.Card, PaymentRequiresAction
	case m.Card.Auth == authAlways:
		next.Card, next.Status, next.DeclineCode = &m.Card, PaymentRequiresMethod, declineAuthentication
	default:
		next.Card, next.Status = &m.Card, PaymentSucceeded
	}
	var ev *store.TestPayEvent
	if next.Status != PaymentRequiresAction {
		typ := EventPaymentSucceeded
		if next.Status != PaymentSucceeded {
			typ = EventPaymentFailed
		}
		intent := p.paymentIntent(next)
		e, err := p.event(typ, now, Event{Payment: &intent})
		if err != nil {
			return PaymentIntent{}, err
		}
		ev = &e
	}
	moved, err := p.ledger.MoveTestPayIntent(ctx, next, pi.Status, ev)
	if errors.Is(err, store.ErrConflict) && moved.ID != "" {
		next = moved // confirmed meanwhile: its answer
	} else if err != nil {
		return PaymentIntent{}, err
	}
	return p.paymentIntent(next), answerOf(next)
}

// AnswerPayment is the holder's answer, on the bank's page, to a payment
// waiting for it (requires_action): approved it is charged, failed it
// fails; either way with its event. A payment no longer waiting answers as
// it stands.
func (p *TestProvider) AnswerPayment(ctx context.Context, id string, approve bool) (store.TestPayIntent, error) {
	pi, err := p.ledger.TestPayIntent(ctx, id)
	if err != nil {
		return store.TestPayIntent{}, err
	}
	if pi.Status != PaymentRequiresAction {
		return pi, answerOf(pi)
	}
	next := pi
	typ := EventPaymentSucceeded
	next.Status = PaymentSucceeded
	if !approve {
		next.Status, next.DeclineCode, typ = PaymentRequiresMethod, declineAuthentication, EventPaymentFailed
	}
	intent := p.paymentIntent(next)
	ev, err := p.event(typ, p.now(), Event{Payment: &intent})
	if err != nil {
		return store.TestPayIntent{}, err
	}
	moved, err := p.ledger.MoveTestPayIntent(ctx, next, pi.Status, &ev)
	if errors.Is(err, store.ErrConflict) && moved.ID != "" {
		next = moved
	} else if err != nil {
		return store.TestPayIntent{}, err
	}
	if !approve && next.Status == PaymentRequiresMethod {
		return next, ErrAuthenticationFailed
	}
	return next, answerOf(next)
}

// Payment reads a payment for the bank's page.
func (p *TestProvider) Payment(ctx context.Context, id string) (store.TestPayIntent, error) {
	return p.ledger.TestPayIntent(ctx, id)
}

// RetrievePayment reads a payment.
func (p *TestProvider) RetrievePayment(ctx context.Context, id string) (PaymentIntent, error) {
	pi, err := p.ledger.TestPayIntent(ctx, id)
	if err != nil {
		return PaymentIntent{}, err
	}
	return p.paymentIntent(pi), nil
}

func (p *TestProvider) paymentIntent(pi store.TestPayIntent) PaymentIntent {
	out := PaymentIntent{ID: pi.ID, Status: pi.Status, Amount: pi.Amount, Metadata: maps.Clone(pi.Metadata), DeclineCode: pi.DeclineCode}
	if pi.Status == PaymentRequiresAction {
		out.RedirectURL = p.BaseURL + paths.TestPaymentConfirm(pi.ID)
	}
	if pi.Card != nil {
		out.Card = savedMethod(pi.MethodRef, *pi.Card)
	}
	return out
}

// Refund gives part or all of a payment back, once per req.Key (a repeat
// answers the first refund; with another payment or amount,
// ErrKeyReused), never more than the payment took
// (store.ErrRefundExceedsCharge), with its charge.refunded event. It
// works in RefundsOnly too.
func (p *TestProvider) Refund(ctx context.Context, req RefundRequest) (Refund, error) {
	if req.Amount.Amount <= 0 {
		return Refund{}, store.ErrBadRefund
	}
	now := p.now()
	r := store.TestPayRefund{ID: ref("re"), Key: req.Key, PaymentRef: req.PaymentRef, Status: RefundSucceeded,
		Amount: req.Amount, Metadata: req.Metadata, At: now}
	out := refundOf(r)
	ev, err := p.event(EventChargeRefunded, now, Event{Refund: &out})
	if err != nil {
		return Refund{}, err
	}
	made, err := p.ledger.PutTestPayRefund(ctx, r, ev)
	if errors.Is(err, store.ErrConflict) && made.ID != "" {
		if made.PaymentRef != r.PaymentRef || made.Amount != r.Amount {
			return Refund{}, ErrKeyReused
		}
		err = nil
	}
	if err != nil {
		return Refund{}, err
	}
	return refundOf(made), nil
}

func refundOf(r store.TestPayRefund) Refund {
	return Refund{ID: r.ID, PaymentRef: r.PaymentRef, Status: r.Status, Amount: r.Amount, Metadata: maps.Clone(r.Metadata)}
}

// Closed says whether a session can still be paid: nil while it can,
// ErrCheckoutComplete once paid, ErrCheckoutExpired past its time.
func (p *TestProvider) Closed(s store.TestPaySession) error { return p.closed(s) }

// SuccessURL is where the holder goes once a session is paid: its success
// URL, with {CHECKOUT_SESSION_ID} replaced by its id, as Stripe does.
func SuccessURL(s store.TestPaySession) string {
	return strings.ReplaceAll(s.SuccessURL, "{CHECKOUT_SESSION_ID}", s.ID)
}

// ReturnURL is where the bank's page sends the holder back to after a
// payment's question: its ReturnURL with ?payment_intent=<id>, as Stripe
// does.
func ReturnURL(pi store.TestPayIntent) string {
	sep := "?"
	if strings.Contains(pi.ReturnURL, "?") {
		sep = "&"
	}
	return pi.ReturnURL + sep + "payment_intent=" + url.QueryEscape(pi.ID)
}
