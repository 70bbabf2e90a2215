package jobs

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"shop/store"
	"shop/store/payment"
	"shop/views/mail"
	"shop/web/paths"
)

// SubscriptionPaymentStore is what subscriptions paid through a card
// provider read and write (store.Store).
type SubscriptionPaymentStore interface {
	Now() time.Time
	Today() time.Time
	KeepProviderCustomer(ctx context.Context, customerID, provider, ref string) (string, error)
	PendSubscribe(ctx context.Context, p store.PendingSubscribe) (store.PendingSubscribe, error)
	PendingSubscribe(ctx context.Context, customerID, key string) (store.PendingSubscribe, error)
	PendingSubscribes(ctx context.Context, before time.Time, limit int) ([]store.PendingSubscribe, error)
	StartSubscription(ctx context.Context, p store.PendingSubscribe, paid store.PaidStart) (store.Subscription, store.Receipt, error)
	FailSubscribe(ctx context.Context, p store.PendingSubscribe, eventID string) error
	Subscription(ctx context.Context, customerID, id string) (store.Subscription, error)
	SubscriptionConsistent(ctx context.Context, customerID, id string) (store.Subscription, error)
	CompleteProviderPayment(ctx context.Context, sub store.Subscription, charge store.GatewayCharge, today time.Time, mail func(store.Receipt) *store.Mail, eventID string) (store.Subscription, store.Receipt, error)
	SetIntentSession(ctx context.Context, sub store.Subscription, session string) (store.Subscription, error)
	ChangeSubscription(ctx context.Context, customerID, id string, version int, change store.SubscriptionChange) (store.Subscription, error)
	SwapNowCharged(ctx context.Context, plan store.SwapNowPlan, charge store.GatewayCharge, mail func(store.Receipt) *store.Mail) (store.SwappedNow, error)
	WaitSwapNow(ctx context.Context, plan store.SwapNowPlan, provider, payment string) (store.SwapWaiting, error)
	SwapWaitingFor(ctx context.Context, customerID, key string) (store.SwapWaiting, error)
	SwapNowConfirmed(ctx context.Context, w store.SwapWaiting, charge store.GatewayCharge, mail func(store.Receipt) *store.Mail) (store.SwappedNow, error)
	DropSwapWaiting(ctx context.Context, w store.SwapWaiting) error
	SwapWaitGivenBack(ctx context.Context, w store.SwapWaiting, mail *store.Mail) error
	ChangeReceiptPaidBy(ctx context.Context, customerID, paid string, since time.Time) (store.Receipt, error)
	PutMail(ctx context.Context, m store.Mail) error
}

// SubscriptionPayments moves subscriptions' money through the card
// providers: a new subscriber's first payment on the provider's hosted page
// (or a kept card's payment), a new card in setup mode, a period the bank
// wants its holder to confirm, and the events and reconcile that start or
// pay them. The shop never sees a card number: it keeps the provider's
// saved method (brand, last four, expiry).
type SubscriptionPayments struct {
	Store     SubscriptionPaymentStore
	Providers payment.Providers
	// BaseURL is the shop's address, for the provider's return links and
	// the receipts' mails.
	BaseURL string
	// SessionTTL is how long a hosted page stays open (default an hour).
	SessionTTL time.Duration
}

// ErrNoCardProvider: the shop has no card provider for new payments.
var ErrNoCardProvider = errors.New("no card provider takes new payments")

func (sp *SubscriptionPayments) active() (payment.Provider, error) {
	if p := sp.Providers.Active(); p != nil {
		return p, nil
	}
	return nil, ErrNoCardProvider
}

// ActiveProvider names the provider new payments and cards go to.
func (sp *SubscriptionPayments) ActiveProvider() string {
	if p := sp.Providers.Active(); p != nil {
		return p.Name()
	}
	return ""
}

func (sp *SubscriptionPayments) url(path string) string { return link(sp.BaseURL, path) }

func (sp *SubscriptionPayments) mail(rec store.Receipt) *store.Mail {
	return mail.Receipt(sp.BaseURL, sp.Store.Now(), rec)
}

// trialStarted is the mail of a subscription started with a free trial,
// written with its receipt (nothing charged).
func (sp *SubscriptionPayments) trialStarted(s store.Subscription, rec store.Receipt) *store.Mail {
	return mail.TrialStarted(sp.BaseURL, sp.Store.Now(), s, rec)
}

