package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// subscriptionTotalsCounted is the one-time step that counts, on a table
// from before the kept subscription totals, the subscriptions there are.
const subscriptionTotalsCounted = "subscription-totals-counted"

// countSubscriptionTotals runs the one-time step of subscriptionTotalsCounted
// for Migrate: a new table has nothing to count, an older one is counted
// once. A migration, never a request path.
func (s *Store) countSubscriptionTotals(ctx context.Context, created bool) error {
	done, err := s.Marked(ctx, subscriptionTotalsCounted)
	if err != nil || done {
		return err
	}
	if !created {
		n, err := s.RecountSubscriptionTotals(ctx)
		if err != nil {
			return fmt.Errorf("count subscription totals (%d subscriptions): %w", n, err)
		}
		MigrateLog("subscriptions counted into the billing totals", "table", s.table, "subscriptions", n)
	}
	if err := s.Mark(ctx, subscriptionTotalsCounted); err != nil && !errors.Is(err, ErrConflict) {
		return err
	}
	return nil
}

// RecountSubscriptionTotals sets the kept totals to a count of every
// subscription (each status's GSI1 list, paged): the counts and MRR now,
// and each month's new and cancelled ones (by CreatedAt and CancelledOn;
// cancelled by dunning is a cancelled one with failed attempts). It is
// idempotent because it SETs each figure to the count, where the writes of
// subscriptions ADD: running it twice gives the same totals, and an item
// the count no longer has is set to zero. Revenue recovered by retries is
// no subscription's state, so it is left as kept. For Migrate (once), the
// demo and `shop seed subscriptions`, which write subscriptions without
// their totals; never a request path. It returns how many it counted.
func (s *Store) RecountSubscriptionTotals(ctx context.Context) (int, error) {
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return 0, err
	}
	counts := map[string]*subscriptionTotalsRecord{} // by PK and SK
	at := func(pk, sk, currency string) *subscriptionTotalsRecord {
		r, ok := counts[pk+"|"+sk]
		if !ok {
			r = &subscriptionTotalsRecord{PK: pk, SK: sk, Currency: currency}
			counts[pk+"|"+sk] = r
		}
		return r
	}
	n := 0
	for _, status := range SubscriptionStatuses {
		for cursor := ""; ; {
			page, err := s.SubscriptionsByStatus(ctx, status, 100, cursor)
			if err != nil {
				return n, err
			}
			for _, sub := range page.Items {
				n++
				pk, cur := subscriptionTotalsKey(shardOf(sub.ID, shards)), sub.MonthlyPrice.Currency
				d := standing(sub, 1)
				now := at(pk, subscriptionTotalsNowKey(cur), cur)
				now.Active, now.Paused, now.PastDue, now.MRR = now.Active+d.Active, now.Paused+d.Paused, now.PastDue+d.PastDue, now.MRR+d.MRR
				at(pk, subscriptionTotalsMonthKey(MonthOf(sub.CreatedAt, s.loc).String(), cur), cur).New++
				if sub.Status == SubscriptionCancelled {
					m := at(pk, subscriptionTotalsMonthKey(MonthOf(sub.CancelledOn, s.loc).String(), cur), cur)
					m.Cancelled++
					if sub.Attempt > 0 {
						m.Dunned++
					}
				}
			}
			if cursor = page.Next; cursor == "" {
				break
			}
		}
	}
	// Items kept from before that the count has none for are set to zero.
	for shard := range shards {
		pk := subscriptionTotalsKey(shard)
		kept, err := queryAll(ctx, s, querySpec{key: onTable.pkEquals(pk)}, func(r subscriptionTotalsRecord) subscriptionTotalsRecord { return r })
		if err != nil {
			return n, err
		}
		for _, r := range kept {
			at(pk, r.SK, r.Currency)
		}
	}
	for _, r := range counts {
		if err := s.setSubscriptionTotals(ctx, *r); err != nil {
			return n, err
		}
	}
	return n, nil
}

// setSubscriptionTotals SETs one totals item's counted figures.
func (s *Store) setSubscriptionTotals(ctx context.Context, r subscriptionTotalsRecord) error {
	up := expression.Set(expression.Name("Currency"), expression.Value(r.Currency)).
		Set(expression.Name("EntityType"), expression.Value(entitySubTotals))
	if r.SK == subscriptionTotalsNowKey(r.Currency) {
		up = up.Set(expression.Name("Active"), expression.Value(r.Active)).Set(expression.Name("Paused"), expression.Value(r.Paused)).
			Set(expression.Name("PastDue"), expression.Value(r.PastDue)).Set(expression.Name("MRR"), expression.Value(r.MRR))
	} else {
		up = up.Set(expression.Name("New"), expression.Value(r.New)).Set(expression.Name("Cancelled"), expression.Value(r.Cancelled)).
			Set(expression.Name("Dunned"), expression.Value(r.Dunned))
	}
	expr, err := expression.NewBuilder().WithUpdate(up).Build()
	if err != nil {
		return err
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table), Key: itemKey(r.PK, r.SK), UpdateExpression: expr.Update(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	if err != nil {
		return fmt.Errorf("set subscription totals %s/%s: %w", r.PK, r.SK, err)
	}
	return nil
}
