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

// Pay pays a held order's card part on its hosted page (opened once per
// order, as the shop does) and places it with that payment, as the
// provider's webhook would. Paid already (a double submit racing this
// one): the order as the first payment placed it.
func (p *Payer) Pay(ctx context.Context, o store.Order, confirmation func(store.Order, []store.OrderItem) store.Mail) (store.Order, error) {
	cs, err := p.Provider.StartCheckout(ctx, payment.CheckoutRequest{
		Mode: payment.ModePayment, Amount: o.Hold.Card, Description: "Order " + o.Number, ExpiresAt: o.Hold.Until,
		SuccessURL: "http://shop.test/orders/" + o.ID, CancelURL: "http://shop.test/orders/" + o.ID,
		Key: payment.CheckoutKey(o.ID), Metadata: map[string]string{payment.MetaOrder: o.ID},
	})
	if err != nil {
		return store.Order{}, fmt.Errorf("open the page of order %s: %w", o.ID, err)
	}
	if err := p.Store.AttachPaymentSession(ctx, o, payment.ProviderTest, cs.ID); err != nil {
		return store.Order{}, err
	}
	paid, err := p.Provider.PayCheckout(ctx, cs.ID, p.Card)
	if errors.Is(err, payment.ErrCheckoutComplete) {
		paid, err = p.Provider.Session(ctx, cs.ID) // a twin paid it: place it with that payment
	}
	if err != nil {
		return store.Order{}, err
	}
	res := store.PaymentResult{Provider: payment.ProviderTest, EventID: "evt_paytest_" + cs.ID, PaymentRef: paid.PaymentRef,
		Amount: paid.Amount, Confirmation: confirmation}
	if paid.Card != nil {
		res.Brand, res.Last4 = paid.Card.Brand, paid.Card.Last4
	}
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

// Subscribe is a customer's "Subscribe" with a new card: the subscribe
// is planned and pended with its hosted page (payment mode saving the
// card, or setup mode when the first days are free), paid there with
// p.Card, and started with that payment and the saved card, as the
// provider's event starts it. The same key again answers the one
// subscription (and no receipt), as the store does; a card the page
// refuses fails nothing and answers the card's error.
func (p *Payer) Subscribe(ctx context.Context, req store.SubscribeRequest) (store.Subscription, store.Receipt, error) {
	plan, err := p.Store.PlanSubscribe(req)
	if err != nil {
		return store.Subscription{}, store.Receipt{}, err
	}
	if cur, err := p.Store.PendingSubscribe(ctx, req.CustomerID, req.Key); err == nil {
		return p.standing(ctx, cur)
	} else if !errors.Is(err, store.ErrNotFound) {
		return store.Subscription{}, store.Receipt{}, err
	}
	ref, err := p.Provider.EnsureCustomer(ctx, payment.CustomerRequest{CustomerID: req.CustomerID, Email: req.Email, Key: "customer-" + req.CustomerID})
	if err != nil {
		return store.Subscription{}, store.Receipt{}, err
	}
	key := "subscribe-" + req.CustomerID + "-" + req.Key
	page := payment.CheckoutRequest{
		Mode: payment.ModePayment, Amount: plan.Charge, Description: plan.ProductName, CustomerRef: ref, SaveCard: true,
		ExpiresAt: p.Store.Now().Add(time.Hour), SuccessURL: "http://shop.test/subscriptions", CancelURL: "http://shop.test/subscriptions",
		Key: key, Metadata: map[string]string{payment.MetaFor: payment.ForSubscribe, payment.MetaCustomer: req.CustomerID, payment.MetaSubscribeKey: req.Key},
	}
	if plan.Charge.Amount <= 0 {
		page.Mode = payment.ModeSetup
	}
	cs, err := p.Provider.StartCheckout(ctx, page)
	if err != nil {
		return store.Subscription{}, store.Receipt{}, err
	}
	plan.Provider, plan.Session = payment.ProviderTest, cs.ID
	pending, err := p.Store.PendSubscribe(ctx, plan)
	if errors.Is(err, store.ErrConflict) {
		return p.standing(ctx, pending) // a twin pended it first
	}
	if err != nil {
		return store.Subscription{}, store.Receipt{}, err
	}
	paid, err := p.Provider.PayCheckout(ctx, cs.ID, p.Card)
	if err != nil {
		return store.Subscription{}, store.Receipt{}, err
	}
	if paid.MethodRef == "" || paid.Card == nil {
		return store.Subscription{}, store.Receipt{}, fmt.Errorf("session %s saved no card", cs.ID)
	}
	saved := payment.SavedMethod{Provider: payment.ProviderTest, Ref: paid.MethodRef, Brand: paid.Card.Brand, Last4: paid.Card.Last4,
		ExpMonth: paid.Card.ExpMonth, ExpYear: paid.Card.ExpYear}
	card := saved.Card(ref)
	sub, rec, err := p.Store.StartSubscription(ctx, pending, store.PaidStart{Payment: paid.PaymentRef, Amount: plan.Charge, Card: &card})
	if errors.Is(err, store.ErrSubscribeSettled) {
		return p.standingNow(ctx, req.CustomerID, req.Key)
	}
	return sub, rec, err
}

func (p *Payer) standingNow(ctx context.Context, customerID, key string) (store.Subscription, store.Receipt, error) {
	cur, err := p.Store.PendingSubscribe(ctx, customerID, key)
	if err != nil {
		return store.Subscription{}, store.Receipt{}, err
	}
	return p.standing(ctx, cur)
}

// standing is a subscribe written already: its subscription once started.
func (p *Payer) standing(ctx context.Context, cur store.PendingSubscribe) (store.Subscription, store.Receipt, error) {
	if cur.Status != store.SubscribeStarted {
		return store.Subscription{}, store.Receipt{}, fmt.Errorf("subscribe %s is %s: %w", cur.Key, cur.Status, store.ErrConflict)
	}
	sub, err := p.Store.SubscriptionConsistent(ctx, cur.CustomerID, cur.SubscriptionID)
	return sub, store.Receipt{}, err
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
