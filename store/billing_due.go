package store

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
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
	var r shardsRecord
	err := s.getItemConsistent(ctx, partitionMeta, sortKeyShards, &r)
	switch {
	case errors.Is(err, ErrNotFound):
		return 0, fmt.Errorf("billing shards: the table is not migrated (run shop migrate)")
	case err != nil:
		return 0, fmt.Errorf("billing shards: %w", err)
	case r.Shards < 1:
		return 0, fmt.Errorf("billing shards: bad count %d", r.Shards)
	}
	s.shardsRead = r.Shards
	return r.Shards, nil
}

// dueIndex is one of the two billing-due indexes.
type dueIndex struct{ name, pkAttr, skAttr, prefix string }

var (
	remindersDue = dueIndex{indexRemindersDue, attrRemPK, attrRemSK, prefixReminderDue}
	paymentsDue  = dueIndex{indexPaymentsDue, attrPayPK, attrPaySK, prefixPaymentDue}
)

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

// shardCursor is where each shard of a merged listing stands: the last key
// shown, or done. Query pins it to the listing it came from.
type shardCursor struct {
	Query string                       `json:"q"`
	Done  []int                        `json:"d,omitempty"`
	After map[string]map[string]string `json:"a,omitempty"`
}

func (s *Store) due(ctx context.Context, ix dueIndex, from, to time.Time, limit int, cursor string) (Page[Subscription], error) {
	shards, err := s.billingShards(ctx)
	if err != nil {
		return Page[Subscription]{}, err
	}
	queryID := ix.name + "|" + FormatDate(from) + "|" + FormatDate(to)
	// Decoded into an empty cursor, so that one without its query is refused.
	pos := shardCursor{After: map[string]map[string]string{}}
	if cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil || len(cursor) > 8192 || json.Unmarshal(b, &pos) != nil || pos.Query != queryID {
			return Page[Subscription]{}, ErrBadCursor
		}
	}
	keyAttrs := []string{attrPK, attrSK, ix.pkAttr, ix.skAttr}
	type shardPage struct {
		items []map[string]types.AttributeValue
		more  bool
	}
	pages := make([]shardPage, shards)
	g, gctx := errgroup.WithContext(ctx)
	for n := range shards {
		if slices.Contains(pos.Done, n) {
			continue
		}
		pk := dueShardKey(ix.prefix, n)
		var start map[string]types.AttributeValue
		if after, ok := pos.After[strconv.Itoa(n)]; ok {
			if len(after) != len(keyAttrs) || after[ix.pkAttr] != pk {
				return Page[Subscription]{}, ErrBadCursor
			}
			if start, err = attributevalue.MarshalMap(after); err != nil {
				return Page[Subscription]{}, ErrBadCursor
			}
		}
		key := expression.Key(ix.pkAttr).Equal(expression.Value(pk))
		if from.IsZero() {
			key = key.And(expression.Key(ix.skAttr).LessThanEqual(expression.Value(dueUpTo(to))))
		} else {
			key = key.And(expression.Key(ix.skAttr).Between(expression.Value(FormatDate(from)), expression.Value(dueUpTo(to))))
		}
		expr, err := expression.NewBuilder().WithKeyCondition(key).Build()
		if err != nil {
			return Page[Subscription]{}, err
		}
		g.Go(func() error {
			out, err := s.db.Query(gctx, &dynamodb.QueryInput{
				TableName: aws.String(s.table), IndexName: aws.String(ix.name),
				KeyConditionExpression: expr.KeyCondition(), ExpressionAttributeNames: expr.Names(),
				ExpressionAttributeValues: expr.Values(), ExclusiveStartKey: start, Limit: aws.Int32(int32(limit + 1)),
			})
			if err != nil {
				return fmt.Errorf("query %s shard %d: %w", ix.name, n, err)
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
			sk, _ := it[ix.skAttr].(*types.AttributeValueMemberS)
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
	next := shardCursor{Query: queryID, Done: slices.Clone(pos.Done), After: map[string]map[string]string{}}
	for n := range shards {
		if slices.Contains(pos.Done, n) {
			continue
		}
		p := pages[n]
		switch {
		case used[n] == len(p.items) && !p.more:
			next.Done = append(next.Done, n)
		case used[n] > 0:
			last := p.items[used[n]-1]
			m := map[string]string{}
			for _, a := range keyAttrs {
				if v, ok := last[a].(*types.AttributeValueMemberS); ok {
					m[a] = v.Value
				}
			}
			next.After[strconv.Itoa(n)] = m
		default:
			if after, ok := pos.After[strconv.Itoa(n)]; ok {
				next.After[strconv.Itoa(n)] = after
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
	b, err := json.Marshal(next)
	if err != nil {
		return Page[Subscription]{}, err
	}
	return Page[Subscription]{Items: subs, Next: base64.RawURLEncoding.EncodeToString(b)}, nil
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
	pk := dueShardKey(ix.prefix, shard)
	return pagedQuery(ctx, s, pagedSpec{
		index: ix.name, pkAttr: ix.pkAttr, skAttr: ix.skAttr, pk: pk,
		key: expression.Key(ix.pkAttr).Equal(expression.Value(pk)).And(expression.Key(ix.skAttr).LessThanEqual(expression.Value(dueUpTo(day)))),
	}, limit, cursor, subscriptionRecord.subscription)
}
