// Package paytest pays, for tests of every package, as the served shop
// does: an order is held (store.HoldCheckout), its card part paid on the
// built-in test provider's hosted page and placed with that payment
// (store.PlaceHeldOrder, as the webhook does); a subscription is pended
// with its hosted page (store.PendSubscribe), paid there (the card saved)
// and started (store.StartSubscription). Every card payment is thus in
// the test provider's ledger, where refunds find it.
//
// It is a package of its own, not storetest, because storetest is
// imported by store/payment's own tests, and this imports store/payment.
package paytest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"

	"shop/store"
	"shop/store/payment"
	"shop/store/storetest"
)

// Payer pays through the test provider over a store's table, on the
// store's clock.
type Payer struct {
	Store    *store.Store
	Provider *payment.TestProvider
	// Card is what the customer types on the hosted page: the test
	// provider's Visa that pays, unless a test sets another.
	Card payment.CardForm
}

// SucceedingCard is the test provider's Visa that pays.
var SucceedingCard = payment.CardForm{Number: payment.CardSucceeds, Expiry: "12/99", CVC: "123"}

// New is a payer over st, on st's clock.
func New(t testing.TB, st *store.Store) *Payer {
	t.Helper()
	p, err := payment.NewTestProvider(context.Background(), st, "http://shop.test")
	if err != nil {
		t.Fatal(err)
	}
	p.Now = st.Now
	return &Payer{Store: st, Provider: p, Card: SucceedingCard}
}

// holdFor is how long a hold waits when the request does not say.
const holdFor = 30 * time.Minute

// Checkout is a customer's "Place order" and payment: req is held
// (req.HoldFor, default 30 minutes) and, unless the gift card and code
// paid it all (placed at once), its card part is paid with p.Card and the
// order placed with that payment, its confirmation req.Confirmation. A
// card the page refuses leaves the order held and answers the card's
// error. The same key again answers the one order, as the store does.
func (p *Payer) Checkout(ctx context.Context, req store.CheckoutRequest) (store.Order, error) {
	req.HoldFor = cmp.Or(req.HoldFor, holdFor)
	o, err := p.Store.HoldCheckout(ctx, req)
	if err != nil || o.Status != store.OrderAwaitingPayment {
		return o, err
	}
	return p.Pay(ctx, o, req.Confirmation)
}

// Pay pays a held order's card part on its hosted page and places it with
// that payment, as the provider's webhook would (PayOnPage, then
// store.PlaceHeldOrder). Paid already (a double submit racing this one):
// the order as the first payment placed it.
func (p *Payer) Pay(ctx context.Context, o store.Order, confirmation store.ConfirmationMail) (store.Order, error) {
	res, err := p.PayOnPage(ctx, o)
	if errors.Is(err, store.ErrOrderPaid) { // a twin placed it before this one opened its page
		d, err := p.Store.OrderDetails(ctx, o.ID)
		return d.Order, err
	}
	if err != nil {
		return store.Order{}, err
	}
	res.Confirmation = confirmation
	applied, err := p.Store.PlaceHeldOrder(ctx, o.ID, res)
	if err != nil {
		return store.Order{}, err
	}
	if applied.Duplicate {
		d, err := p.Store.OrderDetails(ctx, o.ID)
		return d.Order, err
	}
	return applied.Order, nil
}

