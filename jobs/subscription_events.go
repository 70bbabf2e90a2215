package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"shop/store"
	"shop/store/payment"
	"shop/web/paths"
)

// ApplySubscriptionEvent applies a card provider's verified event about a
// subscription's session or payment (payment.ForSubscription says which
// are), once per event whatever comes twice, late or beside the reconcile:
// a new subscriber's paid (or set-up) session or confirmed payment starts
// the subscription, an expired session or failed payment fails the
// subscribe, a period's payment pays the period, a new card in setup mode
// replaces the subscription's, a swap now's charge the holder confirmed at
// the bank writes the swap waiting on it (settleSwapEvent). Events about
// anything else are ignored.
// The settler of payment events (handlers.PaymentEvents) calls it.
func (sp *SubscriptionPayments) ApplySubscriptionEvent(ctx context.Context, ev payment.Event) error {
	md := payment.EventMetadata(ev)
	switch md[payment.MetaFor] {
	case payment.ForSubscribe:
		return sp.subscribeEvent(ctx, ev, md)
	case payment.ForPeriod:
		return sp.periodEvent(ctx, ev, md)
	case payment.ForChange:
		return sp.settleSwapEvent(ctx, ev, md)
	case payment.ForCard:
		if ev.Type == payment.EventCheckoutCompleted && ev.Session != nil {
			return sp.cardSaved(ctx, *ev.Session)
		}
	}
	return nil
}

// ApplyPaymentEvent is ApplySubscriptionEvent, so that it can stand as the
// webhook's PaymentEvents where subscriptions are all there is (tests).
func (sp *SubscriptionPayments) ApplyPaymentEvent(ctx context.Context, ev payment.Event) error {
	return sp.ApplySubscriptionEvent(ctx, ev)
}

func (sp *SubscriptionPayments) subscribeEvent(ctx context.Context, ev payment.Event, md map[string]string) error {
	p, err := sp.Store.PendingSubscribe(ctx, md[payment.MetaCustomer], md[payment.MetaSubscribeKey])
	if errors.Is(err, store.ErrNotFound) {
		return nil // not the shop's, or long gone
	}
	if err != nil {
		return err
	}
	switch {
	case ev.Session != nil && ev.Session.ID == p.Session && ev.Type == payment.EventCheckoutCompleted:
		return sp.settleSession(ctx, p, *ev.Session, ev.ID)
	case ev.Session != nil && ev.Session.ID == p.Session && ev.Type == payment.EventCheckoutExpired:
		return ignoreSettled(sp.Store.FailSubscribe(ctx, p, ev.ID))
	case ev.Payment != nil && ev.Payment.ID == p.Payment:
		return sp.settlePayment(ctx, p, *ev.Payment, ev.ID)
	}
	return nil
}

func ignoreSettled(err error) error {
	if errors.Is(err, store.ErrSubscribeSettled) {
		return nil
	}
	return err
}

// settleSession starts a pending subscribe whose session is paid (or its
// card saved); one still open is left, one expired fails it.
func (sp *SubscriptionPayments) settleSession(ctx context.Context, p store.PendingSubscribe, cs payment.CheckoutSession, eventID string) error {
	switch {
	case cs.Status == payment.SessionExpired:
		return ignoreSettled(sp.Store.FailSubscribe(ctx, p, eventID))
	case cs.Status != payment.SessionComplete:
		return nil
	case cs.Card == nil:
		return fmt.Errorf("session %s of subscribe %s saved no card", cs.ID, p.Key)
	}
	card := CardOf(*cs.Card, cs.CustomerRef)
	paid := store.PaidStart{Payment: cs.PaymentRef, Amount: cs.Amount, Card: &card}
	if p.Charge.Amount <= 0 {
		paid.Amount = store.Money{}
	}
	_, err := sp.start(ctx, p, paid, eventID)
	return err
}

// settlePayment starts a pending subscribe whose kept card's payment
// succeeded; a failed one fails it; one still waiting is left.
func (sp *SubscriptionPayments) settlePayment(ctx context.Context, p store.PendingSubscribe, pi payment.PaymentIntent, eventID string) error {
	switch pi.Status {
	case payment.PaymentSucceeded:
		_, err := sp.start(ctx, p, store.PaidStart{Payment: pi.ID, Amount: pi.Amount}, eventID)
		return err
	case payment.PaymentRequiresMethod, payment.PaymentCanceled:
		return ignoreSettled(sp.Store.FailSubscribe(ctx, p, eventID))
	}
	return nil
}

