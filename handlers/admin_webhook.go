package handlers

import (
	"context"
	"errors"
	"log/slog"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/web/paths"
)

// AdminWebhookDeliveryStore is what the console's page of one endpoint reads and
// writes.
type AdminWebhookDeliveryStore interface {
	Webhook(ctx context.Context, owner, id string) (store.WebhookEndpoint, error)
	WebhookDeliveries(ctx context.Context, endpoint string, limit int, cursor string) (store.Page[store.WebhookDeliveryLog], error)
	ResendWebhookEvent(ctx context.Context, owner, endpoint, eventID string) (store.WebhookEvent, error)
	EnableWebhook(ctx context.Context, owner, id string) (store.WebhookEndpoint, error)
}

// AdminWebhook serves /admin/webhooks/{owner}/{id}: one endpoint of an
// owner (an integration's name) with its attempts newest first, a resend
// per event, and Enable for one disabled for failing.
type AdminWebhook struct {
	Store AdminWebhookDeliveryStore
	// Reload has this replica's key cache learn an endpoint enabled now.
	Reload func(ctx context.Context) error
	// Wake has the deliverer send a resent event now.
	Wake func()
	Log  *slog.Logger
}

// adminDeliveriesPage is how many attempts a page shows.
const adminDeliveriesPage = 25

// hook reads the endpoint of the path's owner and id, or a 404.
func (h *AdminWebhook) hook(c *fiber.Ctx) (string, store.WebhookEndpoint, error) {
	owner, id := c.Params("owner"), c.Params("id")
	if !store.ValidWebhookOwner(owner) || !store.ValidID(id) {
		return "", store.WebhookEndpoint{}, page.NotFound("admin.webhook.not_found")
	}
	e, err := h.Store.Webhook(c.UserContext(), owner, id)
	if err != nil {
		return "", store.WebhookEndpoint{}, notFoundAs(err, "admin.webhook.not_found")
	}
	e.Secret = "" // never on a page but the one after its registration
	return owner, e, nil
}

// Show is the endpoint with a page of its attempts; htmx's "Show more"
// asks for the next page's rows only.
func (h *AdminWebhook) Show(c *fiber.Ctx) error {
	owner, e, err := h.hook(c)
	if err != nil {
		return err
	}
	cursor := c.Query("after")
	log, err := h.Store.WebhookDeliveries(c.UserContext(), e.ID, adminDeliveriesPage, cursor)
	if errors.Is(err, store.ErrBadCursor) {
		return page.BadRequest(page.T(c, "admin.webhook.err.cursor"))
	}
	if err != nil {
		return err
	}
	csrf := page.CSRFToken(c)
	p := views.AdminWebhookPage{Owner: owner, Hook: e, CSRF: csrf,
		Rows: views.AdminDeliveryRows{NextURL: paths.More(paths.AdminWebhook(owner, e.ID), log.Next)}}
	for _, l := range log.Items {
		p.Rows.Rows = append(p.Rows.Rows, views.AdminDeliveryRow{Owner: owner, Hook: e.ID, Log: l, CSRF: csrf})
	}
	v := page.View{Title: page.T(c, "admin.webhook.title"), Page: page.Full(views.AdminWebhookView, p)}
	if cursor != "" {
		v.Partial = views.AdminDeliveryRowsView(p.Rows)
	}
	return page.Render(c, fiber.StatusOK, v)
}

// Resend makes the event due to the endpoint now: for htmx the state of
// the row it was asked from, else back to the page (303) with a flash.
func (h *AdminWebhook) Resend(c *fiber.Ctx) error {
	owner, e, err := h.hook(c)
	if err != nil {
		return err
	}
	event, err := pathID(c, "event", "admin.webhook.event_not_found")
	if err != nil {
		return err
	}
	ev, err := h.Store.ResendWebhookEvent(c.UserContext(), owner, e.ID, event)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return page.NotFound("admin.webhook.event_not_found")
	case errors.Is(err, store.ErrConflict):
		return &page.Error{Status: fiber.StatusServiceUnavailable, Message: page.T(c, "admin.webhook.err.busy"), Err: err}
	case err != nil:
		return err
	}
	if h.Wake != nil {
		h.Wake()
	}
	if !page.IsHTMX(c) {
		page.Flash(c, views.FlashSuccess, page.T(c, "admin.webhook.resent", "Type", ev.Type))
		return page.Redirect(c, paths.AdminWebhook(owner, e.ID))
	}
	d := ev.Deliveries[e.ID]
	row := views.AdminDeliveryRow{Owner: owner, Hook: e.ID, CSRF: page.CSRFToken(c), Resent: true,
		Log: store.WebhookDeliveryLog{WebhookAttempt: store.WebhookAttempt{EventID: ev.ID, Type: ev.Type}, Now: d.Status, NextAt: d.NextAt}}
	return page.Write(c, fiber.StatusOK, views.AdminDeliveryStateView(row))
}

// Enable enables a disabled endpoint: back to its page (303) with a flash.
func (h *AdminWebhook) Enable(c *fiber.Ctx) error {
	owner, e, err := h.hook(c)
	if err != nil {
		return err
	}
	if _, err := h.Store.EnableWebhook(c.UserContext(), owner, e.ID); err != nil {
		return notFoundAs(err, "admin.webhook.not_found")
	}
	if h.Reload != nil {
		if err := h.Reload(c.UserContext()); err != nil {
			if h.Log != nil {
				h.Log.Warn("reload API keys after enabling a webhook", "err", err)
			}
		}
	}
	page.Flash(c, views.FlashSuccess, page.T(c, "admin.webhook.enabled_flash"))
	return page.Redirect(c, paths.AdminWebhook(owner, e.ID))
}
