package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Subscriber is a customer with one subscription, as `shop seed
// subscriptions` makes them for benchmarks and checks: no password (they
// cannot sign in), no receipts, nothing charged.
type Subscriber struct {
	Customer     Customer
	Subscription Subscription
}

// SeedSubscribers writes subscribers with BatchWriteItem, 25 items (eight
// subscribers) a request, retrying what DynamoDB leaves unprocessed. It
// overwrites: ids are new each time. Not for request paths.
func (s *Store) SeedSubscribers(ctx context.Context, subs []Subscriber) error {
	shards, err := s.billingShards(ctx)
	if err != nil {
		return err
	}
	var batch []types.WriteRequest
	flush := func() error {
		for attempt := 0; len(batch) > 0; attempt++ {
			out, err := s.db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{s.table: batch}})
			if err != nil {
				return fmt.Errorf("seed subscribers: %w", err)
			}
			batch = out.UnprocessedItems[s.table]
			if len(batch) > 0 {
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(time.Duration(10<<min(attempt, 6))*time.Millisecond + rand.N(10*time.Millisecond)):
				}
			}
		}
		return nil
	}
	var counted []Subscription
	for _, sub := range subs {
		counted = append(counted, sub.Subscription)
		c := sub.Customer
		finders := s.finderRecords(c)
		for _, rec := range []any{
			customerRecord{PK: customerKey(c.ID), SK: customerKey(c.ID), EntityType: entityCustomer, Email: c.Email, Name: c.Name,
				Role: string(RoleCustomer), CreatedAt: timestamp(c.CreatedAt), Lang: c.Lang, GSI1PK: partitionCustomers, GSI1SK: createdKey(c.CreatedAt, c.ID)},
			emailRecord{PK: emailKey(c.Email), SK: emailKey(c.Email), EntityType: entityEmail, CustomerID: c.ID, Name: c.Name, Role: string(RoleCustomer)},
			newSubscriptionRecord(sub.Subscription, shards),
			finders[0], finders[1],
		} {
			item, err := attributevalue.MarshalMap(rec)
			if err != nil {
				return err
			}
			batch = append(batch, types.WriteRequest{PutRequest: &types.PutRequest{Item: item}})
		}
		if len(batch) > 20 { // the next subscriber's five items would pass 25
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return s.addNewSubscriptionTotals(ctx, counted)
}

// addNewSubscriptionTotals adds new subscriptions, written without their
// totals, to the kept totals: their deltas summed a totals item, one ADD
// each (seeded ids are new each time, so adding is right).
func (s *Store) addNewSubscriptionTotals(ctx context.Context, subs []Subscription) error {
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return err
	}
	type itemOf struct {
		shard    int
		currency string
	}
	summed := map[itemOf]*subscriptionTotalsDelta{}
	for _, sub := range subs {
		for _, d := range subscriptionTotalsChange(Subscription{}, sub) {
			k := itemOf{shardOf(sub.ID, shards), d.Currency}
			t, ok := summed[k]
			if !ok {
				t = &subscriptionTotalsDelta{Currency: d.Currency}
				summed[k] = t
			}
			t.Active, t.Paused, t.PastDue, t.MRR = t.Active+d.Active, t.Paused+d.Paused, t.PastDue+d.PastDue, t.MRR+d.MRR
			t.New, t.Cancelled, t.Dunned = t.New+d.New, t.Cancelled+d.Cancelled, t.Dunned+d.Dunned
		}
	}
	month := MonthOf(s.now(), s.loc).String()
	for k, d := range summed {
		pk := subscriptionTotalsKey(k.shard)
		for sk, figures := range map[string]map[string]int64{
			subscriptionTotalsNowKey(d.Currency):          {"Active": int64(d.Active), "Paused": int64(d.Paused), "PastDue": int64(d.PastDue), "MRR": d.MRR},
			subscriptionTotalsMonthKey(month, d.Currency): {"New": int64(d.New), "Cancelled": int64(d.Cancelled), "Dunned": int64(d.Dunned)},
		} {
			it, err := s.totalsAdd(pk, sk, d.Currency, figures)
			if err != nil {
				return err
			}
			up := it.Update
			if _, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: up.TableName, Key: up.Key, UpdateExpression: up.UpdateExpression,
				ExpressionAttributeNames: up.ExpressionAttributeNames, ExpressionAttributeValues: up.ExpressionAttributeValues}); err != nil {
				return fmt.Errorf("seed subscription totals: %w", err)
			}
		}
	}
	return nil
}

// FirstSubscribableProduct finds a subscribable product in the catalogue,
// ErrNotFound if there is none. It pages the catalogue (a command-line
// helper, never a request path).
func (s *Store) FirstSubscribableProduct(ctx context.Context) (Product, error) {
	cursor := ""
	for {
		page, err := s.Catalogue(ctx, "", 100, cursor)
		if err != nil {
			return Product{}, err
		}
		for _, p := range page.Items {
			if p.Subscribable {
				return p, nil
			}
		}
		if page.Next == "" {
			return Product{}, fmt.Errorf("subscribable product: %w", ErrNotFound)
		}
		cursor = page.Next
	}
}
