package handlers

import (
	"errors"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/web/paths"
)

// Staff give a holder's ticket back, as an integration does through the
// API (store.ReleaseTicket): its place can be claimed again. A page asks
// first; a refusal comes back on it with its reason (409).

// releaseMessages are the words for each reason a release is refused
// (store.ReleaseReason).
var releaseMessages = map[string]string{
	"released":        "admin.drops.err.release_released",
	"void":            "admin.drops.err.release_void",
	"used":            "admin.drops.err.release_used",
	"pending_payment": "admin.drops.err.release_pending_payment",
	"in_cart":         "admin.drops.err.release_in_cart",
	"expired":         "admin.drops.err.release_expired",
	"closed":          "admin.drops.err.release_closed",
	"cancelled":       "admin.drops.err.release_cancelled",
}

// validTicketClient reports whether s can be a ticket's client: a
// customer's id or "<integration>:<client id>".
func validTicketClient(s string) bool {
	if len(s) == 0 || len(s) > 2*apiClientMax {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch >= 'a' && ch <= 'z', ch >= 'A' && ch <= 'Z', ch >= '0' && ch <= '9', ch == '-', ch == '_', ch == '.', ch == ':':
		default:
			return false
		}
	}
	return true
}

// releasePage is the drop and the ticket of the path, and its holder.
func (h *AdminDrops) releasePage(c *fiber.Ctx) (views.AdminDropRelease, error) {
	d, err := h.drop(c)
	if err != nil {
		return views.AdminDropRelease{}, err
	}
	client := c.Params("client")
	if !validTicketClient(client) {
		return views.AdminDropRelease{}, page.NotFound("error.not_found.ticket")
	}
	ctx := c.UserContext()
	t, err := h.Store.TicketConsistent(ctx, d.ID, client)
	if err != nil {
		return views.AdminDropRelease{}, notFoundAs(err, "error.not_found.ticket")
	}
	p := views.AdminDropRelease{Drop: d, Ticket: t, CSRF: page.CSRFToken(c)}
	if t.CustomerID != "" {
		p.Holder, err = h.Store.Customer(ctx, t.CustomerID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return p, err
		}
	}
	return p, nil
}

// ConfirmRelease asks before a holder's ticket is given back.
func (h *AdminDrops) ConfirmRelease(c *fiber.Ctx) error {
	p, err := h.releasePage(c)
	if err != nil {
		return err
	}
	return h.renderRelease(c, fiber.StatusOK, p)
}

func (h *AdminDrops) renderRelease(c *fiber.Ctx, status int, p views.AdminDropRelease) error {
	return page.Render(c, status, page.View{Title: page.T(c, "admin.drops.release_title"), Page: page.Full(views.AdminDropReleaseView, p)})
}

// Release gives the ticket back: 303 to the drop's page, or the question
// again with why it cannot be (409).
func (h *AdminDrops) Release(c *fiber.Ctx) error {
	p, err := h.releasePage(c)
	if err != nil {
		return err
	}
	ann := adminAnnounce(h, p.Drop, store.EventTicketReleased, ticketData)
	t, err := h.Store.ReleaseTicket(c.UserContext(), store.ReleaseRequest{DropID: p.Drop.ID, Client: p.Ticket.Client, Announce: ann})
	h.wake(err == nil && ann != nil)
	if id, ok := releaseMessages[store.ReleaseReason(err)]; ok {
		p.Error = page.T(c, id)
		return h.renderRelease(c, fiber.StatusConflict, p)
	}
	if err != nil {
		return notFoundAs(err, "error.not_found.ticket")
	}
	h.Gate.Released(p.Drop.ID, t.Counter)
	page.Written(c, "drop", p.Drop.ID, "ticket", t.Client)
	h.log().Info("ticket released by staff", "drop", p.Drop.ID, "client", t.Client, "request_id", page.RequestID(c))
	page.Flash(c, views.FlashSuccess, page.T(c, "admin.drops.released", "Holder", p.HolderName()))
	return page.Redirect(c, paths.AdminDrop(p.Drop.ID))
}
