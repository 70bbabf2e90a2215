package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"shop/store"
	"shop/store/payment"
	"shop/views/mail"
)

// HoldStore is what settling a held order's payment reads and writes
// (store.Store).
type HoldStore interface {
	Now() time.Time
	PlaceHeldOrder(ctx context.Context, orderID string, res store.PaymentResult) (store.PaymentApplied, error)
	ReleaseHeldOrder(ctx context.Context, orderID string, reason store.HoldReleaseReason, provider, eventID string) (store.Order, error)
	HeldOrdersDue(ctx context.Context, now time.Time, grace time.Duration, limit int) ([]store.Order, error)
}

// EventApplier applies a provider's verified events of one kind (the
// subscriptions', the refunds').
type EventApplier interface {
	ApplyPaymentEvent(ctx context.Context, ev payment.Event) error
}

// PaymentSettler settles the card payments of held orders: from the
// provider's webhook events (ApplyPaymentEvent), when the customer cancels
// a pending order (Cancel), and from the reconcile job when an event was
// missed (SettleDue). Every path ends in the store's PlaceHeldOrder or
// ReleaseHeldOrder, which settle an order once whichever comes first.
//
// Events come from the active provider: the webhook of each provider is
// routed only while it is the active one (/webhooks/test in test mode,
// /webhooks/stripe with Stripe).
type PaymentSettler struct {
	Store    HoldStore
	Payments payment.Providers
	// Mail writes the confirmation of an order its payment placed.
	Mail mail.Links
	Log  *slog.Logger // default slog.Default()
	// Subscriptions, if set, applies the events of sessions and payments
	// for a subscription (payment.ForSubscription: a subscribe, a period,
	// a new card; SubscriptionPayments.Applier); without it they are
	// acknowledged and logged.
	Subscriptions EventApplier
	// Refunds, if set, applies charge.refunded and refund.updated
	// (RefundEvents.Of the active provider); without
	// it they are acknowledged and logged.
	Refunds EventApplier
}

func (s *PaymentSettler) log() *slog.Logger {
	if s.Log == nil {
		return slog.Default()
	}
	return s.Log
}

// ApplyPaymentEvent applies one verified event of the active provider: a
// completed checkout of a held order places it (a payment that cannot is
// refunded, its refund made by the card refunds job), an expired one
// releases it. Subscriptions' and refunds' events go to their own fields.
// An error makes the webhook answer 500, for the provider to send the
// event again; an event the shop cannot use is acknowledged and logged.
func (s *PaymentSettler) ApplyPaymentEvent(ctx context.Context, ev payment.Event) error {
	switch ev.Type {
	case payment.EventChargeRefunded, payment.EventRefundUpdated:
		return s.pass(ctx, s.Refunds, "refunds", ev)
	case payment.EventPaymentSucceeded, payment.EventPaymentFailed:
		if ev.Payment != nil && payment.ForSubscription(ev.Payment.Metadata) {
			return s.pass(ctx, s.Subscriptions, "subscriptions", ev)
		}
		return nil // a held order's payment is settled by its session's events
	case payment.EventCheckoutCompleted, payment.EventCheckoutExpired:
	default:
		return nil
	}
	cs := ev.Session
	if cs == nil {
		s.log().Warn("payment event without its session: ignored", "event", ev.ID, "type", ev.Type)
		return nil
	}
	if payment.ForSubscription(cs.Metadata) {
		return s.pass(ctx, s.Subscriptions, "subscriptions", ev)
	}
	orderID := cs.Metadata[payment.MetaOrder]
	if orderID == "" {
		s.log().Info("checkout session of no order of this shop: ignored", "event", ev.ID, "session", cs.ID)
		return nil
	}
	pr := s.Payments.Active()
	if ev.Type == payment.EventCheckoutExpired {
		return s.release(ctx, pr, orderID, store.ReleaseExpired, ev.ID)
	}
	_, err := s.place(ctx, pr, orderID, *cs, ev.ID)
	return err
}

// pass hands an event to its applier, or logs that none is configured.
func (s *PaymentSettler) pass(ctx context.Context, to EventApplier, what string, ev payment.Event) error {
	if to == nil {
		s.log().Info("payment event for "+what+": nothing applies it here, acknowledged", "event", ev.ID, "type", ev.Type)
		return nil
	}
	return to.ApplyPaymentEvent(ctx, ev)
}

// place applies a paid session to its held order. The card's brand and
// last digits come from the session, else from its payment (Stripe's
// event carries neither). A payment that cannot place the order (the
// hold was released, another payment placed it, or it does not match) is
// recorded as a pending refund with the customer's mail: that is done,
// not an error to retry.
func (s *PaymentSettler) place(ctx context.Context, pr payment.Provider, orderID string, cs payment.CheckoutSession, eventID string) (store.PaymentApplied, error) {
	if !cs.Paid || cs.PaymentRef == "" {
		s.log().Info("checkout session complete but not paid yet: left for its payment", "order", orderID, "session", cs.ID)
		return store.PaymentApplied{}, nil
	}
	res := store.PaymentResult{
		Provider: pr.Name(), EventID: eventID, PaymentRef: cs.PaymentRef, Amount: cs.Amount,
		Confirmation: s.Mail.OrderPlaced, Refunded: s.refundedMail,
	}
	card := cs.Card
	if card == nil {
		pi, err := pr.RetrievePayment(ctx, cs.PaymentRef)
		if err != nil {
			return store.PaymentApplied{}, fmt.Errorf("read payment %s of order %s: %w", cs.PaymentRef, orderID, err)
		}
		card = pi.Card
	}
	if card != nil {
		res.Brand, res.Last4 = card.Brand, card.Last4
	}
	applied, err := s.Store.PlaceHeldOrder(ctx, orderID, res)
	switch {
	case errors.Is(err, store.ErrHoldReleased), errors.Is(err, store.ErrOrderPaid), errors.Is(err, store.ErrPaymentMismatch):
		s.log().Warn("a payment could not place its order: refunded", "order", orderID, "payment", cs.PaymentRef, "why", err)
		return applied, nil
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrNotHeld):
		s.log().Warn("a paid session names no held order of this shop: ignored", "order", orderID, "session", cs.ID, "why", err)
		return applied, nil
	}
	return applied, err
}

// refundedMail tells the customer a payment that could not place the
// order is given back.
func (s *PaymentSettler) refundedMail(o store.Order, r store.Refund) *store.Mail {
	return mail.OrderRefund(s.Mail.BaseURL, s.Store.Now)(r, o)
}

// release gives back what a held order took. An order placed meanwhile is
// no error: its payment won.
func (s *PaymentSettler) release(ctx context.Context, pr payment.Provider, orderID string, why store.HoldReleaseReason, eventID string) error {
	_, err := s.Store.ReleaseHeldOrder(ctx, orderID, why, pr.Name(), eventID)
	switch {
	case errors.Is(err, store.ErrOrderPaid):
		return nil
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrNotHeld):
		s.log().Warn("an expired session names no held order of this shop: ignored", "order", orderID, "why", err)
		return nil
	}
	return err
}
