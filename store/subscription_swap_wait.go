package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
//
// A swap waits a week (swapWaitTTL). A payment confirmed after that is
// too late: the quote credited days the customer has used at the old
// line since, and the period may have renewed, so the swap is not made
// and the payment goes back in full with a mail saying why (the jobs'
// settleLate; ErrSwapTooLate). The item is kept a month beyond its week
// (swapWaitKept) so that such a payment still finds it.

// swapWaitTTL is how long a waiting swap waits for its payment.
const swapWaitTTL = 7 * 24 * time.Hour

// swapWaitKept is how long a waiting swap's item is kept after its time.
const swapWaitKept = 30 * 24 * time.Hour

// ErrSwapGivenBack is SwapWaitingFor's answer for a swap whose payment
// was given back (it came too late, or the subscription had moved): the
// item stays, so that the payment's events find it settled.
var ErrSwapGivenBack = fmt.Errorf("the swap's payment was given back: %w", ErrNotFound)

// ErrSwapTooLate is SwapWaitingFor's answer for a swap that stopped
// waiting: its payment, if it comes, is given back. It is an ErrNotFound
// to a caller that only settles swaps still waiting.
var ErrSwapTooLate = fmt.Errorf("the swap waited past its time for its payment: %w", ErrNotFound)

// SwapWaiting is a swap now waiting for its charge's confirmation.
type SwapWaiting struct {
	Plan     SwapNowPlan
	Provider string
	Payment  string // the provider's payment of Plan.Quote.Charge
	Key      string // its idempotency key (Plan.ChargeKey)
	Until    time.Time
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
	GivenBack      string             `dynamodbav:"GivenBack,omitempty"` // when its payment was given back
	Until          int64              `dynamodbav:"Until,omitempty"`     // waiting until (unix); an item from before it was kept longer has its TTL
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
	until := r.Until
	if until == 0 {
		until = r.ExpiresAt
	}
	return SwapWaiting{Plan: plan, Provider: r.Provider, Payment: r.Payment, Key: r.Key, Until: time.Unix(until, 0).UTC()}
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
		Currency: q.Charge.Currency, CreatedAt: timestamp(now), Until: now.Add(swapWaitTTL).Unix(), ExpiresAt: now.Add(swapWaitTTL + swapWaitKept).Unix()}
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
// gone); ErrSwapGivenBack when its payment was given back;
// ErrSwapTooLate, with the swap, when it waited past its time.
func (s *Store) SwapWaitingFor(ctx context.Context, customerID, key string) (SwapWaiting, error) {
	if !ValidID(customerID) || key == "" {
		return SwapWaiting{}, ErrNotFound
	}
	rec, err := getItemConsistent(ctx, s, accountKey(customerID), swapWaitKey(key), "waiting swap "+key, func(r swapWaitRecord) swapWaitRecord { return r })
	if err != nil {
		return SwapWaiting{}, err
	}
	now := s.now()
	if rec.ExpiresAt <= now.Unix() {
		return SwapWaiting{}, fmt.Errorf("waiting swap %s: gone: %w", key, ErrNotFound)
	}
	w := rec.waiting()
	if rec.GivenBack != "" {
		return w, fmt.Errorf("waiting swap %s: %w", key, ErrSwapGivenBack)
	}
	if !now.Before(w.Until) {
		return w, fmt.Errorf("waiting swap %s since %s: %w", key, rec.CreatedAt, ErrSwapTooLate)
	}
	return w, nil
}

// waitDelete deletes w's item on condition it still waits on w's payment
// (not given back meanwhile).
func (s *Store) waitDelete(w SwapWaiting) (types.TransactWriteItem, error) {
	waits := expression.Name("Payment").Equal(expression.Value(w.Payment)).And(expression.AttributeNotExists(expression.Name("GivenBack")))
	cond, err := expression.NewBuilder().WithCondition(waits).Build()
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

// SwapWaitGivenBack marks a waiting swap whose payment was given back (it
// came too late, or the subscription moved) with, if given, the
// customer's mail saying so, in one transaction on condition it still
// waits on that payment: once, whoever reports the payment. The item
// stays to its TTL, so that the payment's events find it settled; one
// marked or gone already is no error.
func (s *Store) SwapWaitGivenBack(ctx context.Context, w SwapWaiting, mail *Mail) error {
	cond := expression.Name("Payment").Equal(expression.Value(w.Payment)).And(expression.AttributeNotExists(expression.Name("GivenBack")))
	mark, err := s.txUpdate(accountKey(w.Plan.Current.AccountID), swapWaitKey(w.Key), expression.Set(expression.Name("GivenBack"), expression.Value(timestamp(s.now()))), cond)
	if err != nil {
		return err
	}
	items := []types.TransactWriteItem{mark}
	if mail != nil {
		mp, err := s.mailPut(*mail)
		if err != nil {
			return err
		}
		items = append(items, mp)
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	if slices.Contains(cancellationReasons(err), reasonConditionFailed) {
		return nil // given back by another meanwhile, with its mail
	}
	return err
}

// DropSwapWaiting deletes a waiting swap whose payment failed; one gone
// already is no error.
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

// ChangeReceiptPaidBy is the customer's "Change to" receipt of the swap
// now payment paid, recorded from since on: one consistent Query of the
// account's receipts since then. ErrNotFound when no swap recorded it
// (one that waited and was given back, or one not recorded yet).
func (s *Store) ChangeReceiptPaidBy(ctx context.Context, customerID, paid string, since time.Time) (Receipt, error) {
	if !ValidID(customerID) || paid == "" {
		return Receipt{}, ErrNotFound
	}
	lo, hi := receiptRange(since)
	mine := expression.Name("ChargeID").Equal(expression.Value(paid)).And(expression.Name("Kind").Equal(expression.Value(string(ReceiptChange))))
	q := querySpec{key: onTable.pkAndSKBetween(accountKey(customerID), lo, hi), filter: &mine, consistent: true}
	return queryOne(ctx, s, q, "change receipt of "+paid, receiptRecord.receipt)
}
