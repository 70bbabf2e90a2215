package handlers

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/jobs/webhook"
	"shop/store"
	"shop/views"
	"shop/web/paths"
)

// AdminWebhookStore is what the console's webhooks pages read and write.
type AdminWebhookStore interface {
	AllWebhooks(ctx context.Context) ([]store.WebhookEndpoint, error)
	Webhook(ctx context.Context, owner, id string) (store.WebhookEndpoint, error)
	CreateStaffWebhook(ctx context.Context, url string, events []string) (store.WebhookEndpoint, error)
	DeleteWebhook(ctx context.Context, owner, id string) error
}

// AdminWebhooks serves /admin/webhooks: every endpoint, each
// integration's and staff's; staff register endpoints for the shop's own
// events (a secret shown once) and delete any endpoint.
type AdminWebhooks struct {
	Store AdminWebhookStore
	// Keys is the replica's key cache, reloaded after a change so that
	// this replica's next write announces to the new endpoint at once.
	Keys *APIKeys
	// AllowPrivate lets http:// and local URLs through
	// (SHOP_WEBHOOK_ALLOW_PRIVATE).
	AllowPrivate bool
}

// onceCreatedWebhook keeps, for the page after a registration, which
// endpoint's secret to show (its id, not the secret).
const onceCreatedWebhook = "webhook_created"

// List shows every endpoint and the form to register one; right after a
// registration, its secret, this once.
func (h *AdminWebhooks) List(c *fiber.Ctx) error {
	var created *store.WebhookEndpoint
	if id := page.TakeOnce(c, onceCreatedWebhook); store.ValidID(id) {
		e, err := h.Store.Webhook(c.UserContext(), store.StaffWebhooks, id)
		if err != nil && !errors.Is(err, store.ErrNotFound) { // deleted since: nothing to show
			return err
		}
		if err == nil {
			created = &e
		}
	}
	return h.render(c, fiber.StatusOK, views.AdminWebhookForm{}, created)
}

func (h *AdminWebhooks) render(c *fiber.Ctx, status int, f views.AdminWebhookForm, created *store.WebhookEndpoint) error {
	f.CSRF = page.CSRFToken(c)
	all, err := h.Store.AllWebhooks(c.UserContext())
	if err != nil {
		return err
	}
	data := views.AdminWebhooks{Endpoints: all, Form: f, Created: created, CSRF: f.CSRF}
	// The page may carry a secret: no cache keeps it (page.Write marks a
	// signed-in visit's pages no-store).
	return page.Render(c, status, page.View{Title: page.T(c, "admin.webhooks.title"), Page: page.Full(views.AdminWebhooksView, data)})
}

// Create registers a staff endpoint and sees the list again (303), which
// shows its secret once; a form in error comes back with its fields'
// errors (422).
func (h *AdminWebhooks) Create(c *fiber.Ctx) error {
	f := views.AdminWebhookForm{URL: strings.TrimSpace(page.Field(c, "url")), Errors: views.FieldErrors{}}
	for _, v := range c.Request().PostArgs().PeekMulti("events") {
		f.Events = append(f.Events, string(v))
	}
	switch err := webhook.CheckURL(f.URL, h.AllowPrivate); {
	case f.URL == "":
		f.Errors["url"] = page.T(c, "admin.webhooks.err.url_empty")
	case err != nil:
		f.Errors["url"] = page.T(c, "admin.webhooks.err.url_bad", "Why", err.Error())
	}
	switch {
	case len(f.Events) == 0:
		f.Errors["events"] = page.T(c, "admin.webhooks.err.events_none")
	case slices.ContainsFunc(f.Events, func(e string) bool { return !slices.Contains(store.ShopEventTypes, e) }):
		f.Errors["events"] = page.T(c, "admin.webhooks.err.events_bad")
	}
	if f.Errors.Any() {
		return h.render(c, fiber.StatusUnprocessableEntity, f, nil)
	}
	slices.Sort(f.Events)
	e, err := h.Store.CreateStaffWebhook(c.UserContext(), f.URL, slices.Compact(f.Events))
	if errors.Is(err, store.ErrTooManyStaffWebhooks) {
		f.Errors[""] = page.T(c, "admin.webhooks.err.too_many", "Max", store.MaxStaffWebhooks)
		return h.render(c, fiber.StatusConflict, f, nil)
	}
	if err != nil {
		return err
	}
	h.reload(c)
	page.KeepOnce(c, onceCreatedWebhook, e.ID)
	return page.Redirect(c, paths.AdminWebhooks)
}

// endpoint is the endpoint of the URL's owner and id.
func (h *AdminWebhooks) endpoint(c *fiber.Ctx) (store.WebhookEndpoint, error) {
	owner, id := c.Params("owner"), c.Params("id")
	if !store.ValidWebhookOwner(owner) || !store.ValidID(id) {
		return store.WebhookEndpoint{}, page.NotFound("admin.webhooks.not_found")
	}
	e, err := h.Store.Webhook(c.UserContext(), owner, id)
	if err != nil {
		return e, notFoundAs(err, "admin.webhooks.not_found")
	}
	e.Secret = "" // never on a page but the one after its registration
	return e, nil
}

// ConfirmDelete asks before deleting an endpoint.
func (h *AdminWebhooks) ConfirmDelete(c *fiber.Ctx) error {
	e, err := h.endpoint(c)
	if err != nil {
		return err
	}
	data := views.AdminWebhookDelete{Endpoint: e, CSRF: page.CSRFToken(c)}
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "admin.webhooks.delete_title"), Page: page.Full(views.AdminWebhookDeleteView, data)})
}

// Delete removes an endpoint, an integration's or staff's: its events
// waiting are not sent to it any more.
func (h *AdminWebhooks) Delete(c *fiber.Ctx) error {
	e, err := h.endpoint(c)
	if err != nil {
		return err
	}
	err = h.Store.DeleteWebhook(c.UserContext(), e.Integration, e.ID)
	switch {
	case errors.Is(err, store.ErrNotFound): // deleted meanwhile (a second click)
		page.Flash(c, views.FlashInfo, page.T(c, "admin.webhooks.flash_gone"))
	case err != nil:
		return err
	default:
		page.Flash(c, views.FlashSuccess, page.T(c, "admin.webhooks.flash_deleted", "URL", e.URL))
	}
	h.reload(c)
	return page.Redirect(c, paths.AdminWebhooks)
}

// reload has this replica's key cache learn the change now; a failure
// only delays it to the next interval.
func (h *AdminWebhooks) reload(c *fiber.Ctx) {
	if h.Keys == nil {
		return
	}
	if err := h.Keys.Load(c.UserContext()); err != nil {
		h.Keys.log.Warn("reload API keys after a webhook change", "err", err)
	}
}
