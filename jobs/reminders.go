package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"shop/store"
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
	if err := ctx.Err(); err != nil {
		return outcomeFailed, fmt.Errorf("the run was stopped: %w", err)
	}
	if sub.Status != store.SubscriptionActive || sub.Ending() || sub.NextReminderDate.IsZero() || sub.NextReminderDate.After(date) {
		return outcomeNotDue, nil
	}
	var mail *store.Mail
	if !sub.NextPaymentDate.Before(date) {
		mail = r.mailReminder(sub)
	}
	// With the payment date passed too, the reminder is dropped unsent.
	_, err := r.store.SendReminder(ctx, sub, date, mail)
	switch {
	case errors.Is(err, store.ErrConflict):
		return outcomeReread, nil
	case err != nil:
		return outcomeFailed, fmt.Errorf("record the reminder: %w", err)
	case mail == nil:
		return outcomeNotDue, nil
	}
	return outcomeCharged, nil
}
