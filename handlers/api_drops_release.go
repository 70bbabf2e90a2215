package handlers

import (
	"errors"

	"github.com/gofiber/fiber/v2"

	"shop/store"
)

// Release gives one of the integration's clients' tickets back: 200 with
// the ticket, released; its place can be claimed again (the client's
// own included). 404 when the client holds no ticket; 409 with the reason
// when the ticket was released already, is void or used (or held by an
// order awaiting its payment, or in a cart), or the drop is not open.
func (h *APIDrops) Release(c *fiber.Ctx) error {
	d, err := h.apiDrop(c)
	if err != nil {
		return err
	}
	client := c.Params("client")
	if !ValidAPIClient(client) {
		return apiNotFound("the ticket")
	}
	ann := announce(h.Hooks, c, store.EventTicketReleased, func(t store.Ticket) any { return apiTicketOf(t) })
	t, err := h.Store.ReleaseTicket(c.UserContext(), store.ReleaseRequest{DropID: d.ID,
		Client: APIKeyOf(c).Integration + ":" + client, Announce: ann})
	switch {
	case errors.Is(err, store.ErrNotFound):
		return apiNotFound("the ticket")
	case errors.Is(err, store.ErrClaimContended):
		c.Set(fiber.HeaderRetryAfter, "1")
		return &APIError{Status: fiber.StatusServiceUnavailable, Reason: ReasonBusy, Message: "the drop is busy; try again", Err: err}
	case err != nil:
		if reason := store.ReleaseReason(err); reason != "" {
			return &APIError{Status: fiber.StatusConflict, Reason: reason, Message: err.Error()}
		}
		return err
	}
	h.Gate.Released(d.ID, t.Counter)
	if ann != nil {
		h.wake()
	}
	return c.JSON(apiTicketOf(t))
}
