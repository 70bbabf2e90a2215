package handlers

import (
	"context"
	"errors"

	"github.com/gofiber/fiber/v2"

	"shop/store"
)

// Closing and cancelling an integration's drop through the API. Both
// answer the drop as it is after; both can be repeated (a retry after a
// timeout answers the same).

// Close closes one of the integration's drops now: 200 with the drop,
// closed, also when it was closed already (by the API, staff or its
// deadline); 409 cancelled when it was cancelled.
func (h *APIDrops) Close(c *fiber.Ctx) error {
	d, err := h.apiDrop(c)
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	ann := announce(h.Hooks, c, store.EventDropClosed, h.dropData)
	err = h.Store.SetDropStatusAnnounced(ctx, d.ID, store.DropClosed, ann)
	h.Gate.Forget(d.ID)
	if err == nil && ann != nil {
		h.wake()
	}
	if err != nil && !errors.Is(err, store.ErrConflict) {
		return err
	}
	now, err := h.Store.DropConsistent(ctx, d.ID)
	if err != nil {
		return err
	}
	if now.Status == store.DropCancelled {
		return &APIError{Status: fiber.StatusConflict, Reason: store.ClaimReason(store.ErrDropCancelled),
			Message: "the drop was cancelled: it cannot be closed"}
	}
	return c.JSON(apiDropOf(now, h.Store.Now()))
}

// Cancel cancels one of the integration's drops and voids its tickets:
// 200 with the drop, cancelled. Cancelling it again finishes a
// cancellation cut short; a drop closed before is 409 closed.
func (h *APIDrops) Cancel(c *fiber.Ctx) error {
	d, err := h.apiDrop(c)
	if err != nil {
		return err
	}
	// Voiding outlives the request's deadline: a big drop has many tickets.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.UserContext()), dropCancelTimeout)
	defer cancel()
	ann := store.CancelAnnouncements{Drop: announce(h.Hooks, c, store.EventDropCancelled, h.dropData),
		Voided: announce(h.Hooks, c, store.EventTicketVoided, ticketData)}
	_, err = h.Store.CancelDropAnnounced(ctx, d.ID, ann)
	h.Gate.Forget(d.ID)
	if err == nil && (ann.Drop != nil || ann.Voided != nil) {
		h.wake()
	}
	switch {
	case errors.Is(err, store.ErrConflict):
		return &APIError{Status: fiber.StatusConflict, Reason: store.ClaimReason(store.ErrDropClosed),
			Message: "the drop was closed: it cannot be cancelled"}
	case err != nil:
		return err
	}
	now, err := h.Store.DropConsistent(ctx, d.ID)
	if err != nil {
		return err
	}
	return c.JSON(apiDropOf(now, h.Store.Now()))
}

// dropData is a drop as an event of its change shows it: as the API
// answers it then.
func (h *APIDrops) dropData(d store.Drop) any { return apiDropOf(d, h.Store.Now()) }

// ticketData is a ticket as an event shows it.
func ticketData(t store.Ticket) any { return apiTicketOf(t) }
