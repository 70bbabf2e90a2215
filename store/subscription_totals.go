package store

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"
)

// The subscriptions' kept totals, for the staff's billing dashboard: what
// stands now (active, paused and past-due subscriptions, and the monthly
// recurring revenue of the active ones) and what each month changed (new,
// cancelled, cancelled by dunning, revenue recovered by a retry). Every
// write of a subscription adds its change to them in its own transaction
// (subscriptionPut), as orders add to the day totals, so the dashboard
// reads them with a Query and never counts subscriptions.

// subscriptionTotalsDelta is what one subscription write adds to the
// totals of one currency: the counts now, and the month's changes.
type subscriptionTotalsDelta struct {
	Currency                string
	Active, Paused, PastDue int
	MRR                     int64 // minor units a month
	New, Cancelled, Dunned  int
	Recovered               int64 // minor units: a payment that succeeded after a failed one
}

func (d subscriptionTotalsDelta) nowChanged() bool {
	return d.Active != 0 || d.Paused != 0 || d.PastDue != 0 || d.MRR != 0
}

func (d subscriptionTotalsDelta) monthChanged() bool {
	return d.New != 0 || d.Cancelled != 0 || d.Dunned != 0 || d.Recovered != 0
}

// standing is what a subscription counts for in the totals now, under its
// currency: one of active, paused or past due, and its MRR when active
// (quantity × monthly price). A cancelled one, or none (the zero
// Subscription), counts for nothing.
func standing(s Subscription, sign int) subscriptionTotalsDelta {
	d := subscriptionTotalsDelta{Currency: s.MonthlyPrice.Currency}
	switch s.Status {
	case SubscriptionActive:
		d.Active, d.MRR = sign, int64(sign)*s.MonthlyPrice.Amount*int64(s.Units())
	case SubscriptionPaused:
		d.Paused = sign
	case SubscriptionPastDue:
		d.PastDue = sign
	}
	return d
}

// subscriptionTotalsChange is what writing after over before adds to the
// totals (before is the zero Subscription for a new one): the counts now
// move from before's standing to after's, each under its own currency, and
// the month's changes go under after's currency. Cancelled by dunning is a
// cancel by the write that counted a failed charge (FailPayment after the
// last retry), not a customer's cancel of a past-due one; recovered is a
// payment (a new LastPaymentDate) after a failed attempt of it. Pure: the
// table test covers every transition.
func subscriptionTotalsChange(before, after Subscription) []subscriptionTotalsDelta {
	was, is := standing(before, -1), standing(after, 1)
	out := []subscriptionTotalsDelta{is}
	if was.Currency == is.Currency {
		out[0].Active += was.Active
		out[0].Paused += was.Paused
		out[0].PastDue += was.PastDue
		out[0].MRR += was.MRR
	} else if before.Status != "" {
		out = append(out, was)
	}
	ev := &out[0]
	if before.Status == "" && after.Status != "" {
		ev.New = 1
	}
	if before.Status != SubscriptionCancelled && after.Status == SubscriptionCancelled {
		ev.Cancelled = 1
		if before.Status != "" && after.Attempt > before.Attempt {
			ev.Dunned = 1
		}
	}
	if before.Attempt > 0 && after.Status != SubscriptionCancelled && after.LastPaymentDate.After(before.LastPaymentDate) {
		// What the retry charged: the period it paid, at the price and the
		// discount a coupon gave it (the coupon counts down in this write).
		ev.Recovered = before.AmountFor(before.NextPaymentDate).Amount
	}
	return slices.DeleteFunc(out, func(d subscriptionTotalsDelta) bool { return !d.nowChanged() && !d.monthChanged() })
}

// subscriptionTotalsWrites are the ADDs of writing after over before, for
// the write's transaction: at most one item now and one of the month (of
// now, in the shop's zone) a currency, in the shard of the subscription's
// id. None when nothing counted changes (a reminder, a card, a day).
func (s *Store) subscriptionTotalsWrites(ctx context.Context, before, after Subscription) ([]types.TransactWriteItem, error) {
	deltas := subscriptionTotalsChange(before, after)
	if len(deltas) == 0 {
		return nil, nil
	}
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return nil, err
	}
	pk := subscriptionTotalsKey(shardOf(after.ID, shards))
	month := MonthOf(s.now(), s.loc).String()
	var items []types.TransactWriteItem
	for _, d := range deltas {
		if d.nowChanged() {
			it, err := s.totalsAdd(pk, subscriptionTotalsNowKey(d.Currency), d.Currency, map[string]int64{
				"Active": int64(d.Active), "Paused": int64(d.Paused), "PastDue": int64(d.PastDue), "MRR": d.MRR})
			if err != nil {
				return nil, err
			}
			items = append(items, it)
		}
		if d.monthChanged() {
			it, err := s.totalsAdd(pk, subscriptionTotalsMonthKey(month, d.Currency), d.Currency, map[string]int64{
				"New": int64(d.New), "Cancelled": int64(d.Cancelled), "Dunned": int64(d.Dunned), "Recovered": d.Recovered})
			if err != nil {
				return nil, err
			}
			items = append(items, it)
		}
	}
	return items, nil
}

