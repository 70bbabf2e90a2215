package store

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store/rules"
)

// maxSeedReceipts keeps a seeded subscription's transaction inside
// DynamoDB's 100 items: the subscription, two items per receipt and the
// counter of each year they number in (at most five for 47 monthly ones).
const maxSeedReceipts = 47

// NewIDAt is NewID for something created at t (seed data made "months
// ago"): ids sort by creation time, so lists that order by id stay right.
func NewIDAt(t time.Time) string {
	var b [12]byte
	binary.BigEndian.PutUint64(b[:8], uint64(t.UnixMilli())<<16)
	if _, err := rand.Read(b[6:]); err != nil {
		panic("store: crypto/rand failed: " + err.Error())
	}
	return idEncoding.EncodeToString(b[:])
}

// SeedSubscription writes a subscription as it stands, with receipts of its
// past periods (demo data), in one transaction: the subscription with the
// billing-due index keys its state calls for, each receipt and its period
// marker, all on condition that none exists, and the receipts' numbers in
// the order given, taken from their series' counters (a GetItem of each
// year's before). ErrConflict if one does, and then nothing is written.
func (s *Store) SeedSubscription(ctx context.Context, sub Subscription, receipts []Receipt) error {
	if err := checkSeedSubscription(sub, receipts); err != nil {
		return err
	}
	if sub.Version == 0 {
		sub.Version = 1
	}
	if sub.CreatedAt.IsZero() {
		sub.CreatedAt = s.now()
	}
	item, err := s.subscriptionItem(ctx, sub)
	if err != nil {
		return err
	}
	cond, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(attrPK))).Build()
	if err != nil {
		return err
	}
	for _, r := range receipts {
		if r.AccountID != sub.AccountID || r.SubscriptionID != sub.ID {
			return fmt.Errorf("seed subscription %s: receipt %s belongs to %s/%s", sub.ID, r.Number, r.AccountID, r.SubscriptionID)
		}
	}
	for attempt := 1; ; attempt++ {
		tx := []types.TransactWriteItem{{Put: &types.Put{
			TableName: aws.String(s.table), Item: item, ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(),
		}}}
		writes, counterWrites, rerr := s.seedReceiptWrites(ctx, sub.ID, receipts)
		if rerr != nil {
			return rerr
		}
		tx = append(tx, writes...)
		counters := len(tx)
		tx = append(tx, counterWrites...)
		err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx})
		s.forgetBookNumbers()
		taken := false
		for i := counters; i < len(tx); i++ {
			taken = taken || bookNumberTaken(err, i)
		}
		if !taken || attempt == maxBookAttempts {
			break
		}
	}
	if cancellationReasons(err) != nil {
		return fmt.Errorf("seed subscription %s: %w", sub.ID, ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("seed subscription %s: %w", sub.ID, err)
	}
	return nil
}

// checkSeedSubscription refuses a seeded subscription whose ids, status,
// period or payment day the shop would not make, or with more receipts
// than one transaction takes.
func checkSeedSubscription(sub Subscription, receipts []Receipt) error {
	switch {
	case !ValidID(sub.ID) || !ValidID(sub.AccountID) || !ValidID(sub.ProductID):
		return fmt.Errorf("seed subscription %q: ids must be ids", sub.ID)
	case !ValidSubscriptionStatus(string(sub.Status)):
		return fmt.Errorf("seed subscription %s: unknown status %q", sub.ID, sub.Status)
	case !rules.ValidPeriod(sub.PeriodMonths) || !rules.ValidPaymentDay(sub.PaymentDay):
		return fmt.Errorf("seed subscription %s: period %d, day %d", sub.ID, sub.PeriodMonths, sub.PaymentDay)
	case len(receipts) > maxSeedReceipts:
		return fmt.Errorf("seed subscription %s: %d receipts, at most %d", sub.ID, len(receipts), maxSeedReceipts)
	}
	return nil
}

// seedReceiptWrites are the receipts' writes, numbered in their years'
// series, and the counters of those years (one per year the receipts fall
// in, taking as many numbers), in the order the years first come.
func (s *Store) seedReceiptWrites(ctx context.Context, subID string, receipts []Receipt) (writes, counters []types.TransactWriteItem, err error) {
	years := map[int]*bookNumber{}
	var order []int
	for _, r := range receipts {
		y := r.ProcessedAt.In(s.loc).Year()
		if years[y] == nil {
			n, err := s.nextBookNumbers(ctx, bookReceipts, subID, r.ProcessedAt, 0)
			if err != nil {
				return nil, nil, err
			}
			years[y] = &n
			order = append(order, y)
		}
		n := years[y]
		s.numberReceipt(&r, *n, n.count)
		n.count++
		w, err := s.receiptWrites(r)
		if err != nil {
			return nil, nil, err
		}
		writes = append(writes, w...)
	}
	for _, y := range order {
		w, err := s.bookCounterWrite(*years[y])
		if err != nil {
			return nil, nil, err
		}
		counters = append(counters, w)
	}
	return writes, counters, nil
}

// ReminderLead is how many days before a payment its reminder goes out.
func (s *Store) ReminderLead() int { return s.reminderLead }

// At is a store on the same table whose clock is now: the demo's history
// goes through the shop's own write paths (sign-ups, shipments) at the
// times it happened.
func (s *Store) At(now func() time.Time) *Store {
	at := New(s.db, s.table, WithClock(now), WithTimeZone(s.loc), WithReminderLead(s.reminderLead),
		WithOrderNumbers(s.orderNumbers), WithDropCounterThreshold(s.dropCounterThreshold),
		WithBillingShards(s.billing.want), WithListShards(s.lists.want),
		WithBookSeries(s.bookSeries), WithVATRates(s.vat))
	at.books = s.books // one process: one turn per series
	return at
}