// PayOnPage opens a held order's hosted page (once per order, as the shop
// does), records it on the order and pays it with p.Card: the payment as
// its event reports it, for store.PlaceHeldOrder. A page a twin paid
// first answers that payment; an order a twin placed already,
// store.ErrOrderPaid.
func (p *Payer) PayOnPage(ctx context.Context, o store.Order) (store.PaymentResult, error) {
	cs, err := p.Provider.StartCheckout(ctx, payment.CheckoutRequest{
		Mode: payment.ModePayment, Amount: o.Hold.Card, Description: "Order " + o.Number, ExpiresAt: o.Hold.Until,
		SuccessURL: "http://shop.test/orders/" + o.ID, CancelURL: "http://shop.test/orders/" + o.ID,
		Key: payment.CheckoutKey(o.ID), Metadata: map[string]string{payment.MetaOrder: o.ID},
	})
	if err != nil {
		return store.PaymentResult{}, fmt.Errorf("open the page of order %s: %w", o.ID, err)
	}
	if err := p.Store.AttachPaymentSession(ctx, o, payment.ProviderTest, cs.ID); err != nil {
		return store.PaymentResult{}, err
	}
	paid, err := p.paySession(ctx, cs.ID)
	if err != nil {
		return store.PaymentResult{}, err
	}
	res := store.PaymentResult{Provider: payment.ProviderTest, EventID: "evt_paytest_" + cs.ID, PaymentRef: paid.PaymentRef, Amount: paid.Amount}
	if paid.Card != nil {
		res.Brand, res.Last4 = paid.Card.Brand, paid.Card.Last4
	}
	return res, nil
}

// paySession pays a hosted page with p.Card; one a twin paid first is
// read as it was paid.
func (p *Payer) paySession(ctx context.Context, id string) (store.TestPaySession, error) {
	paid, err := p.Provider.PayCheckout(ctx, id, p.Card)
	if errors.Is(err, payment.ErrCheckoutComplete) {
		return p.Provider.Session(ctx, id)
	}
	return paid, err
}

// Subscribe is a customer's "Subscribe" with a new card: the subscribe
// is planned and pended with its hosted page (payment mode saving the
// card, or setup mode when the first days are free), paid there with
// p.Card, and started with that payment and the saved card, as the
// provider's event starts it. The same key again answers the one
// subscription (and no receipt), as a twin submission gets it; a card the page
// refuses starts nothing, leaves the subscribe pending and answers the
// card's error.
func (p *Payer) Subscribe(ctx context.Context, req store.SubscribeRequest) (store.Subscription, store.Receipt, error) {
	plan, err := p.Store.PlanSubscribe(req)
	if err != nil {
		return store.Subscription{}, store.Receipt{}, err
	}
	pending, err := p.Store.PendingSubscribe(ctx, req.CustomerID, req.Key)
	switch {
	case errors.Is(err, store.ErrNotFound):
		if pending, err = p.pend(ctx, plan, req); err != nil {
			return store.Subscription{}, store.Receipt{}, err
		}
	case err != nil:
		return store.Subscription{}, store.Receipt{}, err
	}
	if pending.Status != store.SubscribePending {
		return p.standing(ctx, pending)
	}
	// Pending (this submission's, or a twin's): pay its page.
	paid, err := p.paySession(ctx, pending.Session)
	if err != nil {
		return store.Subscription{}, store.Receipt{}, err
	}
	if paid.MethodRef == "" || paid.Card == nil {
		return store.Subscription{}, store.Receipt{}, fmt.Errorf("session %s saved no card", paid.ID)
	}
	saved := payment.SavedMethod{Provider: payment.ProviderTest, Ref: paid.MethodRef, Brand: paid.Card.Brand, Last4: paid.Card.Last4,
		ExpMonth: paid.Card.ExpMonth, ExpYear: paid.Card.ExpYear}
	card := saved.Card(paid.CustomerRef)
	sub, rec, err := p.Store.StartSubscription(ctx, pending, store.PaidStart{Payment: paid.PaymentRef, Amount: pending.Charge, Card: &card})
	if errors.Is(err, store.ErrSubscribeSettled) { // a twin started it
		cur, err := p.Store.PendingSubscribe(ctx, req.CustomerID, req.Key)
		if err != nil {
			return store.Subscription{}, store.Receipt{}, err
		}
		return p.standing(ctx, cur)
	}
	return sub, rec, err
}

