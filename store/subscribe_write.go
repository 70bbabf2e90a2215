package store

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// subscribeKeyAt is where the subscribe key's item is among writeSubscribe's
// items (after the receipt and its period marker): its condition failing
// says the key was used already.
const subscribeKeyAt = 2

// writeSubscribe writes a new subscription with its first receipt in one
// transaction: the receipt and its period marker, the subscribe key's item
// (keyRec, on condition keyCond: new for Subscribe, still pending for a
// start by payment), the subscription (new), more items (an event's), the
// receipt's number counter and, when the product ships, the first period's
// order (see transactWithOrder). sub gets the order's link and receipt its
// number.
func (s *Store) writeSubscribe(ctx context.Context, sub *Subscription, receipt *Receipt, order *subscriptionOrder, today, now time.Time,
	keyRec subscribeKeyRecord, keyCond expression.ConditionBuilder, more []types.TransactWriteItem, mail func(Receipt) *Mail) error {
	shards, err := s.billingShards(ctx)
	if err != nil {
		return err
	}
	isNew := expression.AttributeNotExists(expression.Name(attrPK))
	// The receipt's number is taken in the same transaction (books.go), its
	// counter the last of the receipt's items, before the order's.
	return s.numbered(ctx, bookReceipts, sub.ID, now, 1, func(n bookNumber) error {
		s.numberReceipt(receipt, n, 0)
		counterAt := -1
		err := s.transactWithOrder(ctx, order, func(so *subscriptionOrder) ([]types.TransactWriteItem, error) {
			if so != nil {
				sub.Orders = []PeriodOrder{so.periodOrder(today)}
				receipt.orderID = so.order.ID
			}
			items, err := s.receiptWrites(*receipt)
			if err != nil {
				return nil, err
			}
			b := &txItems{s: s}
			if err := b.put(keyRec, &keyCond, itemRole{kind: "key"}); err != nil {
				return nil, err
			}
			if err := b.put(newSubscriptionRecord(*sub, shards), &isNew, itemRole{}); err != nil {
				return nil, err
			}
			totals, err := s.subscriptionTotalsWrites(ctx, Subscription{}, *sub) // a new one: counted from nothing
			if err != nil {
				return nil, err
			}
			items = append(append(append(items, b.tx...), more...), totals...)
			// The receipt's mail, made once it has its number; after the
			// items whose places a cancellation's reasons are read at.
			if m := receiptMailOf(mail, *receipt); m != nil {
				put, err := s.mailPut(*m)
				if err != nil {
					return nil, err
				}
				items = append(items, put)
			}
			event, ok, err := s.txShopEvent(EventSubscriptionCreated, sub.AccountID, now, func() any { return eventSubscription(*sub, receipt) })
			if err != nil {
				return nil, err
			}
			if ok {
				items = append(items, event)
			}
			counter, err := s.bookCounterWrite(n)
			if err != nil {
				return nil, err
			}
			counterAt = len(items)
			return append(items, counter), nil
		})
		if counterAt >= 0 && bookNumberTaken(err, counterAt) {
			return errBookNumberTaken
		}
		return err
	})
}

// receiptMailOf is mail's mail of a receipt, none without a mail or for a
// receipt that charged nothing (free days: "we charged €0.00" would tell
// nothing true), but a trial's (its mail says when the trial ends and what
// is charged then: StartSubscription's TrialMail).
func receiptMailOf(mail func(Receipt) *Mail, r Receipt) *Mail {
	if mail == nil || r.Amount.Amount <= 0 && r.Kind != ReceiptTrial {
		return nil
	}
	return mail(r)
}
