package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// SubscriptionSettings are staff's choices about subscriptions, kept in the
// table (PK=meta, SK=settings#subscriptions) so that staff change them in
// the console and every replica reads the same at once, without a deploy.
type SubscriptionSettings struct {
	// RefundUnusedOnCancel gives back, pro rata by days, the unused part of
	// the paid period when a customer cancels now.
	RefundUnusedOnCancel bool
	ChangedBy            string
	ChangedAt            time.Time
	Version              int // 0 before staff first saved them
}

type settingsRecord struct {
	PK                   string `dynamodbav:"PK"`
	SK                   string `dynamodbav:"SK"`
	EntityType           string `dynamodbav:"EntityType"`
	RefundUnusedOnCancel bool   `dynamodbav:"RefundUnusedOnCancel"`
	ChangedBy            string `dynamodbav:"ChangedBy"`
	ChangedAt            string `dynamodbav:"ChangedAt"`
	Version              int    `dynamodbav:"Version"`
}

// SubscriptionSettings reads the settings (one GetItem, consistent: a
// change applies to the next cancellation). Until staff save them they are
// the defaults: no refund on cancelling.
func (s *Store) SubscriptionSettings(ctx context.Context) (SubscriptionSettings, error) {
	set, err := getItemConsistent(ctx, s, partitionMeta, sortKeySubSettings, "subscription settings", func(r settingsRecord) SubscriptionSettings {
		return SubscriptionSettings{RefundUnusedOnCancel: r.RefundUnusedOnCancel, ChangedBy: r.ChangedBy, ChangedAt: parseTime(r.ChangedAt), Version: r.Version}
	})
	if errors.Is(err, ErrNotFound) {
		return SubscriptionSettings{}, nil // never saved: the defaults
	}
	return set, err
}

// SaveSubscriptionSettings writes the settings on condition they are still
// at the version staff saw; ErrConflict if another change came first.
func (s *Store) SaveSubscriptionSettings(ctx context.Context, set SubscriptionSettings) (SubscriptionSettings, error) {
	cond := atVersion(set.Version)
	set.Version++
	set.ChangedAt = s.now()
	err := s.putIf(ctx, settingsRecord{
		PK: partitionMeta, SK: sortKeySubSettings, EntityType: entitySettings,
		RefundUnusedOnCancel: set.RefundUnusedOnCancel, ChangedBy: set.ChangedBy, ChangedAt: timestamp(set.ChangedAt), Version: set.Version,
	}, cond)
	if isConditionFailed(err) {
		return SubscriptionSettings{}, fmt.Errorf("subscription settings: %w", ErrConflict)
	}
	if err != nil {
		return SubscriptionSettings{}, fmt.Errorf("save subscription settings: %w", err)
	}
	return set, nil
}
