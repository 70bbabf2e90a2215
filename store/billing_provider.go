package store

import (
	"context"
	"errors"
	"time"
)

// The billing jobs' writes for a subscription whose card a card provider
// saved (Card.Saved): its payment is made at the provider unconfirmed,
// saved on the subscription's intent, and only then confirmed, so that a
// run after a crash confirms or reads that very payment (by its id: a
// provider cannot look a payment up by key) instead of making another.

// ErrIntentMoved: the subscription's intent is not the one an event or a
// page names (another period or attempt, or none any more).
var ErrIntentMoved = errors.New("the subscription's payment is not this one any more")

// RecordProviderIntent notes on the subscription that its due period
// (attempt sub.Attempt+1) is being paid by the provider's payment ref, made
// unconfirmed with the intent's key: one conditional write, before the
// payment is confirmed. ErrConflict if the subscription moved.
func (s *Store) RecordProviderIntent(ctx context.Context, sub Subscription, provider, ref string) (Subscription, error) {
	sub.Intent = &PaymentIntent{Period: sub.NextPaymentDate, Attempt: sub.Attempt + 1, At: s.now(), Provider: provider, Ref: ref}
	return s.UpdateSubscription(ctx, sub)
}

// AwaitCustomerPayment records that the bank asked the card holder to
// confirm the intent's payment: it is not tried again blindly. The
// subscription is past due without a retry date (off the payments list),
// its intent kept and marked waiting, and the mail (a link to pay the
// period on the provider's page) goes in the same transaction, once.
func (s *Store) AwaitCustomerPayment(ctx context.Context, sub Subscription, mail *Mail) (Subscription, error) {
	if sub.Intent == nil {
		return sub, ErrIntentMoved
	}
	next := sub
	in := *sub.Intent
	in.Waiting = true
	next.Intent, next.Status, next.RetryDate, next.NextReminderDate = &in, SubscriptionPastDue, time.Time{}, time.Time{}
	return s.writeSubscriptionWithMail(ctx, next, mail)
}

// SetIntentSession keeps the provider's checkout session that pays a
// waiting intent's period (its page, opened from the mailed link), on
// condition of the version read; ErrConflict if it moved (another tab
// opened one: use that).
func (s *Store) SetIntentSession(ctx context.Context, sub Subscription, session string) (Subscription, error) {
	if sub.Intent == nil || !sub.Intent.Waiting {
		return sub, ErrIntentMoved
	}
	in := *sub.Intent
	in.Session = session
	sub.Intent = &in
	return s.UpdateSubscription(ctx, sub)
}

// CompleteProviderPayment is CompletePayment of a provider's payment
// reported by its event (eventID; "" for the job's own confirmation or the
// reconcile's read), the event's item in the same transaction. A period
// paid already, or the event applied already, is ErrAlreadyPaid.
func (s *Store) CompleteProviderPayment(ctx context.Context, sub Subscription, charge GatewayCharge, today time.Time, mail func(Receipt) *Mail, eventID string) (Subscription, Receipt, error) {
	return s.completePayment(ctx, sub, charge, today, mail, eventID)
}

// MailCardNeeded records that the subscription's card belongs to a card
// provider new payments no longer go to: it is not charged, and its
// holder is mailed (once per payment, by the mail's id) a link to set up a
// card before the next payment. The subscription only gets its version
// bumped with the mail in one transaction.
func (s *Store) MailCardNeeded(ctx context.Context, sub Subscription, mail *Mail) (Subscription, error) {
	return s.writeSubscriptionWithMail(ctx, sub, mail)
}
