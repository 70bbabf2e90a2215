package store

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"shop/store/rules"
)

// DayTotal is what a day's orders came to, the day in the shop's zone.
type DayTotal struct {
	Day     time.Time // the day, as DateOf gives it
	Orders  int
	Revenue Money // what the day's orders charged, refunds later or not
	// Refunded is what was given back that day, on orders of any day: a
	// cancelled order's revenue stays on the day it was placed.
	Refunded Money
}

// Net is the day's revenue less what the day gave back (below zero on a
// day that refunded more than it sold).
func (d DayTotal) Net() Money { return d.Revenue.Add(d.Refunded.Negated()) }

// Average is the average order of the day (zero with no orders).
func (d DayTotal) Average() Money {
	if d.Orders == 0 {
		return Money{Currency: d.Revenue.Currency}
	}
	return Money{Amount: d.Revenue.Amount / int64(d.Orders), Currency: d.Revenue.Currency}
}

type dayTotalsRecord struct {
	PK       string `dynamodbav:"PK"` // day-totals#shard
	SK       string `dynamodbav:"SK"` // day#YYYY-MM-DD
	Orders   int    `dynamodbav:"Orders"`
	Revenue  int64  `dynamodbav:"Revenue"`
	Refunded int64  `dynamodbav:"Refunded"` // absent before the day's first refund: zero
	Currency string `dynamodbav:"Currency"`
}

// dayTotalsUpdate adds an order to its day's totals, in the shard of its
// id: part of the checkout transaction, so the totals are the orders'.
func (s *Store) dayTotalsUpdate(o Order, shards int) (types.TransactWriteItem, error) {
	day := o.PlacedAt.In(s.loc).Format(time.DateOnly)
	expr, err := expression.NewBuilder().WithUpdate(
		expression.Add(expression.Name("Orders"), expression.Value(1)).
			Add(expression.Name("Revenue"), expression.Value(o.Total.Amount)).
			Set(expression.Name("Currency"), expression.Value(o.Total.Currency)).
			Set(expression.Name("EntityType"), expression.Value(entityDayTotals))).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(s.table), Key: itemKey(dayTotalsKey(shardOf(o.ID, shards)), dayTotalsSortKey(day)),
		UpdateExpression: expr.Update(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}, nil
}

// dayTotalsRefund adds money given back on an order to the totals of the
// day it is given back (the shop's zone), in the shard of the order's id:
// part of the refund's transaction, so the totals are the refunds'.
func (s *Store) dayTotalsRefund(orderID string, at time.Time, amount Money, shards int) (types.TransactWriteItem, error) {
	day := at.In(s.loc).Format(time.DateOnly)
	expr, err := expression.NewBuilder().WithUpdate(
		expression.Add(expression.Name("Refunded"), expression.Value(amount.Amount)).
			Set(expression.Name("Currency"), expression.Value(amount.Currency)).
			Set(expression.Name("EntityType"), expression.Value(entityDayTotals))).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(s.table), Key: itemKey(dayTotalsKey(shardOf(orderID, shards)), dayTotalsSortKey(day)),
		UpdateExpression: expr.Update(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}, nil
}

// DayTotals is each day's orders, revenue and refunds from the day of from to the
// day of to (shop's zone), oldest first, a day without orders included:
// one Query per list shard, in parallel, summed.
func (s *Store) DayTotals(ctx context.Context, from, to time.Time) ([]DayTotal, error) {
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return nil, err
	}
	first, last := rules.DateOf(from, s.loc), rules.DateOf(to, s.loc)
	lo, hi := dayTotalsSortKey(first.Format(time.DateOnly)), dayTotalsSortKey(last.Format(time.DateOnly))
	perShard := make([][]dayTotalsRecord, shards)
	g, gctx := errgroup.WithContext(ctx)
	for n := range shards {
		g.Go(func() (err error) {
			perShard[n], err = queryAll(gctx, s, querySpec{key: onTable.pkAndSKBetween(dayTotalsKey(n), lo, hi)},
				func(r dayTotalsRecord) dayTotalsRecord { return r })
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	sum := map[string]*dayTotalsRecord{}
	for _, recs := range perShard {
		for _, r := range recs {
			t, ok := sum[r.SK]
			if !ok {
				t = &dayTotalsRecord{Currency: r.Currency}
				sum[r.SK] = t
			}
			t.Orders += r.Orders
			t.Revenue += r.Revenue
			t.Refunded += r.Refunded
		}
	}
	var out []DayTotal
	for d := first; !d.After(last); d = d.AddDate(0, 0, 1) {
		t := DayTotal{Day: d, Revenue: Money{Currency: s.Currency()}, Refunded: Money{Currency: s.Currency()}} // a day without orders still reads "€0.00"
		if r, ok := sum[dayTotalsSortKey(d.Format(time.DateOnly))]; ok {
			t.Orders, t.Revenue, t.Refunded = r.Orders, Money{Amount: r.Revenue, Currency: r.Currency}, Money{Amount: r.Refunded, Currency: r.Currency}
		}
		out = append(out, t)
	}
	return out, nil
}
