package store

import (
	"context"
	"time"
)

// What the tests of package store_test call that no other package does:
// exported here, in the tests' build only, so that the store's own
// exported surface is what other packages use.

func (s *Store) CancelSubscriptionNowWithoutRefund(ctx context.Context, customerID, id string, version int) (CancelledNow, error) {
	return s.cancelSubscriptionNowWithoutRefund(ctx, customerID, id, version)
}

func (s *Store) OrderInvoices(ctx context.Context, orderID string) ([]Invoice, error) {
	return s.orderInvoices(ctx, orderID)
}

func (s *Store) OrderShipments(ctx context.Context, orderID string) ([]Shipment, error) {
	return s.orderShipments(ctx, orderID)
}

func (s *Store) Owners(ctx context.Context) (int, error) { return s.owners(ctx) }

func (s *Store) ProviderCustomersLeft(ctx context.Context) (map[string]map[string]string, error) {
	return s.providerCustomersLeft(ctx)
}

func (s *Store) RemindersDue(ctx context.Context, day time.Time, limit int, cursor string) (Page[Subscription], error) {
	return s.remindersDue(ctx, day, limit, cursor)
}
