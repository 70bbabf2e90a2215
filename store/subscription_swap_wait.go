package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A swap now whose charge the bank wants its card holder to confirm waits
// on its own item (ACC#customer, SWAPWAIT#<payment key>) holding the plan
// as quoted, while the customer is on the bank's page. The subscription is
// not touched (nor blocked: another change just makes this one stale), so
// the swap is written only when the payment succeeds, by whichever of the
// return page and the provider's event comes first, in the transaction
// that deletes the waiting item (SwapNowConfirmed). A payment that fails
// deletes it (DropSwapWaiting); one never answered is left to its TTL.

// swapWaitTTL is how long a waiting swap's item is kept for its payment.
const swapWaitTTL = 7 * 24 * time.Hour

// SwapWaiting is a swap now waiting for its charge's confirmation.
type SwapWaiting struct {
	Plan     SwapNowPlan
	Provider string
	Payment  string // the provider's payment of Plan.Quote.Charge
	Key      string // its idempotency key (Plan.ChargeKey)
}

// ChargeKey is the provider's key of the plan's charge: the change and the
// amount.
func (p SwapNowPlan) ChargeKey() string { return fmt.Sprintf("%s-%d", p.Key(), p.Quote.Charge.Amount) }

type swapWaitRecord struct {
	PK             string             `dynamodbav:"PK"`
	SK             string             `dynamodbav:"SK"`
	EntityType     string             `dynamodbav:"EntityType"`
	SubscriptionID string             `dynamodbav:"SubscriptionID"`
	Provider       string             `dynamodbav:"Provider"`
	Payment        string             `dynamodbav:"Payment"`
	Key            string             `dynamodbav:"Key"`
	Current        subscriptionRecord `dynamodbav:"Current"`
	Next           subscriptionRecord `dynamodbav:"Next"`
	ReceiptNumber  string             `dynamodbav:"ReceiptNumber"`
	PeriodStart    string             `dynamodbav:"PeriodStart"`
	PeriodEnd      string             `dynamodbav:"PeriodEnd"`
	From           string             `dynamodbav:"From"`
	UnusedDays     int                `dynamodbav:"UnusedDays"`
	Days           int                `dynamodbav:"Days"`
	Credit         int64              `dynamodbav:"Credit"`
	NewShare       int64              `dynamodbav:"NewShare"`
	Charge         int64              `dynamodbav:"Charge"`
	Currency       string             `dynamodbav:"Currency"`
	CreatedAt      string             `dynamodbav:"CreatedAt"`
	ExpiresAt      int64              `dynamodbav:"ExpiresAt"`
}

func (r swapWaitRecord) waiting() SwapWaiting {
	cur, next := r.Current.subscription(), r.Next.subscription()
	next.stored = cur.stored // the swap's write adds its change from the version planned
	m := func(a int64) Money { return Money{Amount: a, Currency: r.Currency} }
	q := SwapQuote{From: parseDate(r.From), To: parseDate(r.PeriodEnd).AddDate(0, 0, -1), UnusedDays: r.UnusedDays, Days: r.Days,
		Credit: m(r.Credit), NewShare: m(r.NewShare), Difference: m(r.NewShare - r.Credit), Charge: m(r.Charge), Refund: m(0)}
	plan := SwapNowPlan{Current: cur, Next: next, Quote: q,
		Receipt: Receipt{Number: r.ReceiptNumber, PeriodStart: parseDate(r.PeriodStart), PeriodEnd: parseDate(r.PeriodEnd)}}
	return SwapWaiting{Plan: plan, Provider: r.Provider, Payment: r.Payment, Key: r.Key}
}