// ProviderCustomer is the customer's customer at the provider: made the
// first time they pay by card (once, by its key), then kept on the
// customer.
func (sp *SubscriptionPayments) ProviderCustomer(ctx context.Context, p payment.Provider, c store.Customer) (string, error) {
	if ref := c.ProviderCustomers[p.Name()]; ref != "" {
		return ref, nil
	}
	ref, err := p.EnsureCustomer(ctx, payment.CustomerRequest{CustomerID: c.ID, Email: c.Email, Name: c.Name, Key: "customer-" + c.ID})
	if err != nil {
		return "", err
	}
	return sp.Store.KeepProviderCustomer(ctx, c.ID, p.Name(), ref)
}

// CardOf is a saved method as a subscription keeps it.
func CardOf(m payment.SavedMethod, customerRef string) store.Card {
	return m.Card(customerRef)
}

func subscribeMeta(p store.PendingSubscribe) map[string]string {
	return map[string]string{payment.MetaFor: payment.ForSubscribe, payment.MetaCustomer: p.CustomerID, payment.MetaSubscribeKey: p.Key}
}

// Started is where a subscribe stands after asking the provider: started
// (Subscription set), waiting for the customer on the provider's page
// (Redirect), or still waiting on the provider's word (neither).
type Started struct {
	Pending      store.PendingSubscribe
	Subscription *store.Subscription
	Receipt      store.Receipt
	Redirect     string
}

// SubscribeWithNewCard opens the provider's hosted page for a planned
// subscribe: payment mode for its first charge, keeping the card for the
// renewals (off-session), or setup mode when its first days are free. The
// subscribe is written pending with its session; the subscription starts
// when the session completes. A double submit (the same form key) gets
// the same page, or the subscription it started.
func (sp *SubscriptionPayments) SubscribeWithNewCard(ctx context.Context, plan store.PendingSubscribe, c store.Customer) (Started, error) {
	prov, err := sp.active()
	if err != nil {
		return Started{}, err
	}
	if cur, err := sp.Store.PendingSubscribe(ctx, c.ID, plan.Key); err == nil {
		return sp.standing(ctx, cur)
	} else if !errors.Is(err, store.ErrNotFound) {
		return Started{}, err
	}
	ref, err := sp.ProviderCustomer(ctx, prov, c)
	if err != nil {
		return Started{}, err
	}
	req := payment.CheckoutRequest{
		Mode: payment.ModePayment, Amount: plan.Charge, Description: plan.ProductName, CustomerRef: ref, SaveCard: true,
		ExpiresAt: sp.Store.Now().Add(sp.sessionTTL()), SuccessURL: sp.url(paths.WithQuery(paths.Subscriptions, "subscribe", plan.Key)),
		CancelURL: sp.url(paths.Product(plan.ProductID)), Key: "subscribe-" + c.ID + "-" + plan.Key, Metadata: subscribeMeta(plan),
	}
	if plan.Charge.Amount <= 0 {
		req.Mode = payment.ModeSetup
	}
	cs, err := prov.StartCheckout(ctx, req)
	if err != nil {
		return Started{}, err
	}
	plan.Provider, plan.Session = prov.Name(), cs.ID
	p, err := sp.Store.PendSubscribe(ctx, plan)
	if errors.Is(err, store.ErrConflict) {
		return sp.standing(ctx, p)
	}
	if err != nil {
		return Started{}, err
	}
	return Started{Pending: p, Redirect: cs.URL}, nil
}

func (sp *SubscriptionPayments) sessionTTL() time.Duration {
	if sp.SessionTTL > 0 {
		return sp.SessionTTL
	}
	return time.Hour
}

// standing is a subscribe written already: its subscription once
// started, its page while open.
func (sp *SubscriptionPayments) standing(ctx context.Context, p store.PendingSubscribe) (Started, error) {
	out := Started{Pending: p}
	switch {
	case p.Status == store.SubscribeStarted:
		sub, err := sp.Store.SubscriptionConsistent(ctx, p.CustomerID, p.SubscriptionID)
		if err != nil {
			return out, err
		}
		out.Subscription = &sub
	case p.Status == store.SubscribePending && p.Session != "":
		prov, err := sp.Providers.For(p.Provider)
		if err != nil {
			return out, err
		}
		cs, err := prov.RetrieveCheckout(ctx, p.Session)
		if err != nil {
			return out, err
		}
		out.Redirect = cs.URL
	}
	return out, nil
}