// pend opens a planned subscribe's hosted page (payment mode saving the
// card; setup mode when nothing is charged) and writes it pending: the
// subscribe as written, a twin's if it was first.
func (p *Payer) pend(ctx context.Context, plan store.PendingSubscribe, req store.SubscribeRequest) (store.PendingSubscribe, error) {
	ref, err := p.Provider.EnsureCustomer(ctx, payment.CustomerRequest{CustomerID: req.CustomerID, Email: req.Email, Key: "customer-" + req.CustomerID})
	if err != nil {
		return store.PendingSubscribe{}, err
	}
	page := payment.CheckoutRequest{
		Mode: payment.ModePayment, Amount: plan.Charge, Description: plan.ProductName, CustomerRef: ref, SaveCard: true,
		ExpiresAt: p.Store.Now().Add(time.Hour), SuccessURL: "http://shop.test/subscriptions", CancelURL: "http://shop.test/subscriptions",
		Key:      "subscribe-" + req.CustomerID + "-" + req.Key,
		Metadata: map[string]string{payment.MetaFor: payment.ForSubscribe, payment.MetaCustomer: req.CustomerID, payment.MetaSubscribeKey: req.Key},
	}
	if plan.Charge.Amount <= 0 {
		page.Mode = payment.ModeSetup
	}
	cs, err := p.Provider.StartCheckout(ctx, page)
	if err != nil {
		return store.PendingSubscribe{}, err
	}
	plan.Provider, plan.Session = payment.ProviderTest, cs.ID
	pending, err := p.Store.PendSubscribe(ctx, plan)
	if errors.Is(err, store.ErrConflict) {
		return pending, nil // a twin pended it first: its page is this one
	}
	return pending, err
}

// standing is a subscribe settled already: its subscription once
// started (and no receipt, as a twin submission gets).
func (p *Payer) standing(ctx context.Context, cur store.PendingSubscribe) (store.Subscription, store.Receipt, error) {
	if cur.Status != store.SubscribeStarted {
		return store.Subscription{}, store.Receipt{}, fmt.Errorf("subscribe %s is %s: %w", cur.Key, cur.Status, store.ErrConflict)
	}
	sub, err := p.Store.SubscriptionConsistent(ctx, cur.CustomerID, cur.SubscriptionID)
	return sub, store.Receipt{}, err
}

// PayPast pays a past order's card part on the provider's hosted page, as
// the demo's seeding does (a store.PastCardPayer): once per order number.
func (p *Payer) PayPast(ctx context.Context, o store.PastOrder, amount store.Money) (store.PastCardPayment, error) {
	cs, err := p.Provider.StartCheckout(ctx, payment.CheckoutRequest{Mode: payment.ModePayment, Amount: amount, Description: "Order " + o.Number,
		ExpiresAt: p.Store.Now().Add(time.Hour), SuccessURL: "http://shop.test/orders", CancelURL: "http://shop.test/orders", Key: "past-order-" + o.Number,
		Metadata: map[string]string{"order_number": o.Number}})
	if err != nil {
		return store.PastCardPayment{}, err
	}
	paid, err := p.paySession(ctx, cs.ID)
	if err != nil {
		return store.PastCardPayment{}, err
	}
	return store.PastCardPayment{Provider: payment.ProviderTest, Ref: paid.PaymentRef}, nil
}

// Renew charges a due subscription's period (its intent's) off-session
// with its saved card, as the payments job does: the payment made under
// the intent's key and confirmed, as the charge its receipt records.
func (p *Payer) Renew(ctx context.Context, due store.Subscription) (store.GatewayCharge, error) {
	key := due.Intent.Key(due.ID)
	pi, err := p.Provider.CreatePayment(ctx, payment.PaymentRequest{Amount: due.AmountFor(due.Intent.Period), CustomerRef: due.Card.Customer,
		MethodRef: due.Card.Token, Description: due.ProductName, Key: key})
	if err != nil {
		return store.GatewayCharge{}, err
	}
	if pi, err = p.Provider.ConfirmPayment(ctx, pi.ID); err != nil {
		return store.GatewayCharge{}, err
	}
	return store.GatewayCharge{Key: key, ID: pi.ID, Amount: pi.Amount, At: p.Store.Now().UTC().Truncate(time.Millisecond),
		Outcome: "ok", Provider: payment.ProviderTest}, nil
}

