package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// LegacyProvider is the card payment provider of a payment, refund or saved
// card recorded before records named theirs: the built-in test provider
// (payment.ProviderTest).
const LegacyProvider = "test"

// ProviderOf is the provider a record names, the test provider when it
// names none.
func ProviderOf(name string) string {
	if name == "" {
		return LegacyProvider
	}
	return name
}

// paymentEventTTL is how long an applied event's item is kept: a provider
// sends an event again for three days at most.
const paymentEventTTL = 30 * 24 * time.Hour

// eventOutcome is what an applied event did.
type eventOutcome string

const (
	eventPlaced   eventOutcome = "placed"
	eventReleased eventOutcome = "released"
	eventRefunded eventOutcome = "refunded"
)

// paymentEventRecord marks a provider's event applied, PK=SK=
// event#<provider>#<id>, written on condition it is new in the transaction
// that does what the event says: an event is applied once, and a crash
// before that transaction leaves it to be applied when it comes again.
type paymentEventRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	OrderID    string `dynamodbav:"OrderID"`
	Outcome    string `dynamodbav:"Outcome"`
	At         string `dynamodbav:"At"`
	ExpiresAt  int64  `dynamodbav:"ExpiresAt"`
}

// eventItem adds the event's item to b (nothing without an event).
func (s *Store) eventItem(b *txItems, provider, eventID, orderID string, outcome eventOutcome, now time.Time) error {
	if eventID == "" {
		return nil
	}
	key := paymentEventKey(provider, eventID)
	rec := paymentEventRecord{PK: key, SK: key, EntityType: entityPaymentEvent, OrderID: orderID, Outcome: string(outcome),
		At: timestamp(now), ExpiresAt: now.Add(paymentEventTTL).Unix()}
	isNew := expression.AttributeNotExists(expression.Name(attrPK))
	return b.put(rec, &isNew, itemRole{kind: "event"})
}

// validEventID says whether a provider's event id can be part of a key:
// the characters of ValidID, at most 255 of them.
func validEventID(id string) bool {
	if len(id) == 0 || len(id) > 255 {
		return false
	}
	for ; id != ""; id = id[min(len(id), 64):] {
		if !ValidID(id[:min(len(id), 64)]) {
			return false
		}
	}
	return true
}

// refundPayment records the refund of a payment that cannot place its
// order (cause says why), with the event's item and the customer's mail,
// in one transaction; a mismatched payment's also releases the hold. The
// refund's key is made from the payment, so every event and reconcile that
// reports the payment finds the one refund (Duplicate). The refund waits on
// the card refunds list (refund_retry.go) until made at the provider. It
// touches neither the order's refunded sums nor the day's totals nor the
// books: the money was never the order's.
func (s *Store) refundPayment(ctx context.Context, d OrderDetails, res PaymentResult, cause error) (PaymentApplied, error) {
	o := d.Order
	if rf, ok := d.Refund(lateRefundKey(res.Provider, res.PaymentRef)); ok {
		return PaymentApplied{Order: o, Duplicate: true, Refund: &rf}, cause
	}
	var rf Refund
	add := func(b *txItems, now time.Time) error {
		rec := paymentRefundRecord(o, res, cause, now)
		rf = rec.refund()
		isNew := expression.AttributeNotExists(expression.Name(attrPK))
		if err := b.put(rec, &isNew, itemRole{kind: "event"}); err != nil { // taken: refunded already, as an event applied
			return err
		}
		if res.Refunded != nil {
			if m := res.Refunded(o, rf); m != nil {
				put, err := s.mailPut(*m)
				if err != nil {
					return err
				}
				b.add(put, itemRole{})
			}
		}
		return nil
	}
	if errors.Is(cause, ErrPaymentMismatch) {
		released, err := s.release(ctx, d, ReleaseMismatch, res.Provider, res.EventID, add)
		if err != nil {
			return PaymentApplied{}, err
		}
		return PaymentApplied{Order: released, Refund: &rf}, cause
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	b := &txItems{s: s}
	if err := add(b, now); err != nil {
		return PaymentApplied{}, err
	}
	if err := s.eventItem(b, res.Provider, res.EventID, o.ID, eventRefunded, now); err != nil {
		return PaymentApplied{}, err
	}
	err := s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: b.tx})
	if reasons := cancellationReasons(err); reasons != nil && moved(reasons, b.roles) {
		return PaymentApplied{}, errOrderMoved // the next read finds the refund
	}
	if err != nil {
		return PaymentApplied{}, fmt.Errorf("record the refund of payment %s of order %s: %w", res.PaymentRef, o.ID, err)
	}
	return PaymentApplied{Order: o, Refund: &rf}, cause
}

// paymentRefundRecord is the pending refund of a payment that could not
// place o, on the card refunds list; the card refunds job and
// RetryCardRefund make it at its provider under its own key.
func paymentRefundRecord(o Order, res PaymentResult, cause error, now time.Time) refundRecord {
	key := lateRefundKey(res.Provider, res.PaymentRef)
	reason := "Paid after the order expired: refunded automatically"
	switch {
	case errors.Is(cause, ErrOrderPaid):
		reason = "A second payment of an order already paid: refunded automatically"
	case errors.Is(cause, ErrPaymentMismatch):
		reason = fmt.Sprintf("Paid %s where %s was due: refunded automatically and the order released", res.Amount, o.Hold.Card)
	}
	rec := refundRecord{
		PK: orderKey(o.ID), SK: refundKey(key), EntityType: entityRefund, At: timestamp(now),
		Amount: res.Amount.Amount, Card: res.Amount.Amount, Currency: res.Amount.Currency, Reason: reason,
		Status: string(RefundCardPending), ChargeID: res.PaymentRef, Provider: res.Provider, OrderLabel: o.Label(),
	}
	rec.AttentionListPK, rec.AttentionListSK = pendingRefundKeys(now, orderRefundListID(o.ID, key))
	return rec
}

// HeldOrdersDue lists the orders still awaiting payment whose deadline
// passed more than grace before now, soonest deadline first, at most
// limit: one Query per list shard of GSI1 awaiting-payment#n (sort key
// <until>#id, below now − grace), in parallel, merged. The reconcile step
// reads each one's hosted page by its saved id and settles it as the
// webhook would have (PlaceHeldOrder, or ReleaseHeldOrder after expiring
// the page); settled orders leave the list in the transaction that
// settles them.
func (s *Store) HeldOrdersDue(ctx context.Context, now time.Time, grace time.Duration, limit int) ([]Order, error) {
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return nil, err
	}
	before := timestamp(now.Add(-grace))
	l := shardedList{id: prefixAwaitingPayment, shards: shards, key: func(n int) keyCond {
		return onGSI1.pkAndSKBelow(awaitingPaymentKey(n), before)
	}}
	p, err := mergedPage(ctx, s, l, limit, "", orderRecord.order)
	return p.Items, err
}
