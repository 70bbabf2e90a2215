package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"shop/store"
	"shop/store/payment"
	"shop/store/rules"
	"shop/views/mail"
)

// byProvider says whether a subscription's renewal goes through the card
// providers: a card a provider saved does, and so does an old gateway card
// once the shop charges through another provider than the test one (it is
// then not charged: its holder is asked for a new card).
func (r *Runner) byProvider(sub store.Subscription) bool {
	if sub.Card.Saved() {
		return true
	}
	act := r.cfg.Payments.Active()
	return act != nil && act.Name() != payment.ProviderTest
}

// payByProvider pays the due period at the card's provider: the payment is
// made unconfirmed with the intent's key (sub-<id>-<period>-a<attempt>) in
// its metadata, its id saved on the subscription's intent, and only then
// confirmed; a run after a crash finds the id and reads that payment
// rather than making another. A bank asking its holder to confirm is not
// tried again blindly: the customer is mailed a link to pay the period on
// the provider's page and dunning waits. A card of a provider new payments
// do not go to is not charged; its holder is mailed a link to add a card.
func (r *Runner) payByProvider(ctx context.Context, sub store.Subscription, date time.Time) (outcome, store.Subscription, error) {
	if in := sub.Intent; in != nil && in.Waiting {
		return outcomeNotDue, sub, nil // the customer pays it on the provider's page
	}
	prov := r.cfg.Payments.Active()
	if prov == nil || prov.Name() != sub.Card.Provider {
		return r.cardNeeded(ctx, sub)
	}
	in := sub.Intent
	var pi payment.PaymentIntent
	var err error
	if in == nil || !in.Period.Equal(sub.NextPaymentDate) || in.Attempt != sub.Attempt+1 || in.Ref == "" || in.Provider != prov.Name() {
		next := store.PaymentIntent{Period: sub.NextPaymentDate, Attempt: sub.Attempt + 1}
		amount := sub.AmountFor(next.Period)
		// The key names the amount too: a swap (or a new period) written
		// between making this payment and recording it sends the run back
		// to read the subscription, and the payment of the new amount needs
		// a key of its own (the same key with another amount is refused,
		// ErrKeyReused, on every run after). The first is never confirmed.
		pi, err = prov.CreatePayment(ctx, payment.PaymentRequest{
			Amount: amount, CustomerRef: sub.Card.Customer, MethodRef: sub.Card.Token, Description: sub.LineName(),
			Key: fmt.Sprintf("%s-%d", next.Key(sub.ID), amount.Amount), Metadata: periodMeta(sub, next),
		})
		if err != nil {
			return outcomeFailed, sub, fmt.Errorf("make the payment: %w", err)
		}
		saved, rerr := r.store.RecordProviderIntent(ctx, sub, prov.Name(), pi.ID)
		if errors.Is(rerr, store.ErrConflict) {
			return outcomeReread, sub, nil
		}
		if rerr != nil {
			return outcomeFailed, sub, fmt.Errorf("record intent: %w", rerr)
		}
		sub = saved
		pi, err = prov.ConfirmPayment(ctx, pi.ID)
	} else {
		// A run before this one saved the payment: read it by its id, and
		// confirm it only if nobody did.
		pi, err = prov.RetrievePayment(ctx, in.Ref)
		if err == nil && pi.Status == payment.PaymentRequiresConfirmation {
			pi, err = prov.ConfirmPayment(ctx, in.Ref)
		} else if err == nil {
			err = settledAnswer(pi)
		}
	}
	return r.afterConfirm(ctx, sub, date, prov.Name(), pi, err)
}

// settledAnswer is the error a payment as it stands answers (nil: paid).
func settledAnswer(pi payment.PaymentIntent) error {
	switch pi.Status {
	case payment.PaymentSucceeded:
		return nil
	case payment.PaymentRequiresAction:
		return payment.ErrAuthenticationRequired
	case payment.PaymentRequiresMethod:
		if pi.DeclineCode == "authentication_required" {
			return payment.ErrAuthenticationRequired
		}
		return payment.ErrDeclined
	case payment.PaymentCanceled:
		return payment.ErrVoided
	}
	return fmt.Errorf("payment %s is %s", pi.ID, pi.Status)
}

