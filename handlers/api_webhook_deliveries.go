package handlers

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/store"
)

// An endpoint's deliveries through the API: its attempts newest first,
// a resend of one event to it, and enabling it again once disabled for
// failing. Another integration's endpoint or event is a 404.

// APIWebhookDeliveryStore is what the deliveries API reads and writes.
type APIWebhookDeliveryStore interface {
	Webhook(ctx context.Context, integration, id string) (store.WebhookEndpoint, error)
	WebhookDeliveries(ctx context.Context, endpoint string, limit int, cursor string) (store.Page[store.WebhookDeliveryLog], error)
	ResendWebhookEvent(ctx context.Context, owner, endpoint, eventID string) (store.WebhookEvent, error)
	EnableWebhook(ctx context.Context, owner, id string) (store.WebhookEndpoint, error)
}

// APIWebhookDeliveries serves /api/v1/webhooks/{id}/deliveries and
// /api/v1/webhooks/{id}/enable.
type APIWebhookDeliveries struct {
	Store APIWebhookDeliveryStore
	// Keys learns an endpoint enabled at once on this replica.
	Keys *APIKeys
	// Wake has the deliverer send a resent event now.
	Wake func()
}

// Bounds of GET /api/v1/webhooks/{id}/deliveries.
const (
	apiDeliveriesDefault  = 20
	apiDeliveriesMaxLimit = 100
)

// APIDelivery is one attempt to deliver an event to an endpoint, with
// where that delivery is now.
type APIDelivery struct {
	Event      string    `json:"event"` // the id the event's body carries, evt_…
	Type       string    `json:"type"`
	At         time.Time `json:"at"`
	Status     int       `json:"status"`           // the HTTP status; 0 when no answer came
	Answer     string    `json:"answer"`           // the answer's first bytes, or why none came
	DurationMS int64     `json:"duration_ms"`      // how long the answer took
	State      string    `json:"state"`            // the delivery now: pending, delivered or failed
	NextAt     time.Time `json:"next_at,omitzero"` // when a pending one is tried next
}

// APIDeliveryList is a page of an endpoint's attempts, newest first; Next
// is the cursor of the page after it, empty on the last page.
type APIDeliveryList struct {
	Deliveries []APIDelivery `json:"deliveries"`
	Next       string        `json:"next"`
}

// APIResent is the answer of a resend: the event is due to the endpoint.
type APIResent struct {
	Event  string    `json:"event"`
	State  string    `json:"state"`
	NextAt time.Time `json:"next_at"`
}

// apiEventID is the event's id in the API, as its body names it.
func apiEventID(id string) string { return "evt_" + id }

// apiDeliveryState is a delivery's state as the API names it: an
// endpoint's own deliveries are never dropped (that is a deleted one's).
func apiDeliveryState(s store.DeliveryStatus) string {
	if s == store.DeliveryDropped {
		return string(store.DeliveryFailed)
	}
	return string(s)
}

// hook reads the key's endpoint of the path's id, or answers 404.
func (h *APIWebhookDeliveries) hook(c *fiber.Ctx) (store.WebhookEndpoint, error) {
	id := c.Params("id")
	if !store.ValidID(id) {
		return store.WebhookEndpoint{}, apiNotFound("the webhook")
	}
	e, err := h.Store.Webhook(c.UserContext(), APIKeyOf(c).Integration, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.WebhookEndpoint{}, apiNotFound("the webhook")
	}
	return e, err
}

// List answers the endpoint's attempts, newest first, paged (limit,
// after).
func (h *APIWebhookDeliveries) List(c *fiber.Ctx) error {
	limit, err := apiLimit(c, apiDeliveriesDefault, apiDeliveriesMaxLimit)
	if err != nil {
		return err
	}
	hook, err := h.hook(c)
	if err != nil {
		return err
	}
	page, err := h.Store.WebhookDeliveries(c.UserContext(), hook.ID, limit, strings.TrimSpace(c.Query("after")))
	if errors.Is(err, store.ErrBadCursor) {
		return apiBadRequest("after", "after: this cursor is not one this list gave")
	}
	if err != nil {
		return err
	}
	out := APIDeliveryList{Deliveries: make([]APIDelivery, 0, len(page.Items)), Next: page.Next}
	for _, l := range page.Items {
		d := APIDelivery{Event: apiEventID(l.EventID), Type: l.Type, At: l.At.UTC(), Status: l.Status, Answer: l.Answer,
			DurationMS: l.Duration.Milliseconds(), State: apiDeliveryState(l.Now)}
		if l.Now == store.DeliveryPending {
			d.NextAt = l.NextAt.UTC()
		}
		out.Deliveries = append(out.Deliveries, d)
	}
	return c.JSON(out)
}

// Resend makes the event due to the endpoint now, whatever became of it:
// 202; 404 for an event that is not the key's, was never addressed to
// this endpoint, or is gone (events are kept 30 days).
func (h *APIWebhookDeliveries) Resend(c *fiber.Ctx) error {
	hook, err := h.hook(c)
	if err != nil {
		return err
	}
	event, ok := strings.CutPrefix(c.Params("event"), "evt_")
	if !ok || !store.ValidID(event) {
		return apiNotFound("the event")
	}
	e, err := h.Store.ResendWebhookEvent(c.UserContext(), APIKeyOf(c).Integration, hook.ID, event)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return apiNotFound("the event")
	case errors.Is(err, store.ErrConflict):
		return &APIError{Status: fiber.StatusServiceUnavailable, Reason: ReasonBusy, Message: "the event is being delivered just now; try again", Err: err}
	case err != nil:
		return err
	}
	if h.Wake != nil {
		h.Wake()
	}
	d := e.Deliveries[hook.ID]
	return c.Status(fiber.StatusAccepted).JSON(APIResent{Event: apiEventID(e.ID), State: string(d.Status), NextAt: d.NextAt.UTC()})
}

// Enable enables the endpoint again after it was disabled for failing:
// 200 with the endpoint. Deliveries failed meanwhile stay failed; resend
// those wanted.
func (h *APIWebhookDeliveries) Enable(c *fiber.Ctx) error {
	hook, err := h.hook(c)
	if err != nil {
		return err
	}
	e, err := h.Store.EnableWebhook(c.UserContext(), hook.Integration, hook.ID)
	if errors.Is(err, store.ErrNotFound) {
		return apiNotFound("the webhook")
	}
	if err != nil {
		return err
	}
	if h.Keys != nil {
		if err := h.Keys.Load(c.UserContext()); err != nil {
			h.Keys.log.Warn("reload API keys after enabling a webhook", "err", err)
		}
	}
	return c.JSON(apiWebhookOf(e))
}
