package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// An endpoint's deliveries as its owner sees them (the API and the
// console): its attempts, newest first, each with the state its event's
// delivery to the endpoint is in now; and a resend, which makes an event
// due to the endpoint again at once, whatever became of it.

// WebhookDeliveryLog is one attempt of an endpoint, with where its
// delivery is now (pending again after a resend, delivered by a later
// attempt, failed) and when a pending one is next tried.
type WebhookDeliveryLog struct {
	WebhookAttempt
	Now    DeliveryStatus
	NextAt time.Time
}

// WebhookDeliveries lists an endpoint's attempts, newest first, paged: one
// Query of its attempts (GSI1: hook#<id>#attempts) and one BatchGetItem of
// their events for their state now. An event gone (kept 30 days) leaves
// the state its last attempt recorded. The caller checks that the endpoint
// is the owner's (Webhook).
func (s *Store) WebhookDeliveries(ctx context.Context, endpoint string, limit int, cursor string) (Page[WebhookDeliveryLog], error) {
	attempts, err := s.WebhookAttempts(ctx, endpoint, limit, cursor)
	if err != nil {
		return Page[WebhookDeliveryLog]{}, fmt.Errorf("attempts of webhook %s: %w", endpoint, err)
	}
	seen := map[string]bool{}
	var keys []map[string]types.AttributeValue
	for _, a := range attempts.Items {
		if !seen[a.EventID] {
			seen[a.EventID] = true
			keys = append(keys, itemKey(webhookEventKey(a.EventID), sortKeyWebhookEvent))
		}
	}
	events := make(map[string]WebhookEvent, len(keys))
	err = s.batchGet(ctx, keys, false, func(item map[string]types.AttributeValue) error {
		var r webhookEventRecord
		if err := attributevalue.UnmarshalMap(item, &r); err != nil {
			return err
		}
		e := r.event()
		events[e.ID] = e
		return nil
	})
	if err != nil {
		return Page[WebhookDeliveryLog]{}, fmt.Errorf("events of webhook %s's attempts: %w", endpoint, err)
	}
	out := Page[WebhookDeliveryLog]{Items: make([]WebhookDeliveryLog, 0, len(attempts.Items)), Next: attempts.Next}
	for _, a := range attempts.Items {
		l := WebhookDeliveryLog{WebhookAttempt: a, Now: a.State}
		if e, ok := events[a.EventID]; ok {
			if d, ok := e.Deliveries[endpoint]; ok {
				l.Now, l.NextAt = d.Status, d.NextAt
			}
			if l.Type == "" {
				l.Type = e.Type
			}
		}
		out.Items = append(out.Items, l)
	}
	return out, nil
}

// resendTries bounds a resend's reads and writes when the deliverer (or
// another resend) saves the event in between.
const resendTries = 8

// ResendWebhookEvent makes the event's delivery to one of owner's
// endpoints due now, delivered or failed or pending, with its retries
// starting over (given up three days from now); the event body is sent as
// it was. ErrNotFound when the event is gone, is not owner's, or was never
// addressed to the endpoint. A consistent GetItem and a conditional write
// on the event's version; when the deliverer saved it in between, read and
// try again (ErrConflict after resendTries).
func (s *Store) ResendWebhookEvent(ctx context.Context, owner, endpoint, eventID string) (WebhookEvent, error) {
	for range resendTries {
		e, err := s.WebhookEvent(ctx, eventID)
		if err != nil {
			return WebhookEvent{}, err
		}
		if _, ok := e.Deliveries[endpoint]; !ok || e.Integration != owner {
			return WebhookEvent{}, fmt.Errorf("webhook event %s of %s: %w", eventID, endpoint, ErrNotFound)
		}
		now := s.now().UTC().Truncate(time.Millisecond)
		next, err := s.saveWebhookDelivery(ctx, e, endpoint, WebhookDelivery{Status: DeliveryPending, NextAt: now, Since: now})
		if errors.Is(err, ErrConflict) {
			continue
		}
		if err != nil {
			return WebhookEvent{}, fmt.Errorf("resend: %w", err)
		}
		return next, nil
	}
	return WebhookEvent{}, fmt.Errorf("resend webhook event %s: saved by others %d times: %w", eventID, resendTries, ErrConflict)
}
