package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"shop/store"
	"shop/store/rules"
	"shop/views/mail"
)

// reminders mails every active subscription whose reminder is due on or
// before date, once per payment: the outbox item and the moved reminder date
// are one transaction. A reminder missed while the shop was down still goes
// out on the next run, unless its payment date has passed too.
func (r *Runner) reminders(ctx context.Context, rec *recorder, date time.Time) error {
	return r.forEachDue(ctx, rec, r.store.RemindersDueInShard, date, func(ctx context.Context, sub store.Subscription) {
		for conflicts := 0; ; conflicts++ {
			res, err := r.remindOnce(ctx, sub, date)
			switch res {
			case outcomeCharged: // mailed
				rec.count(ctx, func(c *store.RunCounts) { c.Mailed++ })
			case outcomeNotDue:
				rec.count(ctx, func(c *store.RunCounts) { c.Skipped++ })
			case outcomeFailed:
				rec.fail(ctx, sub, err.Error(), false)
			case outcomeReread:
				fresh, err := r.store.SubscriptionConsistent(ctx, sub.AccountID, sub.ID)
				if err != nil || conflicts >= maxConflicts {
					rec.fail(ctx, sub, fmt.Sprintf("it kept changing while the job worked on it (%v); the next run tries again", err), false)
					return
				}
				sub = fresh
				continue
			}
			return
		}
	})
}

func (r *Runner) remindOnce(ctx context.Context, sub store.Subscription, date time.Time) (outcome, error) {
	if sub.Status != store.SubscriptionActive || sub.Ending() || sub.NextReminderDate.IsZero() || sub.NextReminderDate.After(date) {
		return outcomeNotDue, nil
	}
	var reminder, expiring *store.Mail
	if !sub.NextPaymentDate.Before(date) {
		reminder = mail.Reminder(r.cfg.BaseURL, r.store.Now(), sub)
		if sub.InTrial(date) {
			reminder = mail.TrialEnding(r.cfg.BaseURL, r.store.Now(), sub) // its trial ends: say so, and what comes then
		}
		var err error
		if expiring, err = r.cardExpiring(ctx, sub); err != nil {
			return outcomeFailed, err
		}
	}
	// With the payment date passed too, the reminder is dropped unsent.
	// The card's warning goes with the reminder, so it too is sent once per
	// payment (and per card: its id names both).
	_, err := r.store.SendReminder(ctx, sub, date, reminder, expiring)
	switch {
	case errors.Is(err, store.ErrConflict):
		return outcomeReread, nil
	case err != nil:
		return outcomeFailed, fmt.Errorf("record the reminder: %w", err)
	case reminder == nil:
		return outcomeNotDue, nil
	}
	return outcomeCharged, nil
}

// cardExpiring is the warning that the subscription's card stops paying
// before its next payment, nil when it pays on that day. The gateway knows
// the card's expiry (and learns of a renewed card), so it is asked.
func (r *Runner) cardExpiring(ctx context.Context, sub store.Subscription) (*store.Mail, error) {
	if sub.Card.Token == "" {
		return nil, nil
	}
	if r.byProvider(sub) {
		return r.savedCardWarning(sub), nil
	}
	expires, err := r.gateway.CardExpires(ctx, sub.Card.Token)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil // a card the gateway never knew: the payment will decline and say so
	}
	if err != nil {
		return nil, fmt.Errorf("ask the gateway about the card: %w", err)
	}
	// Expires is the card's first invalid instant, a month's start (UTC).
	if rules.Date(expires.UTC().Date()).After(sub.NextPaymentDate) {
		return nil, nil
	}
	return mail.CardExpiring(r.cfg.BaseURL, r.store.Now(), sub, expires), nil
}

