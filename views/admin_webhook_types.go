package views

import (
	"context"
	"fmt"
	"time"

	"shop/store"
)

// AdminWebhookPage is one webhook endpoint for staff: whose it is, where
// it goes, whether it is enabled, and a page of its delivery attempts,
// newest first, each resendable.
type AdminWebhookPage struct {
	Owner string
	Hook  store.WebhookEndpoint
	Rows  AdminDeliveryRows
	CSRF  string
}

// AdminDeliveryRows is a page of an endpoint's attempts and its "Show
// more" (htmx asks for the next page's rows only).
type AdminDeliveryRows struct {
	Rows    []AdminDeliveryRow
	NextURL string
}

// AdminDeliveryRow is one attempt, with its delivery's state now and the
// form that resends its event.
type AdminDeliveryRow struct {
	Owner, Hook string
	Log         store.WebhookDeliveryLog
	CSRF        string
	// Resent: the event was just made due again (the htmx answer).
	Resent bool
}

// adminDuration is how long an answer took: "84 ms", "2.3 s".
func adminDuration(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

// adminSecondsOfDay is an attempt's time of day to the second, with the
// zone: "12:56:31 UTC" (retries come seconds apart).
func adminSecondsOfDay(ctx context.Context, t time.Time) string {
	return t.In(Zone(ctx)).Format("15:04:05\u00a0MST")
}

// deliveryStateIDs name a delivery's states.
var deliveryStateIDs = map[store.DeliveryStatus]string{
	store.DeliveryPending:   "admin.webhook.state.pending",
	store.DeliveryDelivered: "admin.webhook.state.delivered",
	store.DeliveryFailed:    "admin.webhook.state.failed",
	store.DeliveryDropped:   "admin.webhook.state.failed",
}

// deliveryNext is when a pending delivery goes next; "" otherwise.
func deliveryNext(ctx context.Context, l store.WebhookDeliveryLog) string {
	if l.Now != store.DeliveryPending || l.NextAt.IsZero() {
		return ""
	}
	at := adminSecondsOfDay(ctx, l.NextAt)
	if adminDay(ctx, l.NextAt) != adminDay(ctx, time.Now()) {
		at = adminDay(ctx, l.NextAt) + " " + at
	}
	return t(ctx, "admin.webhook.state.next", "Time", at)
}

// deliveryState is a delivery's state now in the page's language.
func deliveryState(ctx context.Context, l store.WebhookDeliveryLog) string {
	id, ok := deliveryStateIDs[l.Now]
	if !ok {
		return string(l.Now)
	}
	return t(ctx, id)
}