// totalsAdd is an UpdateItem that ADDs each non-zero figure to a totals
// item (made by the first ADD): never a read and a write back.
func (s *Store) totalsAdd(pk, sk, currency string, figures map[string]int64) (types.TransactWriteItem, error) {
	up := expression.Set(expression.Name("Currency"), expression.Value(currency)).
		Set(expression.Name("EntityType"), expression.Value(entitySubTotals))
	names := make([]string, 0, len(figures))
	for name := range figures {
		names = append(names, name)
	}
	slices.Sort(names) // the same expression for the same change
	for _, name := range names {
		if v := figures[name]; v != 0 {
			up = up.Add(expression.Name(name), expression.Value(v))
		}
	}
	expr, err := expression.NewBuilder().WithUpdate(up).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(s.table), Key: itemKey(pk, sk),
		UpdateExpression: expr.Update(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}, nil
}

type subscriptionTotalsRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"` // now#CUR or month#YYYY-MM#CUR
	Currency   string `dynamodbav:"Currency"`
	Active     int    `dynamodbav:"Active"`
	Paused     int    `dynamodbav:"Paused"`
	PastDue    int    `dynamodbav:"PastDue"`
	MRR        int64  `dynamodbav:"MRR"`
	New        int    `dynamodbav:"New"`
	Cancelled  int    `dynamodbav:"Cancelled"`
	Dunned     int    `dynamodbav:"Dunned"`
	Recovered  int64  `dynamodbav:"Recovered"`
	EntityType string `dynamodbav:"EntityType"`
}

// BillingTotals is the billing dashboard's figures: the subscriptions now,
// and a year of months.
type BillingTotals struct {
	Active, Paused, PastDue int
	// MRR is the monthly recurring revenue of the active subscriptions,
	// one amount a currency, the shop's first (zero with none).
	MRR    []Money
	Months []BillingMonth // oldest first, the last the month asked for
}

// BillingMonth is what one month (the shop's zone) changed.
type BillingMonth struct {
	Month     Month
	New       int
	Cancelled int
	// Dunned were cancelled by dunning (the last retry failed):
	// involuntary churn.
	Dunned int
	// Recovered is what payments that succeeded after a failed attempt
	// took, one amount a currency, the shop's first.
	Recovered []Money
}

// BillingMonths is how many months the dashboard shows.
const BillingMonths = 12

// BillingTotals reads the subscriptions' totals now and for the
// BillingMonths months up to the one t falls in: one Query per list shard
// (the months from the first on, then the counts now: one key range), in
// parallel, summed. No subscription is read.
func (s *Store) BillingTotals(ctx context.Context, t time.Time) (BillingTotals, error) {
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return BillingTotals{}, err
	}
	last := MonthOf(t, s.loc)
	first := last.AddMonths(1 - BillingMonths)
	lo := subscriptionTotalsMonthKey(first.String(), "")
	perShard := make([][]subscriptionTotalsRecord, shards)
	g, gctx := errgroup.WithContext(ctx)
	for n := range shards {
		g.Go(func() (err error) {
			perShard[n], err = queryAll(gctx, s, querySpec{key: onTable.pkAndSKBetween(subscriptionTotalsKey(n), lo, subscriptionTotalsLast)},
				func(r subscriptionTotalsRecord) subscriptionTotalsRecord { return r })
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return BillingTotals{}, err
	}
	out := BillingTotals{MRR: []Money{{Currency: s.Currency()}}}
	byMonth := map[string]*BillingMonth{}
	for m := first; !last.Before(m); m = m.AddMonths(1) {
		out.Months = append(out.Months, BillingMonth{Month: m, Recovered: []Money{{Currency: s.Currency()}}})
	}
	for i := range out.Months {
		byMonth[out.Months[i].Month.String()] = &out.Months[i]
	}
	for _, recs := range perShard {
		for _, r := range recs {
			if r.SK == subscriptionTotalsNowKey(r.Currency) {
				out.Active, out.Paused, out.PastDue = out.Active+r.Active, out.Paused+r.Paused, out.PastDue+r.PastDue
				out.MRR = addMoney(out.MRR, Money{Amount: r.MRR, Currency: r.Currency})
				continue
			}
			m, ok := byMonth[monthOfTotalsKey(r.SK)]
			if !ok {
				continue // a month after t
			}
			m.New, m.Cancelled, m.Dunned = m.New+r.New, m.Cancelled+r.Cancelled, m.Dunned+r.Dunned
			m.Recovered = addMoney(m.Recovered, Money{Amount: r.Recovered, Currency: r.Currency})
		}
	}
	return out, nil
}

// monthOfTotalsKey is the YYYY-MM of a month#YYYY-MM#CUR key.
func monthOfTotalsKey(sk string) string {
	const prefix = len("month#")
	if len(sk) < prefix+7 {
		return ""
	}
	return sk[prefix : prefix+7]
}

// addMoney adds m to the amount of its currency among sums (the first, the
// shop's, stays first; others follow by code).
func addMoney(sums []Money, m Money) []Money {
	for i := range sums {
		if sums[i].Currency == m.Currency {
			sums[i].Amount += m.Amount
			return sums
		}
	}
	if m.Amount == 0 {
		return sums
	}
	sums = append(sums, m)
	slices.SortStableFunc(sums[1:], func(a, b Money) int { return cmp.Compare(a.Currency, b.Currency) })
	return sums
}