// periodEvent pays a period whose payment (a renewal confirmed, or the
// period paid on the hosted page after the bank asked) succeeded, if it
// is still the subscription's intent; ErrAlreadyPaid is done already.
func (sp *SubscriptionPayments) periodEvent(ctx context.Context, ev payment.Event, md map[string]string) error {
	var ref string
	var amount store.Money
	switch {
	case ev.Type == payment.EventPaymentSucceeded && ev.Payment != nil:
		ref, amount = ev.Payment.ID, ev.Payment.Amount
	case ev.Type == payment.EventCheckoutCompleted && ev.Session != nil && ev.Session.Paid:
		ref, amount = ev.Session.PaymentRef, ev.Session.Amount
	default:
		return nil // a failure: the job that confirmed it recorded it (the reconcile, if it crashed)
	}
	for range maxConflicts {
		sub, err := sp.Store.SubscriptionConsistent(ctx, md[payment.MetaCustomer], md[payment.MetaSubscription])
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		in := sub.Intent
		if in == nil {
			return nil // paid: by the job that confirmed it, the reconcile, or this event before
		}
		if store.FormatDate(in.Period) != md[payment.MetaPeriod] || in.Attempt != metaAttempt(md) {
			slog.WarnContext(ctx, "a period's payment that is not the subscription's intent", "subscription", sub.ID, "payment", ref, "event", ev.ID)
			return nil
		}
		charge := store.GatewayCharge{Key: in.Key(sub.ID), ID: ref, Amount: amount, At: sp.Store.Now(), Provider: in.Provider}
		_, _, err = sp.Store.CompleteProviderPayment(ctx, sub, charge, sp.Store.Today(), sp.mail, ev.ID)
		switch {
		case errors.Is(err, store.ErrAlreadyPaid):
			return nil // paid by the job, the reconcile or this event before
		case errors.Is(err, store.ErrConflict):
			continue // it moved: read it again
		}
		return err
	}
	return fmt.Errorf("subscription %s kept changing: %w", md[payment.MetaSubscription], store.ErrConflict)
}

// cardSaved puts the card a setup session saved on its subscription.
func (sp *SubscriptionPayments) cardSaved(ctx context.Context, cs payment.CheckoutSession) error {
	if cs.Status != payment.SessionComplete || cs.Card == nil {
		return nil
	}
	md := cs.Metadata
	sub, err := sp.Store.SubscriptionConsistent(ctx, md[payment.MetaCustomer], md[payment.MetaSubscription])
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	card := CardOf(*cs.Card, cs.CustomerRef)
	if sub.Card.Token == card.Token {
		return nil // applied already
	}
	_, err = sp.Store.ChangeSubscription(ctx, sub.AccountID, sub.ID, sub.Version, store.ChangeCard(card))
	if errors.Is(err, store.ErrSubscriptionCancelled) || errors.Is(err, store.ErrSameValue) {
		return nil
	}
	return err
}

// NewCard opens the provider's page in setup mode to save a new card for
// a subscription; the card replaces the subscription's when the session
// completes (its event, or the reconcile).
func (sp *SubscriptionPayments) NewCard(ctx context.Context, sub store.Subscription, c store.Customer) (string, error) {
	prov, err := sp.active()
	if err != nil {
		return "", err
	}
	ref, err := sp.ProviderCustomer(ctx, prov, c)
	if err != nil {
		return "", err
	}
	cs, err := prov.StartCheckout(ctx, payment.CheckoutRequest{
		Mode: payment.ModeSetup, Amount: store.Money{Currency: sub.MonthlyPrice.Currency}, Description: sub.ProductName, CustomerRef: ref,
		ExpiresAt: sp.Store.Now().Add(sp.sessionTTL()), SuccessURL: sp.url(paths.Subscriptions), CancelURL: sp.url(paths.Subscriptions),
		Key:      "card-" + sub.ID + "-" + store.NewID(),
		Metadata: map[string]string{payment.MetaFor: payment.ForCard, payment.MetaCustomer: sub.AccountID, payment.MetaSubscription: sub.ID},
	})
	if err != nil {
		return "", err
	}
	return cs.URL, nil
}

