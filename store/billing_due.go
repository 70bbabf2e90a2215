package store

import (
	"context"
	"time"
)

// DefaultBillingShards is the number of shards of the billing-due indexes
// of a new table. It is fixed for a table when it is created.
const DefaultBillingShards = 8

// billingShards is the table's shard count of the billing-due indexes.
func (s *Store) billingShards(ctx context.Context) (int, error) { return s.billing.count(ctx, s) }

// dueIndex is one of the two billing-due indexes: its keys and the
// prefix of its shards.
type dueIndex struct {
	keys   keySchema
	prefix string
}

var (
	remindersDue = dueIndex{onRemindersDue, prefixReminderDue}
	paymentsDue  = dueIndex{onPaymentsDue, prefixPaymentDue}
)

// upTo is the key condition of shard n: due from (zero: any day) up to to.
func (ix dueIndex) upTo(n int, from, to time.Time) keyCond {
	pk := dueShardKey(ix.prefix, n)
	if from.IsZero() {
		return ix.keys.pkAndSKUpTo(pk, dueUpTo(to))
	}
	return ix.keys.pkAndSKBetween(pk, FormatDate(from), dueUpTo(to))
}

// remindersDue lists active subscriptions whose reminder is due on or
// before day, oldest due first (pattern 4): one Query per shard, in
// parallel, merged. The cursor carries each shard's position.
func (s *Store) remindersDue(ctx context.Context, day time.Time, limit int, cursor string) (Page[Subscription], error) {
	return s.due(ctx, remindersDue, time.Time{}, day, limit, cursor)
}

// PaymentsDue lists subscriptions the payment job must act on (charge, retry
// or end) on or before day (pattern 5), as RemindersDue does.
func (s *Store) PaymentsDue(ctx context.Context, day time.Time, limit int, cursor string) (Page[Subscription], error) {
	return s.due(ctx, paymentsDue, time.Time{}, day, limit, cursor)
}

// RemindersDueOn and PaymentsDueOn list what falls due on one day, for staff.
func (s *Store) RemindersDueOn(ctx context.Context, day time.Time, limit int, cursor string) (Page[Subscription], error) {
	return s.due(ctx, remindersDue, day, day, limit, cursor)
}

func (s *Store) PaymentsDueOn(ctx context.Context, day time.Time, limit int, cursor string) (Page[Subscription], error) {
	return s.due(ctx, paymentsDue, day, day, limit, cursor)
}

func (s *Store) due(ctx context.Context, ix dueIndex, from, to time.Time, limit int, cursor string) (Page[Subscription], error) {
	shards, err := s.billingShards(ctx)
	if err != nil {
		return Page[Subscription]{}, err
	}
	l := shardedList{
		id:     ix.keys.index + "|" + FormatDate(from) + "|" + FormatDate(to),
		shards: shards,
		key:    func(n int) keyCond { return ix.upTo(n, from, to) },
	}
	return mergedPage(ctx, s, l, limit, cursor, subscriptionRecord.subscription)
}

// BillingShards is the table's number of billing-due shards.
func (s *Store) BillingShards(ctx context.Context) (int, error) { return s.billingShards(ctx) }

// PaymentsDueInShard and RemindersDueInShard page one shard of a due
// index (due on or before day), for a job that works each shard on its own
// and needs no order across them: each page reads only what it returns.
func (s *Store) PaymentsDueInShard(ctx context.Context, shard int, day time.Time, limit int, cursor string) (Page[Subscription], error) {
	return s.dueInShard(ctx, paymentsDue, shard, day, limit, cursor)
}

func (s *Store) RemindersDueInShard(ctx context.Context, shard int, day time.Time, limit int, cursor string) (Page[Subscription], error) {
	return s.dueInShard(ctx, remindersDue, shard, day, limit, cursor)
}

func (s *Store) dueInShard(ctx context.Context, ix dueIndex, shard int, day time.Time, limit int, cursor string) (Page[Subscription], error) {
	return pagedQuery(ctx, s, querySpec{key: ix.upTo(shard, time.Time{}, day)}, limit, cursor, subscriptionRecord.subscription)
}
