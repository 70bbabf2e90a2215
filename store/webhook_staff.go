package store

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"
)

// Staff's webhook endpoints: where the shop's own events go (orders,
// subscriptions). They live in a partition of their own, staff-hooks /
// hook#id, under the owner StaffWebhooks, which is no integration's name
// (an integration's is letters, digits, '-' and '_'), so the two never
// collide; like an integration's, each is listed in GSI1 apikeys, so every
// replica's key cache knows which want which events without a read of
// its own.

// StaffWebhooks is the owner of staff's endpoints where an integration's
// name would be (WebhookEndpoint.Integration, WebhookEvent.Integration,
// the console's /admin/webhooks/{owner}/{id}).
const StaffWebhooks = "~staff"

// Shop event types: sent only to staff's endpoints.
const (
	EventOrderPlaced               = "order.placed"
	EventOrderShipped              = "order.shipped"
	EventOrderRefunded             = "order.refunded"
	EventSubscriptionCreated       = "subscription.created"
	EventSubscriptionRenewed       = "subscription.renewed"
	EventSubscriptionPaymentFailed = "subscription.payment_failed"
	EventSubscriptionCancelled     = "subscription.cancelled"
)

// ShopEventTypes are the events a staff endpoint can ask for.
var ShopEventTypes = []string{EventOrderPlaced, EventOrderShipped, EventOrderRefunded, EventSubscriptionCreated,
	EventSubscriptionRenewed, EventSubscriptionPaymentFailed, EventSubscriptionCancelled}

// MaxStaffWebhooks bounds staff's endpoints (and so the deliveries one
// shop event fans out to).
const MaxStaffWebhooks = 10

// ErrTooManyStaffWebhooks refuses a staff endpoint past the bound.
var ErrTooManyStaffWebhooks = fmt.Errorf("staff have at most %d webhook endpoints", MaxStaffWebhooks)

// ValidWebhookOwner reports whether owner can own endpoints: an
// integration's name, or StaffWebhooks.
func ValidWebhookOwner(owner string) bool {
	return owner == StaffWebhooks || ValidIntegrationName(owner)
}

// webhookOwnerKey is the partition of owner's endpoints.
func webhookOwnerKey(owner string) string {
	if owner == StaffWebhooks {
		return partitionStaffWebhooks
	}
	return integrationKey(owner)
}

// CreateStaffWebhook registers a staff endpoint for shop events with a
// new secret (returned in it): a Query counting staff's endpoints
// (ErrTooManyStaffWebhooks at MaxStaffWebhooks), then one PutItem. The
// URL and events are the caller's to check.
func (s *Store) CreateStaffWebhook(ctx context.Context, url string, events []string) (WebhookEndpoint, error) {
	have, err := s.Webhooks(ctx, StaffWebhooks)
	if err != nil {
		return WebhookEndpoint{}, err
	}
	if len(have) >= MaxStaffWebhooks {
		return WebhookEndpoint{}, ErrTooManyStaffWebhooks
	}
	secret, err := newWebhookSecret()
	if err != nil {
		return WebhookEndpoint{}, err
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	e := WebhookEndpoint{ID: NewID(), Integration: StaffWebhooks, URL: url, Events: slices.Clone(events), Secret: secret, CreatedAt: now}
	err = s.putNew(ctx, webhookRecord{PK: partitionStaffWebhooks, SK: webhookKey(e.ID), EntityType: entityWebhook, ID: e.ID,
		Integration: StaffWebhooks, URL: url, Events: e.Events, Secret: secret, CreatedAt: timestamp(now),
		GSI1PK: partitionAPIKeys, GSI1SK: createdKey(now, e.ID)}, "staff webhook")
	if err != nil {
		return WebhookEndpoint{}, fmt.Errorf("create staff webhook: %w", err)
	}
	return e, nil
}

// AllWebhooks are every endpoint, each integration's and staff's, without
// their secrets, staff's first and then by owner, oldest first (the
// APIAccess Query).
func (s *Store) AllWebhooks(ctx context.Context) ([]WebhookEndpoint, error) {
	access, err := s.APIAccess(ctx)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(access.Webhooks)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Integration != b.Integration {
			return a.Integration == StaffWebhooks || b.Integration != StaffWebhooks && a.Integration < b.Integration
		}
		return a.CreatedAt.Before(b.CreatedAt)
	})
	return out, nil
}
