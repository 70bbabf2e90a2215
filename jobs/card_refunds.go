package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"shop/store"
	"shop/store/payment"
)

// JobCardRefunds finishes card refunds the provider did not take (or
// answered pending) when staff, a cancellation or a late payment made
// them: every pending one whose backoff has ended is tried again at the
// provider that took the payment, under its first try's key, so a retry
// never refunds twice; one the provider answered pending is read there,
// and confirmed if its refund event has not done so first. One that fails MaxCardRefundTries times stays listed for
// staff. It also numbers the credit notes of refunds done whose process
// stopped before numbering them (store.NumberDueCreditNotes). Its lease is the job's and today's like the others', but given
// back after each run rather than marked done, so the next tick (every
// 15 minutes by default) runs again.
const JobCardRefunds = "card-refunds"

// CardRefundStore is what the card refunds job reads and writes.
type CardRefundStore interface {
	PendingCardRefunds(ctx context.Context) ([]store.PendingCardRefund, error)
	RetryCardRefund(ctx context.Context, orderID, key string, refunder store.Refunder) (store.Refund, error)
	RetryReceiptRefund(ctx context.Context, customerID, number string, refunder store.Refunder, mail func(store.Receipt) *store.Mail) (store.Receipt, error)
	NumberDueCreditNotes(ctx context.Context) (int, error)
}

// cardRefundTimeout bounds one refund's try, so a hanging gateway does not
// hold the run (and its lease) for long.
const cardRefundTimeout = 30 * time.Second

// cardRefunds tries each due pending card refund once, one at a time (few
// wait at once, and each is a gateway call).
func (r *Runner) cardRefunds(ctx context.Context, rec *recorder) error {
	st, ok := r.store.(CardRefundStore)
	if !ok {
		return errors.New("this store cannot list pending card refunds")
	}
	refunder := r.cfg.Refunds
	if refunder == nil {
		legacy, ok := r.gateway.(payment.LegacyRefunder)
		if !ok {
			return errors.New("this replica has no card refunds configured")
		}
		refunder = payment.CardRefunds{Legacy: legacy}
	}
	pending, err := st.PendingCardRefunds(ctx)
	if err != nil {
		return fmt.Errorf("list pending card refunds: %w", err)
	}
	now := r.store.Now()
	var due []store.PendingCardRefund
	for _, p := range pending {
		if p.DueForRetry(now) {
			due = append(due, p)
		}
	}
	rec.addDue(len(due))
	// The receipt's refund mail goes with its completion, as when staff
	// finish it; an order's refund mailed the customer when it was made.
	mail := r.mailReceiptRefund
	for _, p := range due {
		if err := ctx.Err(); err != nil {
			return err
		}
		// A stop comes between two refunds, not inside one: a gateway's
		// answer is always written down.
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cardRefundTimeout)
		var tries store.CardRefundTries
		var err error
		atProvider := false // made at the provider, which has not confirmed it yet
		mailed := p.IsReceipt()
		if p.IsReceipt() {
			var rc store.Receipt
			rc, err = st.RetryReceiptRefund(tctx, p.CustomerID, p.Number, refunder, mail)
			if rc.Refund != nil {
				tries, atProvider = rc.Refund.CardTries, rc.Refund.Status == store.ReceiptRefundPending
				mailed = rc.Refund.MailedWith == "" // a part another receipt's mail tells of sends none
			}
		} else {
			var rf store.Refund
			rf, err = st.RetryCardRefund(tctx, p.OrderID, p.RefundID, refunder)
			tries, atProvider = rf.CardTries, rf.Status == store.RefundCardPending
		}
		cancel()
		if err == nil && atProvider {
			continue // its event, or a run after, confirms it
		}
		if err == nil {
			rec.count(ctx, func(c *store.RunCounts) { c.Refunded++ })
			if mailed {
				rec.count(ctx, func(c *store.RunCounts) { c.Mailed++ })
			}
			continue
		}
		slog.WarnContext(ctx, "card refund retried, not taken", "order", p.OrderID, "refund", p.RefundID, "receipt", p.Number, "tries", tries.Count, "err", err)
		rec.failRefund(ctx, p, tries)
	}
	// Refunds done whose process stopped before their credit note's
	// number: numbered now, not when an event happens to come again.
	n, err := st.NumberDueCreditNotes(ctx)
	if n > 0 {
		slog.InfoContext(ctx, "credit notes numbered that a stop had left", "count", n)
	}
	if err != nil {
		return fmt.Errorf("number the credit notes due: %w", err)
	}
	return nil
}

// failRefund counts a refund the run could not finish and records which,
// with the try it was: for staff, the refund's order or receipt; the
// gateway's own error stays in the log.
func (r *recorder) failRefund(ctx context.Context, p store.PendingCardRefund, tries store.CardRefundTries) {
	r.count(ctx, func(c *store.RunCounts) {
		if tries.NeedsStaff() {
			c.Attention++
		} else {
			c.Failed++
		}
	})
	what := fmt.Sprintf("order %s refund %s", p.OrderID, p.RefundID)
	if p.IsReceipt() {
		what = "receipt " + p.Number
	}
	reason := fmt.Sprintf("card refund of %s not taken (%s), try %d of %d", p.Amount, tries.Problem, tries.Count, store.MaxCardRefundTries)
	r.mu.Lock()
	id := r.run.ID
	r.mu.Unlock()
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := r.store.AddRunFailure(wctx, store.RunFailure{RunID: id, SubscriptionID: what, AccountID: p.CustomerID, Reason: reason, At: r.store.Now()}); err != nil {
		slog.WarnContext(ctx, "record run failure", "run", id, "refund", what, "err", err)
	}
}
