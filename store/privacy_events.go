package store

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"
)

// A customer's shop events: order.placed and the others carry names,
// emails and addresses to staff's endpoints. Each is listed in GSI1 under
// whevents-of#<customer> (sparse: only shop events have the key), so the
// privacy export lists them with their delivery attempts (items beside the
// event, whevent#id / attempt#...) and erasure deletes both.

// CustomerWebhookEvent is a shop event that carries a customer's data,
// with its delivery attempts (each keeps the status, the time, the
// answer's first 256 bytes and the duration, for 30 days).
type CustomerWebhookEvent struct {
	Event    WebhookEvent
	Attempts []WebhookAttempt
	// SentTo is the URL of each endpoint the event is for (by id), as
	// registered now; an endpoint deleted since is left out.
	SentTo map[string]string
}

// CustomerWebhookEvents lists the shop events carrying the customer's
// data, newest first, each with its attempts: a Query of GSI1 per 100
// events, one of staff's endpoints, and one Query per event.
func (s *Store) CustomerWebhookEvents(ctx context.Context, customerID string) ([]CustomerWebhookEvent, error) {
	events, err := allPages(func(cursor string) (Page[WebhookEvent], error) {
		return pagedQuery(ctx, s, querySpec{key: onGSI1.pkEquals(customerEventsKey(customerID)), backward: true}, 100, cursor, webhookEventRecord.event)
	})
	if err != nil || len(events) == 0 {
		return nil, err
	}
	hooks, err := s.Webhooks(ctx, StaffWebhooks)
	if err != nil {
		return nil, err
	}
	urls := map[string]string{}
	for _, h := range hooks {
		urls[h.ID] = h.URL
	}
	out := make([]CustomerWebhookEvent, len(events))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for i, e := range events {
		out[i] = CustomerWebhookEvent{Event: e, SentTo: map[string]string{}}
		for ep := range e.Deliveries {
			if u, ok := urls[ep]; ok {
				out[i].SentTo[ep] = u
			}
		}
		g.Go(func() (err error) {
			out[i].Attempts, err = s.eventAttempts(gctx, e.ID)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("webhook events of customer %s: %w", customerID, err)
	}
	return out, nil
}

// eventAttempts are an event's delivery attempts, by endpoint and time.
func (s *Store) eventAttempts(ctx context.Context, eventID string) ([]WebhookAttempt, error) {
	return allPages(func(cursor string) (Page[WebhookAttempt], error) {
		q := querySpec{key: onTable.pkAndSKPrefix(webhookEventKey(eventID), prefixWebhookAttempt), consistent: true}
		return pagedQuery(ctx, s, q, 100, cursor, webhookAttemptRecord.attempt)
	})
}

// forgetWebhookEvents deletes the customer's shop events and their
// attempts, whether delivered or still waiting (a waiting one is not sent
// any more): each event's whole partition.
func (s *Store) forgetWebhookEvents(ctx context.Context, customerID string) error {
	ids, err := allPages(func(cursor string) (Page[string], error) {
		return pagedQuery(ctx, s, querySpec{key: onGSI1.pkEquals(customerEventsKey(customerID))}, 100, cursor,
			func(r webhookEventRecord) string { return r.PK })
	})
	if err != nil {
		return err
	}
	for _, pk := range ids {
		if err := s.deletePartition(ctx, pk); err != nil {
			return fmt.Errorf("webhook event %s: %w", pk, err)
		}
	}
	return nil
}
