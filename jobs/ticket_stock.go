package jobs

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"shop/store"
)

// JobTicketStock gives back to stock the units of product drop tickets
// that expired unused (past their redeem time) or were voided (their drop
// cancelled): it reads the list of those due (store.TicketReturnsDue, no
// Scan) and returns each once (store.ReturnTicketUnit: one transaction
// on condition the ticket is unredeemed and not returned yet, so two
// replicas or two runs at once give a unit back once). A ticket held by an
// order awaiting its payment is skipped until the payment ends. Like the
// card refunds its lease is given back after each run, so the next tick
// (every 15 minutes by default) runs again.
const JobTicketStock = "ticket-stock"

// TicketStockStore is what the ticket stock job reads and writes.
type TicketStockStore interface {
	TicketReturnsDue(ctx context.Context) ([]store.TicketReturn, error)
	ReturnTicketUnit(ctx context.Context, r store.TicketReturn) (store.TicketReturnOutcome, error)
}

// ticketReturnTimeout bounds one ticket's reads and transaction.
const ticketReturnTimeout = 30 * time.Second

// ticketStock returns each due ticket's unit, one at a time (a few
// requests each; a cancel of a big drop makes many due at once, which the
// next ticks finish if a stop comes first). Counts: Returned, Skipped
// (held by a payment, or nothing owed after all), Failed (the next run
// tries again).
func (r *Runner) ticketStock(ctx context.Context, rec *recorder) error {
	st, ok := r.store.(TicketStockStore)
	if !ok {
		return errors.New("this store cannot list the tickets whose units go back to stock")
	}
	due, err := st.TicketReturnsDue(ctx)
	if err != nil {
		return err
	}
	rec.addDue(len(due))
	for _, t := range due {
		if err := ctx.Err(); err != nil {
			return err
		}
		// A stop comes between two tickets, not inside one.
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ticketReturnTimeout)
		outcome, err := st.ReturnTicketUnit(tctx, t)
		cancel()
		switch {
		case err != nil:
			slog.WarnContext(ctx, "ticket unit not returned to stock", "drop", t.DropID, "client", t.Client, "err", err)
			rec.count(ctx, func(c *store.RunCounts) { c.Failed++ })
		case outcome == store.TicketUnitReturned:
			rec.count(ctx, func(c *store.RunCounts) { c.Returned++ })
		default:
			rec.count(ctx, func(c *store.RunCounts) { c.Skipped++ })
		}
	}
	return nil
}
