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

// AdminOutboxStore is what the staff outbox pages read.
type AdminOutboxStore interface {
	Outbox(ctx context.Context, limit int, cursor string) (store.Page[store.Mail], error)
	Mail(ctx context.Context, id string) (store.Mail, error)
	Customer(ctx context.Context, id string) (store.Customer, error)
}

// AdminOutbox serves /admin/outbox: the mail sent to customers.
type AdminOutbox struct {
	Store AdminOutboxStore
	// Kept: no mail server is set, so every mail stays here; one the
	// deliverer has not marked yet (it passes once a minute) reads as
	// kept too, not as waiting to be sent.
	Kept bool
}

// List is the outbox, newest first, a page at a time; htmx asks for the
// next page's rows.
func (h *AdminOutbox) List(c *fiber.Ctx) error {
	mails, err := h.Store.Outbox(c.UserContext(), adminPageSize, c.Query("after"))
	if err != nil {
		return err
	}
	data := views.AdminOutboxPage{Mails: mails.Items, Kept: h.Kept}
	data.NextURL = paths.More(paths.AdminOutbox, mails.Next)
	return page.List(c, "Outbox", views.AdminOutboxView, views.AdminOutboxRows, data)
}

// Show is one mail: envelope, status, text and HTML (sandboxed).
func (h *AdminOutbox) Show(c *fiber.Ctx) error {
	// Not pathID: an account mail of before has a dot in its id, and the
	// outbox still holds those (store.OutboxID).
	id := c.Params("id")
	if !store.OutboxID(id) {
		return page.NotFound("error.not_found.mail")
	}
	m, err := h.Store.Mail(c.UserContext(), id)
	if err != nil {
		return notFoundAs(err, "error.not_found.mail")
	}
	data := views.AdminMailPage{Mail: m, Kept: h.Kept}
	if m.CustomerID != "" {
		// Named by the account as it is now: one GetItem.
		data.Customer, err = h.Store.Customer(c.UserContext(), m.CustomerID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	return page.Render(c, fiber.StatusOK, page.View{Title: m.Subject, Page: page.Full(views.AdminMailView, data)})
}