// PayWaitingPeriod opens the provider's page to pay the period whose
// payment the bank asked the card holder to confirm (the mailed link's
// button): the intent's session while it is open, else a new one, kept on
// the intent. Two tabs at once keep one (the other reads it).
func (sp *SubscriptionPayments) PayWaitingPeriod(ctx context.Context, sub store.Subscription) (string, error) {
	prov, err := sp.active()
	if err != nil {
		return "", err
	}
	for range 3 {
		in := sub.Intent
		if in == nil || !in.Waiting {
			return "", store.ErrIntentMoved
		}
		if in.Session != "" {
			if cs, err := prov.RetrieveCheckout(ctx, in.Session); err == nil && cs.Status == payment.SessionOpen {
				return cs.URL, nil
			}
		}
		meta := periodMeta(sub, *in)
		cs, err := prov.StartCheckout(ctx, payment.CheckoutRequest{
			Mode: payment.ModePayment, Amount: sub.AmountFor(in.Period), Description: sub.ProductName, CustomerRef: sub.Card.Customer,
			ExpiresAt: sp.Store.Now().Add(sp.sessionTTL()), SuccessURL: sp.url(paths.Subscriptions), CancelURL: sp.url(paths.Subscriptions),
			Key: in.Key(sub.ID) + "-page-" + store.NewID(), Metadata: meta,
		})
		if err != nil {
			return "", err
		}
		if _, err := sp.Store.SetIntentSession(ctx, sub, cs.ID); err == nil {
			return cs.URL, nil
		} else if !errors.Is(err, store.ErrConflict) {
			return "", err
		}
		if sub, err = sp.Store.SubscriptionConsistent(ctx, sub.AccountID, sub.ID); err != nil {
			return "", err
		}
	}
	return "", store.ErrConflict
}

// periodMeta is the metadata of one period's payment.
func periodMeta(sub store.Subscription, in store.PaymentIntent) map[string]string {
	return map[string]string{payment.MetaFor: payment.ForPeriod, payment.MetaCustomer: sub.AccountID, payment.MetaSubscription: sub.ID,
		payment.MetaPeriod: store.FormatDate(in.Period), payment.MetaAttempt: fmt.Sprint(in.Attempt), payment.MetaKey: in.Key(sub.ID)}
}

// ReconcileSubscribes settles the subscribes pending since before age ago
// as their events would have: it reads each one's session or payment at
// its provider by the saved id; a page past its time is expired there
// (one found paid meanwhile starts the subscription).
func (sp *SubscriptionPayments) ReconcileSubscribes(ctx context.Context, age time.Duration) (settled int, err error) {
	pending, err := sp.Store.PendingSubscribes(ctx, sp.Store.Now().Add(-age), 100)
	if err != nil {
		return 0, err
	}
	for _, p := range pending {
		if err := sp.reconcileOne(ctx, p); err != nil {
			slog.WarnContext(ctx, "reconcile a pending subscribe", "key", p.Key, "err", err)
			continue
		}
		settled++
	}
	return settled, nil
}

func (sp *SubscriptionPayments) reconcileOne(ctx context.Context, p store.PendingSubscribe) error {
	prov, err := sp.Providers.For(p.Provider)
	if err != nil {
		return err
	}
	if p.Payment != "" {
		pi, err := prov.RetrievePayment(ctx, p.Payment)
		if err != nil {
			return err
		}
		return sp.settlePayment(ctx, p, pi, "")
	}
	if p.Session == "" {
		return ignoreSettled(sp.Store.FailSubscribe(ctx, p, "")) // never reached the provider
	}
	cs, err := prov.RetrieveCheckout(ctx, p.Session)
	if err != nil {
		return err
	}
	if cs.Status == payment.SessionOpen && !sp.Store.Now().Before(cs.ExpiresAt) {
		cs, err = prov.ExpireCheckout(ctx, p.Session)
		if err != nil && !errors.Is(err, payment.ErrCheckoutComplete) {
			return err
		}
	}
	return sp.settleSession(ctx, p, cs, "")
}
