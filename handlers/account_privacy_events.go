package handlers

import (
	"encoding/json"
	"sort"
	"time"

	"shop/store"
)

// The export's webhook events: each shop event that carried the
// customer's data to staff's endpoints (another system the shop uses),
// what it sent, where, and how each delivery went.
type (
	exportWebhookEvent struct {
		ID       string                 `json:"id"`
		Type     string                 `json:"type"`
		Created  time.Time              `json:"created"`
		Sent     json.RawMessage        `json:"sent"` // the body, as sent
		SentTo   []string               `json:"sentTo"`
		Attempts []exportWebhookAttempt `json:"attempts"`
	}
	exportWebhookAttempt struct {
		At         time.Time `json:"at"`
		Status     int       `json:"status"`
		Answer     string    `json:"answer"`
		DurationMS int64     `json:"durationMs"`
		KeptUntil  time.Time `json:"keptUntil"`
	}
)

// webhookAttemptsKept is how long an attempt is kept (the store's TTL).
const webhookAttemptsKept = 30 * 24 * time.Hour

func exportWebhookEventsOf(events []store.CustomerWebhookEvent) []exportWebhookEvent {
	out := []exportWebhookEvent{}
	for _, ce := range events {
		e := exportWebhookEvent{ID: "evt_" + ce.Event.ID, Type: ce.Event.Type, Created: ce.Event.CreatedAt.UTC(), SentTo: []string{},
			Attempts: []exportWebhookAttempt{}}
		if json.Valid(ce.Event.Body) {
			e.Sent = json.RawMessage(ce.Event.Body)
		}
		for _, u := range ce.SentTo {
			e.SentTo = append(e.SentTo, u)
		}
		sort.Strings(e.SentTo)
		for _, a := range ce.Attempts {
			e.Attempts = append(e.Attempts, exportWebhookAttempt{At: a.At.UTC(), Status: a.Status, Answer: a.Answer,
				DurationMS: a.Duration.Milliseconds(), KeptUntil: a.At.Add(webhookAttemptsKept).UTC()})
		}
		out = append(out, e)
	}
	return out
}
