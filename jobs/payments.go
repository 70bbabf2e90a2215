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

// maxConflicts bounds how often one subscription is read again because it
// moved under the job (a customer's change, another run).
const maxConflicts = 5

// payments charges every subscription due on or before date: one charge per
// period, catching up missed periods within the catch-up window, each with
// its receipt; declines go to dunning; ending subscriptions are cancelled.
func (r *Runner) payments(ctx context.Context, rec *recorder, date time.Time) error {
	return r.forEachDue(ctx, rec, r.store.PaymentsDueInShard, date, func(ctx context.Context, sub store.Subscription) {
		r.pay(ctx, rec, sub, date)
	})
}

// outcome of one step on one subscription.
type outcome int

const (
	outcomeCharged outcome = iota
	outcomeNotDue          // nothing (more) to do today: done by another run, or moved
	outcomeDeclined
	outcomeCancelled
	outcomeAttention
	outcomeFailed
	outcomeReread     // it moved under us: read it again
	outcomeCardNeeded // its card's provider takes no new payments: not charged, its holder mailed
	outcomeResumed    // paused until today (or before): active again, its next payment may be due
)

func (r *Runner) pay(ctx context.Context, rec *recorder, sub store.Subscription, date time.Time) {
	conflicts, charged := 0, 0
	for {
		res, next, err := r.payOnce(ctx, sub, date)
		switch res {
		case outcomeCharged:
			charged++
			rec.count(ctx, func(c *store.RunCounts) { c.Charged++; c.Mailed++ })
			sub = next // catch up: the next period may be due too
			continue
		case outcomeResumed:
			sub = next
			continue
		case outcomeNotDue:
			if charged == 0 {
				rec.count(ctx, func(c *store.RunCounts) { c.Skipped++ })
			}
		case outcomeDeclined:
			rec.count(ctx, func(c *store.RunCounts) { c.Declined++; c.Mailed++ })
		case outcomeCancelled:
			rec.count(ctx, func(c *store.RunCounts) { c.Cancelled++; c.Mailed++ })
		case outcomeCardNeeded:
			rec.count(ctx, func(c *store.RunCounts) { c.Skipped++; c.Mailed++ })
		case outcomeAttention:
			rec.fail(ctx, sub, err.Error(), true)
		case outcomeFailed:
			rec.fail(ctx, sub, err.Error(), false)
		case outcomeReread:
			if conflicts++; conflicts > maxConflicts {
				rec.fail(ctx, sub, "it kept changing while the job worked on it; the next run tries again", false)
				return
			}
			fresh, err := r.store.SubscriptionConsistent(ctx, sub.AccountID, sub.ID)
			if err != nil {
				rec.fail(ctx, sub, "read it again: "+err.Error(), false)
				return
			}
			sub = fresh
			continue
		}
		return
	}
}