// WaitSwapNow records a swap now whose charge (payment, at provider) waits
// for the card holder at the bank, on condition that the subscription is
// still at the version planned (a StaleError if not: nothing is written).
// The same charge recorded again (one tab sent twice) is the same item.
func (s *Store) WaitSwapNow(ctx context.Context, plan SwapNowPlan, provider, payment string) (SwapWaiting, error) {
	cur, q, r := plan.Current, plan.Quote, plan.Receipt
	if q.Charge.Amount <= 0 || payment == "" {
		return SwapWaiting{}, errors.New("wait swap now: no charge")
	}
	now := s.now()
	rec := swapWaitRecord{PK: accountKey(cur.AccountID), SK: swapWaitKey(plan.ChargeKey()), EntityType: entitySwapWait,
		SubscriptionID: cur.ID, Provider: provider, Payment: payment, Key: plan.ChargeKey(),
		Current: newSubscriptionRecord(cur, 1), Next: newSubscriptionRecord(plan.Next, 1),
		ReceiptNumber: r.Number, PeriodStart: FormatDate(r.PeriodStart), PeriodEnd: FormatDate(r.PeriodEnd), From: FormatDate(q.From),
		UnusedDays: q.UnusedDays, Days: q.Days, Credit: q.Credit.Amount, NewShare: q.NewShare.Amount, Charge: q.Charge.Amount,
		Currency: q.Charge.Currency, CreatedAt: timestamp(now), ExpiresAt: now.Add(swapWaitTTL).Unix()}
	item, err := attributevalue.MarshalMap(rec)
	if err != nil {
		return SwapWaiting{}, err
	}
	same, err := expression.NewBuilder().WithCondition(expression.Name("Version").Equal(expression.Value(cur.Version))).Build()
	if err != nil {
		return SwapWaiting{}, err
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String(s.table), Key: itemKey(accountKey(cur.AccountID), subscriptionSortKey(cur.ID, cur.ProductID)),
			ConditionExpression: same.Condition(), ExpressionAttributeNames: same.Names(), ExpressionAttributeValues: same.Values()}},
		{Put: &types.Put{TableName: aws.String(s.table), Item: item}},
	}})
	if len(cancellationReasons(err)) > 0 {
		return SwapWaiting{}, s.staleNow(ctx, cur)
	}
	if err != nil {
		return SwapWaiting{}, fmt.Errorf("wait swap now of %s: %w", cur.ID, err)
	}
	return rec.waiting(), nil
}

// SwapWaitingFor reads the swap now waiting on the charge keyed key (one
// GetItem, consistent); ErrNotFound when none waits (never, settled, or
// past its time).
func (s *Store) SwapWaitingFor(ctx context.Context, customerID, key string) (SwapWaiting, error) {
	if !ValidID(customerID) || key == "" {
		return SwapWaiting{}, ErrNotFound
	}
	rec, err := getItemConsistent(ctx, s, accountKey(customerID), swapWaitKey(key), "waiting swap "+key, func(r swapWaitRecord) swapWaitRecord { return r })
	if err != nil {
		return SwapWaiting{}, err
	}
	if rec.ExpiresAt <= s.now().Unix() {
		return SwapWaiting{}, fmt.Errorf("waiting swap %s: past its time: %w", key, ErrNotFound)
	}
	return rec.waiting(), nil
}

// waitDelete deletes w's item on condition it still waits on w's payment.
func (s *Store) waitDelete(w SwapWaiting) (types.TransactWriteItem, error) {
	cond, err := expression.NewBuilder().WithCondition(expression.Name("Payment").Equal(expression.Value(w.Payment))).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(s.table), Key: itemKey(accountKey(w.Plan.Current.AccountID), swapWaitKey(w.Key)),
		ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(), ExpressionAttributeValues: cond.Values()}}, nil
}

// SwapNowConfirmed records a waiting swap whose charge the holder
// confirmed, as SwapNowCharged records a plain one (the swap on condition
// of the version planned, the change's receipt, its mail), deleting the
// waiting item in the same transaction: once, whoever reports the payment.
// The same charge recorded already answers what that write did; a
// subscription that moved meanwhile is a StaleError with nothing written
// (the caller gives the charge back and drops the item).
func (s *Store) SwapNowConfirmed(ctx context.Context, w SwapWaiting, charge GatewayCharge, mail func(Receipt) *Mail) (SwappedNow, error) {
	if charge.ID != w.Payment {
		return SwappedNow{}, fmt.Errorf("swap now of %s waits on payment %s, not %s", w.Plan.Current.ID, w.Payment, charge.ID)
	}
	del, err := s.waitDelete(w)
	if err != nil {
		return SwappedNow{}, err
	}
	return s.swapNowCharged(ctx, w.Plan, charge, mail, del)
}

// DropSwapWaiting deletes a waiting swap whose payment failed, or was
// given back; one gone already is no error.
func (s *Store) DropSwapWaiting(ctx context.Context, w SwapWaiting) error {
	del, err := s.waitDelete(w)
	if err != nil {
		return err
	}
	_, err = s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: del.Delete.TableName, Key: del.Delete.Key,
		ConditionExpression: del.Delete.ConditionExpression, ExpressionAttributeNames: del.Delete.ExpressionAttributeNames,
		ExpressionAttributeValues: del.Delete.ExpressionAttributeValues})
	if isConditionFailed(err) {
		return nil
	}
	return err
}