// SubscribeWithKeptCard pays a planned subscribe with a card the provider
// saved for the customer, in one step: the payment is made unconfirmed
// with its key in its metadata, the subscribe written pending with its id,
// then confirmed, and the subscription started. A bank that asks its
// holder to confirm sends the customer to its page (Redirect; the return
// is the subscription's page) and the subscription starts on the event. A
// decline fails the subscribe and answers the card's error. Free first
// days charge nothing: the subscription starts at once.
func (sp *SubscriptionPayments) SubscribeWithKeptCard(ctx context.Context, plan store.PendingSubscribe, card store.Card) (Started, error) {
	prov, err := sp.active()
	if err != nil {
		return Started{}, err
	}
	if card.Provider != prov.Name() {
		return Started{}, fmt.Errorf("card %s is %s's, new payments go to %s: %w", card.Label(), card.Provider, prov.Name(), ErrCardElsewhere)
	}
	if cur, err := sp.Store.PendingSubscribe(ctx, plan.CustomerID, plan.Key); err == nil {
		return sp.standing(ctx, cur)
	} else if !errors.Is(err, store.ErrNotFound) {
		return Started{}, err
	}
	plan.Provider, plan.Card = prov.Name(), card
	if plan.Charge.Amount > 0 {
		key := "subscribe-" + plan.CustomerID + "-" + plan.Key
		meta := subscribeMeta(plan)
		meta[payment.MetaKey] = key
		pi, err := prov.CreatePayment(ctx, payment.PaymentRequest{Amount: plan.Charge, CustomerRef: card.Customer, MethodRef: card.Token,
			Description: plan.ProductName, Key: key, ReturnURL: sp.url(paths.WithQuery(paths.Subscriptions, "subscribe", plan.Key)), Metadata: meta})
		if err != nil {
			return Started{}, err
		}
		plan.Payment = pi.ID
	}
	p, err := sp.Store.PendSubscribe(ctx, plan)
	if errors.Is(err, store.ErrConflict) {
		return sp.standing(ctx, p)
	}
	if err != nil {
		return Started{}, err
	}
	if p.Payment == "" {
		return sp.start(ctx, p, store.PaidStart{}, "")
	}
	pi, err := prov.ConfirmPayment(ctx, p.Payment)
	switch {
	case errors.Is(err, payment.ErrAuthenticationRequired) && pi.RedirectURL != "":
		return Started{Pending: p, Redirect: pi.RedirectURL}, nil
	case err != nil && isDecline(err):
		if ferr := sp.Store.FailSubscribe(ctx, p, ""); ferr != nil && !errors.Is(ferr, store.ErrSubscribeSettled) {
			return Started{}, ferr
		}
		return Started{Pending: p}, err
	case err != nil:
		return Started{Pending: p}, err // unknown: the reconcile reads the payment by its id
	}
	return sp.start(ctx, p, store.PaidStart{Payment: pi.ID, Amount: pi.Amount}, "")
}

// ErrCardElsewhere: a kept card belongs to a provider new payments do not
// go to.
var ErrCardElsewhere = errors.New("that card was saved with a card provider the shop no longer charges: add a new card")

func isDecline(err error) bool {
	return errors.Is(err, payment.ErrDeclined) || errors.Is(err, payment.ErrInsufficientFunds) ||
		errors.Is(err, payment.ErrProcessing) || errors.Is(err, payment.ErrAuthenticationRequired) ||
		errors.Is(err, payment.ErrExpired)
}

// start starts a pending subscribe as paid; one settled already answers
// as it stands.
func (sp *SubscriptionPayments) start(ctx context.Context, p store.PendingSubscribe, paid store.PaidStart, eventID string) (Started, error) {
	paid.EventID, paid.Mail, paid.TrialMail = eventID, sp.mail, sp.trialStarted
	sub, rec, err := sp.Store.StartSubscription(ctx, p, paid)
	if errors.Is(err, store.ErrSubscribeSettled) {
		cur, rerr := sp.Store.PendingSubscribe(ctx, p.CustomerID, p.Key)
		if rerr != nil {
			return Started{}, rerr
		}
		return sp.standing(ctx, cur)
	}
	if err != nil {
		return Started{}, err
	}
	return Started{Pending: p, Subscription: &sub, Receipt: rec}, nil
}

// metaAttempt reads a period payment's attempt from its metadata.
func metaAttempt(md map[string]string) int {
	n, _ := strconv.Atoi(md[payment.MetaAttempt])
	return n
}