// payOnce takes one step: end, charge one period, or decline.
func (r *Runner) payOnce(ctx context.Context, sub store.Subscription, date time.Time) (outcome, store.Subscription, error) {
	var due time.Time
	switch {
	case sub.Ending():
		if sub.EndsOn.After(date) {
			return outcomeNotDue, sub, nil
		}
		_, err := r.store.EndSubscription(ctx, sub, date, r.mailCancelled)
		if errors.Is(err, store.ErrConflict) {
			return outcomeReread, sub, nil
		}
		if err != nil {
			return outcomeFailed, sub, err
		}
		return outcomeCancelled, sub, nil
	case sub.Status == store.SubscriptionActive:
		due = sub.NextPaymentDate
	case sub.Status == store.SubscriptionPastDue:
		due = sub.RetryDate
	case sub.Status == store.SubscriptionPaused && !sub.ResumesOn.IsZero() && !sub.ResumesOn.After(date):
		// Paused until a day that has come: active again first.
		next, err := r.store.ChangeSubscription(ctx, sub.AccountID, sub.ID, sub.Version, store.ResumeAsPlanned())
		var stale *store.StaleError
		switch {
		case errors.As(err, &stale):
			return outcomeReread, sub, nil
		case err != nil:
			return outcomeFailed, sub, fmt.Errorf("resume after its pause: %w", err)
		}
		return outcomeResumed, next, nil
	default: // paused or cancelled meanwhile (the index lags the table)
		return outcomeNotDue, sub, nil
	}
	if due.IsZero() || due.After(date) {
		return outcomeNotDue, sub, nil
	}
	if due.Before(date.AddDate(0, 0, -r.cfg.CatchUpDays)) {
		return outcomeAttention, sub, fmt.Errorf("due since %s, beyond the %d-day catch-up window: not charged, needs staff", store.FormatDate(due), r.cfg.CatchUpDays)
	}
	if sub.Card.Token == "" {
		return r.decline(ctx, sub, date, "no card that can be charged")
	}
	if r.byProvider(sub) {
		return r.payByProvider(ctx, sub, date)
	}
	// The intent comes before the charge; one left by a crashed (or a
	// parallel) run for this very period and attempt is charged again with
	// its key, which gives back the same charge.
	if in := sub.Intent; in == nil || !in.Period.Equal(sub.NextPaymentDate) || in.Attempt != sub.Attempt+1 {
		next, err := r.store.RecordPaymentIntent(ctx, sub)
		if errors.Is(err, store.ErrConflict) {
			return outcomeReread, sub, nil
		}
		if err != nil {
			return outcomeFailed, sub, fmt.Errorf("record intent: %w", err)
		}
		sub = next
	}
	charge, err := r.charge(ctx, sub)
	switch {
	case errors.Is(err, payment.ErrDeclined), errors.Is(err, payment.ErrInsufficientFunds), errors.Is(err, payment.ErrProcessing):
		return r.decline(ctx, sub, date, err.Error())
	case err != nil:
		// The charge's outcome is unknown: the intent stays, and the next
		// run (or the reconcile step) charges with the same key.
		return outcomeFailed, sub, fmt.Errorf("charge: %w", err)
	}
	next, _, err := r.store.CompletePayment(ctx, sub, charge, date, r.mailReceipt)
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

// charge calls the gateway, trying again within the run while it says it
// could not process the card.
func (r *Runner) charge(ctx context.Context, sub store.Subscription) (store.GatewayCharge, error) {
	key := sub.Intent.Key(sub.ID)
	var err error
	for try := range r.cfg.ProcessTries {
		var c store.GatewayCharge
		c, err = r.gateway.ChargeAt(ctx, sub.Card.Token, sub.AmountFor(sub.Intent.Period), key)
		if !errors.Is(err, payment.ErrProcessing) {
			return c, err
		}
		select {
		case <-ctx.Done():
			return store.GatewayCharge{}, ctx.Err()
		case <-time.After(time.Duration(50<<try) * time.Millisecond):
		}
	}
	return store.GatewayCharge{}, err
}

func (r *Runner) decline(ctx context.Context, sub store.Subscription, date time.Time, reason string) (outcome, store.Subscription, error) {
	next, err := r.store.FailPayment(ctx, sub, date, r.cfg.RetryDays, func(s store.Subscription) *store.Mail {
		return mail.PaymentFailed(r.cfg.BaseURL, r.store.Now(), s, reason)
	})
	if errors.Is(err, store.ErrConflict) {
		return outcomeReread, sub, nil
	}
	if err != nil {
		return outcomeFailed, sub, fmt.Errorf("record the decline: %w", err)
	}
	return outcomeDeclined, next, nil // past due, or cancelled after the last retry
}

// Reconcile finds payment intents older than age (a run that crashed or was
// stopped between its intent and its write) and settles each: a charge the
// gateway made is recorded with its receipt; an intent without a charge is
// dropped, so the next run charges afresh.
func (r *Runner) Reconcile(ctx context.Context, age time.Duration) (settled int, err error) {
	open, err := r.store.OpenIntents(ctx, r.store.Now().Add(-age), 100)
	if err != nil {
		return 0, err
	}
	for _, sub := range open {
		if sub.Intent.Provider != "" {
			if err := r.reconcileAtProvider(ctx, sub); err != nil {
				slog.WarnContext(ctx, "reconcile payment intent", "subscription", sub.ID, "payment", sub.Intent.Ref, "err", err)
				continue
			}
			settled++
			continue
		}
		charge, err := r.gateway.Lookup(ctx, sub.Intent.Key(sub.ID))
		switch {
		case err == nil && charge.ID != "" && !charge.Voided:
			_, _, err = r.store.CompletePayment(ctx, sub, charge, r.store.Today(), r.mailReceipt)
			if errors.Is(err, store.ErrAlreadyPaid) {
				err = r.dropIntent(ctx, sub)
			}
		case err == nil || errors.Is(err, store.ErrNotFound):
			err = r.dropIntent(ctx, sub)
		}
		if err != nil && !errors.Is(err, store.ErrConflict) {
			slog.WarnContext(ctx, "reconcile payment intent", "subscription", sub.ID, "err", err)
			continue
		}
		settled++
	}
	return settled, nil
}

// CloseEndedDrops closes product drops whose deadline has passed, which
// gives their unclaimed units back to stock (claimed ones stay set aside
// for their holders).
func (r *Runner) CloseEndedDrops(ctx context.Context) (closed int, err error) {
	ended, err := r.store.EndedProductDrops(ctx)
	if err != nil {
		return 0, err
	}
	for _, d := range ended {
		err := r.store.SetDropStatus(ctx, d.ID, store.DropClosed)
		if err != nil && !errors.Is(err, store.ErrConflict) { // ErrConflict: closed meanwhile
			slog.WarnContext(ctx, "close an ended drop", "drop", d.ID, "err", err)
			continue
		}
		closed++
	}
	return closed, nil
}

func (r *Runner) dropIntent(ctx context.Context, sub store.Subscription) error {
	sub.Intent = nil
	_, err := r.store.UpdateSubscription(ctx, sub)
	return err
}
