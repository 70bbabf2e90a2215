package handlers

import (
	"context"
	"errors"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/web/paths"
)

// AccountSessionStore is what a customer's sessions page reads and ends.
type AccountSessionStore interface {
	CustomerSessions(ctx context.Context, customerID string) ([]store.Session, error)
	EndSession(ctx context.Context, customerID, handle string) error
	EndSessions(ctx context.Context, customerID, keep string) (int, error)
}

// AccountSessions serves /account/sessions: where the customer is signed
// in, and signing the other places out.
type AccountSessions struct {
	Store AccountSessionStore
}

// List is the customer's signed-in sessions, this one first.
func (h *AccountSessions) List(c *fiber.Ctx) error {
	v, err := signedInFor(c, paths.AccountSessions)
	if err != nil || !v.SignedIn() {
		return err
	}
	list, err := h.Store.CustomerSessions(c.UserContext(), v.ID)
	if err != nil {
		return err
	}
	current := page.SessionID(c)
	data := views.AccountSessionsPage{CSRF: page.CSRFToken(c)}
	for _, s := range list {
		row := views.AccountSession{Handle: s.Handle(), Device: s.Device, SignedInAt: s.SignedInAt, LastSeenAt: s.LastSeenAt, Current: s.ID == current}
		if row.Current {
			data.Sessions = append([]views.AccountSession{row}, data.Sessions...)
			continue
		}
		data.Sessions = append(data.Sessions, row)
	}
	if len(data.Sessions) == 0 || !data.Sessions[0].Current {
		// The list is an index that follows the table within a moment (or
		// this session is older than the list): this one is still here.
		data.Sessions = append([]views.AccountSession{{Device: page.DeviceOf(c.Get(fiber.HeaderUserAgent)), Current: true}}, data.Sessions...)
	}
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "account.sessions.title"), Page: page.Full(views.AccountSessionsView, data)})
}

// End signs one of the other sessions out; its next request is a visitor's.
func (h *AccountSessions) End(c *fiber.Ctx) error {
	v := page.Viewer(c)
	if !v.SignedIn() {
		return page.Forbidden(page.T(c, "account.sign_in_first"))
	}
	handle, this := c.Params("handle"), store.Session{ID: page.SessionID(c)}
	if handle == this.Handle() {
		return page.BadRequest(page.T(c, "account.sessions.this_browser"))
	}
	err := h.Store.EndSession(c.UserContext(), v.ID, handle)
	switch {
	case errors.Is(err, store.ErrNotFound):
		page.Flash(c, views.FlashInfo, page.T(c, "account.sessions.already_ended"))
	case err != nil:
		return err
	default:
		page.Flash(c, views.FlashSuccess, page.T(c, "account.sessions.ended"))
	}
	return page.Redirect(c, paths.AccountSessions)
}

// EndOthers signs out every session of the customer but this one.
func (h *AccountSessions) EndOthers(c *fiber.Ctx) error {
	v := page.Viewer(c)
	if !v.SignedIn() {
		return page.Forbidden(page.T(c, "account.sign_in_first"))
	}
	current := page.SessionID(c)
	if current == "" {
		return page.Forbidden(page.T(c, "account.sign_in_first"))
	}
	n, err := h.Store.EndSessions(c.UserContext(), v.ID, current)
	if err != nil {
		return err
	}
	if n == 0 {
		page.Flash(c, views.FlashInfo, page.T(c, "account.sessions.none_else"))
	} else {
		page.Flash(c, views.FlashSuccess, page.N(c, "account.sessions.ended_others", n))
	}
	return page.Redirect(c, paths.AccountSessions)
}
