package demo

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"shop/store"
	"shop/store/payment"
	"shop/web/paths"
)

// The demo's card payments are the built-in test provider's, made through
// the provider as the served shop makes them, at the time each was paid:
// its customers typed the test provider's succeeding Visa on its hosted
// page (a subscription's first payment saved it for the renewals, which
// were charged off-session; an order's paid the order), so the shop's
// renewals, refunds, erasure and export treat them as they treat any
// payment the shop took since. The provider's events of those payments
// were delivered when they happened: the load marks them delivered.

// metaDemo marks the demo's payments in their metadata. The shop's
// settling acts on none of it (no order or subscription key), so an event
// of theirs delivered after all changes nothing.
const metaDemo = "shop_demo"

// demoCardForm is the card the demo's customers typed on the page.
var demoCardForm = payment.CardForm{Number: payment.CardSucceeds, Expiry: "12/99", CVC: "123"}

// payments makes the demo's payments at the test provider.
type payments struct {
	st       *store.Store
	ledger   *eventLog
	provider *payment.TestProvider
}

func newPayments(ctx context.Context, st *store.Store) (*payments, error) {
	ledger := &eventLog{Store: st}
	p, err := payment.NewTestProvider(ctx, ledger, "")
	if err != nil {
		return nil, err
	}
	p.Now = st.Now
	return &payments{st: st, ledger: ledger, provider: p}, nil
}

// at is the provider as of t: what it makes is dated then.
func (p *payments) at(t time.Time) *payment.TestProvider {
	then := *p.provider
	then.Now = func() time.Time { return t }
	return &then
}

// refunds refund through the test provider, and through the legacy test
// gateway the charges of a demo loaded before the provider existed.
func (p *payments) refunds() payment.CardRefunds {
	return payment.NewCardRefunds(payment.NewProviders(p.provider), payment.NewTestGateway(p.st))
}

// customer is c's customer at the test provider, made at t the first
// time c pays and kept on c, as the shop keeps it (the same key as the
// shop's, so both name one customer).
func (p *payments) customer(ctx context.Context, c store.Customer, t time.Time) (string, error) {
	if ref := c.ProviderCustomers[payment.ProviderTest]; ref != "" {
		return ref, nil
	}
	ref, err := p.at(t).EnsureCustomer(ctx, payment.CustomerRequest{CustomerID: c.ID, Email: c.Email, Name: c.Name, Key: "customer-" + c.ID})
	if err != nil {
		return "", fmt.Errorf("demo customer %s at the test provider: %w", c.Email, err)
	}
	return p.st.KeepProviderCustomer(ctx, c.ID, payment.ProviderTest, ref)
}

// payOnPage opens the provider's hosted page at t as req asks and pays it
// with the demo's card: the session as it ends, paid (and the card saved,
// if asked). Run again with the same key, it is the session paid before.
func (p *payments) payOnPage(ctx context.Context, t time.Time, req payment.CheckoutRequest) (store.TestPaySession, error) {
	pr := p.at(t)
	req.ExpiresAt = t.Add(30 * time.Minute)
	cs, err := pr.StartCheckout(ctx, req)
	if err != nil {
		return store.TestPaySession{}, err
	}
	s, err := pr.PayCheckout(ctx, cs.ID, demoCardForm)
	if err != nil && !errors.Is(err, payment.ErrCheckoutComplete) {
		return s, fmt.Errorf("pay session %s: %w", cs.ID, err)
	}
	return s, nil
}

// orderCard is the card the demo's orders were paid with, as their
// invoices name it.
var orderCard = store.Card{Brand: "Visa", Last4: "4242", Provider: payment.ProviderTest}

// payOrder pays a past order's card part on the provider's page when it
// was placed, as its buyer did (store.PastCardPayer): once per order
// number, however often it is asked.
func (p *payments) payOrder(ctx context.Context, o store.PastOrder, amount store.Money) (store.PastCardPayment, error) {
	cs, err := p.payOnPage(ctx, o.PlacedAt, payment.CheckoutRequest{
		Mode: payment.ModePayment, Amount: amount, Description: "Order " + o.Number, SuccessURL: paths.Orders, CancelURL: paths.Orders,
		Key: "demo-order-" + o.Number, Metadata: map[string]string{metaDemo: "order", "order_number": o.Number},
	})
	if err != nil {
		return store.PastCardPayment{}, err
	}
	if cs.Status != payment.SessionComplete || cs.PaymentRef == "" {
		return store.PastCardPayment{}, fmt.Errorf("session %s of order %s is %s, not paid", cs.ID, o.Number, cs.Status)
	}
	return store.PastCardPayment{Provider: payment.ProviderTest, Ref: cs.PaymentRef}, nil
}

// payOffSession charges a saved card at t, as a renewal does: the payment
// made under key and confirmed. Run again, it reads the payment made before.
func (p *payments) payOffSession(ctx context.Context, t time.Time, card store.Card, req payment.PaymentRequest) (string, error) {
	pr := p.at(t)
	req.CustomerRef, req.MethodRef = card.Customer, card.Token
	pi, err := pr.CreatePayment(ctx, req)
	if err != nil {
		return "", err
	}
	if pi, err = pr.ConfirmPayment(ctx, pi.ID); err != nil {
		return "", fmt.Errorf("confirm payment %s: %w", pi.ID, err)
	}
	return pi.ID, nil
}

// delivered marks the events the demo's payments made as delivered when
// they were made, as they were: none waits for the webhook.
func (p *payments) delivered(ctx context.Context) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for _, ev := range p.ledger.take() {
		ev.Attempts, ev.DeliveredAt = 1, ev.Created
		g.Go(func() error { return p.st.MarkTestPayEvent(gctx, ev) })
	}
	return g.Wait()
}

// eventLog is the test provider's ledger (the shop's table) noting each
// event its writes made, for delivered.
type eventLog struct {
	*store.Store
	mu     sync.Mutex
	events []store.TestPayEvent
}

func (l *eventLog) note(ev *store.TestPayEvent, err error) {
	if ev == nil || err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, *ev)
}

func (l *eventLog) take() []store.TestPayEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.events
	l.events = nil
	return out
}

func (l *eventLog) ChangeTestPaySession(ctx context.Context, ch store.TestPaySessionChange) (store.TestPaySession, error) {
	s, err := l.Store.ChangeTestPaySession(ctx, ch)
	l.note(ch.Event, err)
	return s, err
}

func (l *eventLog) ExpireTestPaySession(ctx context.Context, s store.TestPaySession, ev store.TestPayEvent) (store.TestPaySession, error) {
	got, err := l.Store.ExpireTestPaySession(ctx, s, ev)
	l.note(&ev, err)
	return got, err
}

func (l *eventLog) MoveTestPayIntent(ctx context.Context, pi store.TestPayIntent, from string, ev *store.TestPayEvent) (store.TestPayIntent, error) {
	got, err := l.Store.MoveTestPayIntent(ctx, pi, from, ev)
	l.note(ev, err)
	return got, err
}

func (l *eventLog) PutTestPayRefund(ctx context.Context, r store.TestPayRefund, ev store.TestPayEvent) (store.TestPayRefund, error) {
	got, err := l.Store.PutTestPayRefund(ctx, r, ev)
	l.note(&ev, err)
	return got, err
}
