package handlers

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/sync/errgroup"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/views/mail"
	"shop/web/paths"
)

// Cancel cancels a drop, voids its tickets and mails each customer who
// held one (API clients are told by their own systems). The mail's id is
// one per drop and holder, so cancelling a drop that is already cancelled
// finishes a cancellation cut short (voids what is left, mails who was
// not mailed) and mails nobody twice.
func (h *AdminDrops) Cancel(c *fiber.Ctx) error {
	d, err := h.drop(c)
	if err != nil {
		return err
	}
	// Voiding and mailing outlive the request's deadline: a big drop has
	// many holders.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.UserContext()), dropCancelTimeout)
	defer cancel()
	ann := store.CancelAnnouncements{Drop: adminAnnounce(h, d, store.EventDropCancelled, h.dropData),
		Voided: adminAnnounce(h, d, store.EventTicketVoided, ticketData)}
	tickets, err := h.Store.CancelDropAnnounced(ctx, d.ID, ann)
	h.Gate.Forget(d.ID)
	h.wake(err == nil && (ann.Drop != nil || ann.Voided != nil))
	switch {
	case errors.Is(err, store.ErrConflict):
		return h.renderDrop(c, fiber.StatusConflict, page.T(c, "admin.drops.err.closed_early"))
	case err != nil:
		return fmt.Errorf("cancel drop %s: %w", d.ID, err)
	}
	mailed, err := h.mailHolders(ctx, d, tickets)
	if err != nil {
		return fmt.Errorf("cancel drop %s: mail holders: %w", d.ID, err)
	}
	h.log().Info("drop cancelled", "drop", d.ID, "void", len(tickets), "mailed", mailed, "request_id", page.RequestID(c))
	page.Flash(c, views.FlashSuccess, page.T(c, "admin.drops.cancelled", "Title", d.Title, "Void", len(tickets), "Mailed", mailed))
	return page.Redirect(c, paths.AdminDrop(d.ID))
}

// mailHolders puts a cancellation mail into the outbox for each ticket a
// customer held, a few at once; a mail put before (an earlier try) counts
// as sent. It returns how many holders have their mail.
func (h *AdminDrops) mailHolders(ctx context.Context, d store.Drop, tickets []store.Ticket) (int, error) {
	var mailed atomic.Int64
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(dropMailWorkers)
	now := h.Store.Now()
	loc := h.Store.Location()
	for _, t := range tickets {
		if t.CustomerID == "" {
			continue // an API client's: no email here
		}
		g.Go(func() error {
			cust, err := h.Store.Customer(ctx, t.CustomerID)
			if errors.Is(err, store.ErrNotFound) {
				return nil // the account is gone
			}
			if err != nil {
				return err
			}
			err = h.Store.PutMail(ctx, mail.DropCancelled(d, t, cust, now, loc))
			if err != nil && !errors.Is(err, store.ErrConflict) {
				return err
			}
			mailed.Add(1)
			return nil
		})
	}
	err := g.Wait()
	return int(mailed.Load()), err
}
