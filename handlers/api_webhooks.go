package handlers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/jobs/webhook"
	"shop/store"
	"shop/web/paths"
)

// APIWebhookStore is what the webhooks API writes and lists.
type APIWebhookStore interface {
	CreateWebhook(ctx context.Context, integration, url string, events []string) (store.WebhookEndpoint, error)
	Webhooks(ctx context.Context, integration string) ([]store.WebhookEndpoint, error)
	DeleteWebhook(ctx context.Context, integration, id string) error
}

// APIWebhooks serves /api/v1/webhooks: an integration registers, lists
// and removes the endpoints its drops' events are sent to. A key sees
// only its integration's endpoints; another's id is a 404.
type APIWebhooks struct {
	Store APIWebhookStore
	// Keys is the replica's key cache, reloaded after a change so that
	// this replica's next write announces to the new endpoint at once.
	Keys *APIKeys
	// AllowPrivate lets http:// and local URLs through
	// (SHOP_WEBHOOK_ALLOW_PRIVATE).
	AllowPrivate bool
}

// APIWebhook is an endpoint as the API shows it; Secret only in the
// answer that made it.
type APIWebhook struct {
	ID      string    `json:"id"`
	URL     string    `json:"url"`
	Events  []string  `json:"events"`
	Secret  string    `json:"secret,omitempty"`
	Created time.Time `json:"created"`
	// Disabled after refusing every delivery for three days, since
	// DisabledAt; POST /api/v1/webhooks/{id}/enable enables it again.
	Disabled   bool      `json:"disabled"`
	DisabledAt time.Time `json:"disabled_at,omitzero"`
}

// APIWebhookList is an integration's endpoints, oldest first.
type APIWebhookList struct {
	Webhooks []APIWebhook `json:"webhooks"`
}

func apiWebhookOf(e store.WebhookEndpoint) APIWebhook {
	return APIWebhook{ID: e.ID, URL: e.URL, Events: e.Events, Created: e.CreatedAt.UTC(), Disabled: e.Disabled, DisabledAt: e.DisabledAt.UTC()}
}

// Create registers an endpoint: 201 with its secret, shown this once; 400
// naming the field at fault; 409 past the bound of endpoints.
func (h *APIWebhooks) Create(c *fiber.Ctx) error {
	var in struct {
		URL    string   `json:"url"`
		Events []string `json:"events"`
	}
	if err := apiDecode(c, &in); err != nil {
		return err
	}
	in.URL = strings.TrimSpace(in.URL)
	if in.URL == "" {
		return apiBadRequest("url", "url: give the https:// URL the events are sent to")
	}
	if err := webhook.CheckURL(in.URL, h.AllowPrivate); err != nil {
		return apiBadRequest("url", "url: "+err.Error())
	}
	if err := checkWebhookEvents(in.Events); err != nil {
		return err
	}
	integration := APIKeyOf(c).Integration
	e, err := h.Store.CreateWebhook(c.UserContext(), integration, in.URL, in.Events)
	switch {
	case errors.Is(err, store.ErrTooManyWebhooks):
		return &APIError{Status: fiber.StatusConflict, Reason: ReasonTooMany, Message: err.Error()}
	case err != nil:
		return err
	}
	h.reload(c)
	out := apiWebhookOf(e)
	out.Secret = e.Secret
	c.Location(paths.APIWebhook(e.ID))
	return c.Status(fiber.StatusCreated).JSON(out)
}

// checkWebhookEvents refuses an empty list, an unknown event or one twice.
func checkWebhookEvents(events []string) error {
	known := strings.Join(store.WebhookEventTypes, ", ")
	if len(events) == 0 {
		return apiBadRequest("events", "events: name at least one of "+known)
	}
	for i, ev := range events {
		if !slices.Contains(store.WebhookEventTypes, ev) {
			return apiBadRequest("events", fmt.Sprintf("events: unknown event %q; the events are %s", ev, known))
		}
		if slices.Contains(events[:i], ev) {
			return apiBadRequest("events", fmt.Sprintf("events: %q is named twice", ev))
		}
	}
	return nil
}

// List answers the integration's endpoints, without their secrets.
func (h *APIWebhooks) List(c *fiber.Ctx) error {
	hooks, err := h.Store.Webhooks(c.UserContext(), APIKeyOf(c).Integration)
	if err != nil {
		return err
	}
	out := APIWebhookList{Webhooks: make([]APIWebhook, 0, len(hooks))}
	for _, e := range hooks {
		out.Webhooks = append(out.Webhooks, apiWebhookOf(e))
	}
	return c.JSON(out)
}

// Delete removes one of the integration's endpoints: 204, or 404.
func (h *APIWebhooks) Delete(c *fiber.Ctx) error {
	id := c.Params("id")
	if !store.ValidID(id) {
		return apiNotFound("the webhook")
	}
	err := h.Store.DeleteWebhook(c.UserContext(), APIKeyOf(c).Integration, id)
	if errors.Is(err, store.ErrNotFound) {
		return apiNotFound("the webhook")
	}
	if err != nil {
		return err
	}
	h.reload(c)
	return c.SendStatus(fiber.StatusNoContent)
}

// reload has this replica's key cache learn the change now; a failure
// only delays it to the next interval.
func (h *APIWebhooks) reload(c *fiber.Ctx) {
	if h.Keys == nil {
		return
	}
	if err := h.Keys.Load(c.UserContext()); err != nil {
		h.Keys.log.Warn("reload API keys after a webhook change", "err", err)
	}
}