// priceChanges announces scheduled price changes to the subscribers
// PriceNoticeDays before they apply (each subscriber once: the mail and
// the new price on the subscription are one write) and makes the new price
// the product's on its day.
func (r *Runner) priceChanges(ctx context.Context, rec *recorder, date time.Time) error {
	changes, err := r.store.PriceChanges(ctx)
	if err != nil {
		return fmt.Errorf("list price changes: %w", err)
	}
	for _, c := range changes {
		if !c.AppliedOn.IsZero() || c.AnnounceOn().After(date) {
			continue
		}
		if c.AnnouncedOn.IsZero() {
			told, err := r.announcePrice(ctx, rec, c, date)
			if err != nil {
				return err
			}
			if err := r.store.MarkPriceChangeAnnounced(ctx, c, date, told); err != nil && !errors.Is(err, store.ErrConflict) {
				return fmt.Errorf("mark the price change of %s announced: %w", c.ProductID, err)
			}
		}
		if !c.EffectiveOn.After(date) {
			if err := r.store.ApplyPriceChange(ctx, c, date); err != nil && !errors.Is(err, store.ErrConflict) {
				return fmt.Errorf("apply the price change of %s: %w", c.ProductID, err)
			}
		}
	}
	return nil
}

// announcePrice tells every subscriber of the product (active, past due or
// paused) of a price change and writes it onto their subscription. The new
// price applies from its day, or PriceNoticeDays after today if the job
// comes late: nobody pays it with less notice.
func (r *Runner) announcePrice(ctx context.Context, rec *recorder, c store.PriceChange, date time.Time) (told int, err error) {
	from := c.EffectiveOn
	if earliest := date.AddDate(0, 0, store.PriceNoticeDays); from.Before(earliest) {
		from = earliest
	}
	for _, status := range []store.SubscriptionStatus{store.SubscriptionActive, store.SubscriptionPastDue, store.SubscriptionPaused} {
		cursor := ""
		for {
			page, err := r.store.SubscriptionsOfProduct(ctx, c.ProductID, status, 100, cursor)
			if err != nil {
				return told, fmt.Errorf("list the subscribers of %s: %w", c.ProductID, err)
			}
			for _, sub := range page.Items {
				if ctx.Err() != nil {
					return told, ctx.Err() // a stop comes between two subscribers
				}
				if r.tellPrice(context.WithoutCancel(ctx), rec, sub, c, from) {
					told++
				}
			}
			if page.Next == "" {
				break
			}
			cursor = page.Next
		}
	}
	return told, ctx.Err()
}

// tellPrice mails one subscriber and reports whether it did: only one
// who will pay the new price, still on the product (a swap away, from the
// next payment or now, moves the subscription to the other product's key;
// read again after a conflict it is that product's) and not ending before
// it applies.
func (r *Runner) tellPrice(ctx context.Context, rec *recorder, sub store.Subscription, c store.PriceChange, from time.Time) bool {
	for conflicts := 0; ; conflicts++ {
		switch {
		case sub.ProductID != c.ProductID:
			return false // swapped to another product since the list was read: it will not pay this price
		case sub.NewPrice == c.New && !sub.NewPriceFrom.IsZero():
			return false // told already (a rerun), or shown it when subscribing or swapping to the product
		case sub.Status == store.SubscriptionCancelled, sub.Ending() && !sub.EndsOn.After(from):
			return false // it ends before the new price would apply
		}
		_, err := r.store.AnnouncePrice(ctx, sub, c, from, mail.PriceChange(r.cfg.BaseURL, r.store.Now(), sub, c, from))
		if err == nil {
			rec.count(ctx, func(c *store.RunCounts) { c.Mailed++ })
			return true
		}
		if !errors.Is(err, store.ErrConflict) || conflicts >= maxConflicts {
			rec.fail(ctx, sub, "announce the price change: "+err.Error(), false)
			return false
		}
		fresh, err := r.store.SubscriptionConsistent(ctx, sub.AccountID, sub.ID)
		if err != nil {
			rec.fail(ctx, sub, "announce the price change: "+err.Error(), false)
			return false
		}
		sub = fresh
	}
}