// afterConfirm records what the provider answered.
func (r *Runner) afterConfirm(ctx context.Context, sub store.Subscription, date time.Time, provider string, pi payment.PaymentIntent, err error) (outcome, store.Subscription, error) {
	switch {
	case errors.Is(err, payment.ErrAuthenticationRequired):
		next, err := r.store.AwaitCustomerPayment(ctx, sub, mail.ConfirmPayment(r.cfg.BaseURL, r.store.Now(), sub))
		if errors.Is(err, store.ErrConflict) {
			return outcomeReread, sub, nil
		}
		if err != nil {
			return outcomeFailed, sub, fmt.Errorf("record the bank's question: %w", err)
		}
		return outcomeDeclined, next, nil
	case errors.Is(err, payment.ErrDeclined), errors.Is(err, payment.ErrInsufficientFunds), errors.Is(err, payment.ErrProcessing),
		errors.Is(err, payment.ErrExpired), errors.Is(err, payment.ErrVoided):
		return r.decline(ctx, sub, date, err.Error())
	case err != nil:
		// Unknown: the intent keeps the payment's id; the next run or the
		// reconcile reads it.
		return outcomeFailed, sub, fmt.Errorf("confirm the payment: %w", err)
	}
	charge := store.GatewayCharge{Key: sub.Intent.Key(sub.ID), ID: pi.ID, Amount: pi.Amount, At: r.store.Now(), Provider: provider}
	next, _, err := r.store.CompleteProviderPayment(ctx, sub, charge, date, r.mailReceipt, "")
	switch {
	case errors.Is(err, store.ErrAlreadyPaid):
		return outcomeNotDue, sub, nil
	case errors.Is(err, store.ErrConflict):
		return outcomeReread, sub, nil
	case err != nil:
		return outcomeFailed, sub, fmt.Errorf("record the payment: %w", err)
	}
	return outcomeCharged, next, nil
}

// cardNeeded mails the holder of a card no active provider charges a
// link to add one, once per payment (the mail's id); nothing is charged.
func (r *Runner) cardNeeded(ctx context.Context, sub store.Subscription) (outcome, store.Subscription, error) {
	_, err := r.store.MailCardNeeded(ctx, sub, mail.CardNeeded(r.cfg.BaseURL, r.store.Now(), sub))
	if errors.Is(err, store.ErrConflict) {
		return outcomeReread, sub, nil
	}
	if err != nil {
		return outcomeFailed, sub, fmt.Errorf("mail for a new card: %w", err)
	}
	return outcomeCardNeeded, sub, nil
}

// reconcileAtProvider settles an intent whose payment a card provider
// holds, as its run would have: it reads the payment by the saved id (a
// provider cannot look one up by key). Paid, the period is recorded; a
// decline or the bank's question is recorded as the run would; one not
// confirmed yet is left for the next run, which confirms that very one. A
// waiting intent's period paid on the provider's page is recorded.
func (r *Runner) reconcileAtProvider(ctx context.Context, sub store.Subscription) error {
	in := sub.Intent
	prov, err := r.cfg.Payments.For(in.Provider)
	if err != nil {
		return err
	}
	today := r.store.Today()
	if in.Waiting {
		if in.Session == "" {
			return nil
		}
		cs, err := prov.RetrieveCheckout(ctx, in.Session)
		if err != nil || !cs.Paid {
			return err
		}
		charge := store.GatewayCharge{Key: in.Key(sub.ID), ID: cs.PaymentRef, Amount: cs.Amount, At: r.store.Now(), Provider: prov.Name()}
		_, _, err = r.store.CompleteProviderPayment(ctx, sub, charge, today, r.mailReceipt, "")
		if errors.Is(err, store.ErrAlreadyPaid) || errors.Is(err, store.ErrConflict) {
			return nil
		}
		return err
	}
	pi, err := prov.RetrievePayment(ctx, in.Ref)
	if err != nil || pi.Status == payment.PaymentRequiresConfirmation || pi.Status == payment.PaymentProcessing {
		return err
	}
	res, _, err := r.afterConfirm(ctx, sub, today, prov.Name(), pi, settledAnswer(pi))
	if res == outcomeFailed {
		return err
	}
	return nil
}

// ReconcileSubscribes settles the subscribes pending at the card provider
// for longer than age (SubscriptionPayments.ReconcileSubscribes), when the
// runner has providers and its store keeps subscribes.
func (r *Runner) ReconcileSubscribes(ctx context.Context, age time.Duration) (int, error) {
	st, ok := r.store.(SubscriptionPaymentStore)
	if !ok || r.cfg.Payments.Active() == nil {
		return 0, nil
	}
	sp := &SubscriptionPayments{Store: st, Providers: r.cfg.Payments, BaseURL: r.cfg.BaseURL}
	return sp.ReconcileSubscribes(ctx, age)
}

// savedCardWarning is what the reminder of a card a provider saved carries:
// the link to add a card when no active provider charges it (the same mail,
// by its id, as the payment day's: sent once), the warning when it expires
// before the payment (its expiry is the provider's), else nothing.
func (r *Runner) savedCardWarning(sub store.Subscription) *store.Mail {
	if act := r.cfg.Payments.Active(); act == nil || act.Name() != sub.Card.Provider {
		return mail.CardNeeded(r.cfg.BaseURL, r.store.Now(), sub)
	}
	if sub.Card.ExpYear == 0 {
		return nil
	}
	expires := time.Date(sub.Card.ExpYear, time.Month(sub.Card.ExpMonth)+1, 1, 0, 0, 0, 0, time.UTC)
	if rules.Date(expires.Date()).After(sub.NextPaymentDate) {
		return nil
	}
	return mail.CardExpiring(r.cfg.BaseURL, r.store.Now(), sub, expires)
}
