package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"
)

// DefaultBillingShards is the number of shards of the billing-due indexes
// of a new table. It is fixed for a table when it is created.
const DefaultBillingShards = 8

type shardsRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	Shards     int    `dynamodbav:"Shards"`
}

// ErrShardsChanged refuses a shard count other than the table's.
var ErrShardsChanged = errors.New("the table's billing shard count cannot change")

// settleShards records the shard count of a new table, or checks that the
// configured one (if any) is the table's, and remembers it.
func (s *Store) settleShards(ctx context.Context) error {
	want := s.shards
	if want == 0 {
		want = DefaultBillingShards
	}
	err := s.putNew(ctx, shardsRecord{PK: partitionMeta, SK: sortKeyShards, EntityType: entityMeta, Shards: want}, "billing shards")
	if err != nil && !errors.Is(err, ErrConflict) {
		return err
	}
	s.shardsMu.Lock()
	s.shardsRead = 0
	s.shardsMu.Unlock()
	n, err := s.billingShards(ctx)
	if err != nil {
		return err
	}
	if s.shards != 0 && n != s.shards {
		return fmt.Errorf("%w: table has %d, configured %d", ErrShardsChanged, n, s.shards)
	}
	return nil
}

// billingShards is the table's shard count, read once per Store.
func (s *Store) billingShards(ctx context.Context) (int, error) {
	s.shardsMu.Lock()
	defer s.shardsMu.Unlock()
	if s.shardsRead > 0 {
		return s.shardsRead, nil
	}
	n, err := getItemConsistent(ctx, s, partitionMeta, sortKeyShards, "billing shards", func(r shardsRecord) int { return r.Shards })
	switch {
	case errors.Is(err, ErrNotFound):
		return 0, fmt.Errorf("billing shards: the table is not migrated (run shop migrate)")
	case err != nil:
		return 0, err
	case n < 1:
		return 0, fmt.Errorf("billing shards: bad count %d", n)
	}
	s.shardsRead = n
	return n, nil
}

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

// RemindersDue lists active subscriptions whose reminder is due on or
// before day, oldest due first (pattern 4): one Query per shard, in
// parallel, merged. The cursor carries each shard's position.
func (s *Store) RemindersDue(ctx context.Context, day time.Time, limit int, cursor string) (Page[Subscription], error) {
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
	// The cursor holds each shard's position, by shard number.
	queryID := ix.keys.index + "|" + FormatDate(from) + "|" + FormatDate(to)
	pos, err := decodeListsCursor(cursor, queryID)
	if err != nil {
		return Page[Subscription]{}, err
	}
	type shardPage struct {
		items []map[string]types.AttributeValue
		more  bool
	}
	pages := make([]shardPage, shards)
	g, gctx := errgroup.WithContext(ctx)
	for n := range shards {
		if slices.Contains(pos.Done, strconv.Itoa(n)) {
			continue
		}
		key := ix.upTo(n, from, to)
		var start map[string]types.AttributeValue
		if after, ok := pos.After[strconv.Itoa(n)]; ok {
			if start, err = startKey(after, key); err != nil {
				return Page[Subscription]{}, err
			}
		}
		in, err := s.queryInput(querySpec{key: key})
		if err != nil {
			return Page[Subscription]{}, err
		}
		g.Go(func() error {
			out, err := s.queryFrom(gctx, in, start, limit)
			if err != nil {
				return fmt.Errorf("query %s shard %d: %w", ix.keys.index, n, err)
			}
			pages[n] = shardPage{items: out.Items, more: len(out.Items) > limit || out.LastEvaluatedKey != nil}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return Page[Subscription]{}, err
	}
	type entry struct {
		shard, i int
		sk       string
	}
	var all []entry
	for n, p := range pages {
		for i, it := range p.items {
			sk, _ := it[ix.keys.skAttr].(*types.AttributeValueMemberS)
			if sk != nil {
				all = append(all, entry{n, i, sk.Value})
			}
		}
	}
	slices.SortFunc(all, func(a, b entry) int { return cmp.Or(cmp.Compare(a.sk, b.sk), cmp.Compare(a.shard, b.shard)) })
	taken := all[:min(limit, len(all))]
	used := make([]int, shards) // items taken from each shard
	items := make([]map[string]types.AttributeValue, 0, len(taken))
	for _, e := range taken {
		items = append(items, pages[e.shard].items[e.i])
		used[e.shard] = e.i + 1
	}
	next := listsCursor{Query: queryID, Done: slices.Clone(pos.Done), After: map[string]map[string]string{}}
	for n := range shards {
		name := strconv.Itoa(n)
		if slices.Contains(pos.Done, name) {
			continue
		}
		p := pages[n]
		switch {
		case used[n] == len(p.items) && !p.more:
			next.Done = append(next.Done, name)
		case used[n] > 0:
			next.After[name] = keysOf(p.items[used[n]-1], ix.keys.cursorAttrs())
		default:
			if after, ok := pos.After[name]; ok {
				next.After[name] = after
			}
		}
	}
	subs, err := unmarshalItems(items, subscriptionRecord.subscription)
	if err != nil {
		return Page[Subscription]{}, err
	}
	if len(next.Done) == shards {
		return Page[Subscription]{Items: subs}, nil
	}
	c, err := encodeCursor(next)
	if err != nil {
		return Page[Subscription]{}, err
	}
	return Page[Subscription]{Items: subs, Next: c}, nil
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