// Payments reads the test provider's ledger in env's table: how many
// payments it took (succeeded), and what they hold net of their refunds.
// Every card-paid order and subscription payment is one of them.
func Payments(t testing.TB, env storetest.Env) (n int, net int64) {
	t.Helper()
	for _, it := range env.Items(t) {
		var r struct {
			EntityType string
			Status     string
			Amount     int64
			Refunded   int64
		}
		if err := attributevalue.UnmarshalMap(it, &r); err != nil {
			t.Fatal(err)
		}
		if r.EntityType != "testPayIntent" || r.Status != payment.PaymentSucceeded {
			continue
		}
		n++
		net += r.Amount - r.Refunded
	}
	return n, net
}

// Refunds refunds through p's test provider, and through the legacy test
// gateway the ch_ charges of older tables, as the served shop does.
func (p *Payer) Refunds() store.Refunder {
	return payment.NewCardRefunds(payment.NewProviders(p.Provider), payment.NewTestGateway(p.Store))
}

// ProviderRefunds reads the test provider's ledger in env's table: how
// many refunds it made and their sum.
func ProviderRefunds(t testing.TB, env storetest.Env) (n int, sum int64) {
	t.Helper()
	for _, it := range env.Items(t) {
		var r struct {
			EntityType string
			Amount     int64
		}
		if err := attributevalue.UnmarshalMap(it, &r); err != nil {
			t.Fatal(err)
		}
		if r.EntityType == "testPayRefund" {
			n++
			sum += r.Amount
		}
	}
	return n, sum
}

// Flaky is a card refunder whose bank does not answer while Fail is set:
// each refund asked of it then fails with that error, as a network's
// would (the refund waits for a retry); it counts the refunds asked.
type Flaky struct {
	Refunds store.Refunder
	mu      sync.Mutex
	failing error
	calls   int
}

// Fail makes every refund fail with err from now on; nil: they go through.
func (f *Flaky) Fail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failing = err
}

// Calls is how many refunds were asked of it.
func (f *Flaky) Calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// RefundCard is store.Refunder's.
func (f *Flaky) RefundCard(ctx context.Context, r store.CardRefund) (store.CardRefundAnswer, error) {
	f.mu.Lock()
	f.calls++
	failing := f.failing
	f.mu.Unlock()
	if failing != nil {
		return store.CardRefundAnswer{}, failing
	}
	return f.Refunds.RefundCard(ctx, r)
}

// LegacyCard is a card as the old test gateway tokenised it, before cards
// were typed on the test provider's page: a subscription an older version
// kept holds its token, and the payments job renews it through the
// gateway (payment.TestGateway.ChargeAt). number is one of payment's test
// cards (CardDeclined declines every charge, and so on), expiry its
// MM/YY.
func LegacyCard(t testing.TB, ledger payment.Ledger, number, expiry string) store.Card {
	t.Helper()
	expires, err := payment.ParseExpiry(expiry)
	if err != nil {
		t.Fatal(err)
	}
	outcome := map[string]string{payment.CardDeclined: "declined", payment.CardInsufficientFunds: "insufficient_funds",
		payment.CardProcessingError: "processing_error"}[number]
	brand := "Visa"
	if number[0] == '5' {
		brand = "Mastercard"
	}
	c := store.GatewayCard{Token: "tok_" + store.NewID(), Brand: brand, Last4: number[len(number)-4:], Outcome: cmp.Or(outcome, payment.OutcomeOK),
		Expires: expires}
	if err := ledger.PutGatewayCard(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	return store.Card{Token: c.Token, Brand: c.Brand, Last4: c.Last4}
}
