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

	"shop/store/rules"
)

// The writes of the billing jobs. Each is conditional on the version of the
// subscription the job read, so a job and a customer (or two jobs) never
// undo each other: the loser gets ErrConflict and reads again.

// ErrAlreadyPaid says the period already has its receipt.
var ErrAlreadyPaid = errors.New("this period is already paid")

// subscriptionPut writes sub (its version bumped) on condition that the
// stored one is still at sub.Version: the put first, then the ADDs of its
// change to the kept totals, if any (subscription_totals.go), which the
// version condition makes count once.
func (s *Store) subscriptionPut(ctx context.Context, sub Subscription) ([]types.TransactWriteItem, Subscription, error) {
	shards, err := s.billingShards(ctx)
	if err != nil {
		return nil, sub, err
	}
	read := sub.Version
	sub.Version++
	item, err := attributevalue.MarshalMap(newSubscriptionRecord(sub, shards))
	if err != nil {
		return nil, sub, err
	}
	cond, err := expression.NewBuilder().WithCondition(expression.Name("Version").Equal(expression.Value(read))).Build()
	if err != nil {
		return nil, sub, err
	}
	items := []types.TransactWriteItem{{Put: &types.Put{
		TableName: aws.String(s.table), Item: item, ConditionExpression: cond.Condition(),
		ExpressionAttributeNames: cond.Names(), ExpressionAttributeValues: cond.Values(),
	}}}
	if sub.stored != nil { // one not read from the table has no change to add
		totals, err := s.subscriptionTotalsWrites(ctx, *sub.stored, sub)
		if err != nil {
			return nil, sub, err
		}
		items = append(items, totals...)
		if items, err = s.subscriptionEvents(items, *sub.stored, sub); err != nil {
			return nil, sub, err
		}
	}
	return items, sub.asStored(), nil
}

// writeSubscriptionWithMail writes sub and, if given, a mail in one
// transaction; ErrConflict if the subscription moved meanwhile. A mail
// already in the outbox (a rerun) is not an error: the subscription write
// then goes without it.
func (s *Store) writeSubscriptionWithMail(ctx context.Context, sub Subscription, mails ...*Mail) (Subscription, error) {
	put, next, err := s.subscriptionPut(ctx, sub)
	if err != nil {
		return sub, err
	}
	items := put
	var sent []*Mail
	for _, mail := range mails {
		if mail == nil {
			continue
		}
		m, err := s.mailPut(*mail)
		if err != nil {
			return sub, err
		}
		items = append(items, m)
		sent = append(sent, mail)
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	reasons := cancellationReasons(err)
	switch {
	case err == nil:
		return next, nil
	case len(reasons) > 0 && reasons[0] == reasonConditionFailed:
		return sub, fmt.Errorf("subscription %s at version %d: %w", sub.ID, sub.Version, ErrConflict)
	case len(reasons) > len(put):
		var left []*Mail
		for i, m := range sent {
			if reasons[len(put)+i] != reasonConditionFailed {
				left = append(left, m)
			}
		}
		if len(left) < len(sent) {
			return s.writeSubscriptionWithMail(ctx, sub, left...)
		}
	}
	return sub, fmt.Errorf("write subscription %s: %w", sub.ID, err)
}

// RecordPaymentIntent notes on the subscription that the job is about to
// charge its due period (attempt sub.Attempt+1), before the gateway is
// called.
func (s *Store) RecordPaymentIntent(ctx context.Context, sub Subscription) (Subscription, error) {
	sub.Intent = &PaymentIntent{Period: sub.NextPaymentDate, Attempt: sub.Attempt + 1, At: s.now()}
	return s.UpdateSubscription(ctx, sub) // a PutItem: half a transaction's cost
}

// CompletePayment records a charge of the intent's period: one transaction
// writes the receipt and its period marker (each on condition it does not
// exist), the subscription with its next dates (on condition of the version
// read) and, if given, the receipt mail; when the product ships, the
// period's order goes in the same transaction (see transactWithOrder), so
// the period marker that makes a rerun ErrAlreadyPaid also makes it place
// no second order. ErrAlreadyPaid if the period has its receipt;
// ErrConflict if the subscription moved.
func (s *Store) CompletePayment(ctx context.Context, sub Subscription, charge GatewayCharge, today time.Time, mail func(Receipt) *Mail) (Subscription, Receipt, error) {
	return s.completePayment(ctx, sub, charge, today, mail, "")
}

// completePayment is CompletePayment, with the item of the provider's
// event that reported the payment (eventID, if any) in its transaction: an
// event applied already is ErrAlreadyPaid too.
func (s *Store) completePayment(ctx context.Context, sub Subscription, charge GatewayCharge, today time.Time, mail func(Receipt) *Mail, eventID string) (Subscription, Receipt, error) {
	if sub.Intent == nil {
		return sub, Receipt{}, errors.New("complete payment: no intent recorded")
	}
	period := sub.Intent.Period
	next, err := s.paidSubscription(ctx, sub, today)
	if err != nil {
		return sub, Receipt{}, err
	}
	receipt, units := periodReceipt(sub, next, charge, period)
	so, ships, err := s.planSubscriptionOrder(ctx, sub, receipt, units)
	if err != nil {
		return sub, Receipt{}, err
	}
	var order *subscriptionOrder
	if ships {
		order = &so
	}
	var saved Subscription
	eventAt := -1
	// The receipt's number is taken in the same transaction (books.go), its
	// counter the last of the receipt's items, before the order's.
	err = s.numbered(ctx, bookReceipts, sub.ID, charge.At, 1, func(n bookNumber) error {
		s.numberReceipt(&receipt, n, 0)
		counterAt := -1
		err := s.transactWithOrder(ctx, order, func(so *subscriptionOrder) ([]types.TransactWriteItem, error) {
			withOrder := next
			if so != nil {
				withOrder = next.withOrder(so.periodOrder(period))
				receipt.orderID = so.order.ID
			}
			items, written, at, err := s.paymentItems(ctx, sub, withOrder, receipt, charge, mail, eventID)
			if err != nil {
				return nil, err
			}
			saved = written
			if at >= 0 {
				eventAt = at
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
	reasons := cancellationReasons(err)
	switch {
	case err == nil:
		return saved, receipt, nil
	case len(reasons) > 1 && reasons[1] == reasonConditionFailed, settled(reasons, eventAt):
		return sub, Receipt{}, fmt.Errorf("subscription %s period %s: %w", sub.ID, FormatDate(period), ErrAlreadyPaid)
	case len(reasons) > 0:
		return sub, Receipt{}, fmt.Errorf("subscription %s: %w", sub.ID, ErrConflict)
	}
	return sub, Receipt{}, fmt.Errorf("complete payment of %s: %w", sub.ID, err)
}

// paidSubscription is sub once its intent's period is paid: its next
// dates, the announced price if it starts now, active again, a covered
// payment of its coupon used, and the VAT category of a subscription from
// before VAT (read from its product, and kept by the write).
func (s *Store) paidSubscription(ctx context.Context, sub Subscription, today time.Time) (Subscription, error) {
	period := sub.Intent.Period
	next := sub
	next.NextPaymentDate = sub.PeriodEnd(period) // after a trial, its share runs to the payment date
	next.NextReminderDate = rules.ReminderDate(next.NextPaymentDate, today, s.reminderLead)
	next.LastPaymentDate = period
	if !sub.NewPriceFrom.IsZero() && !period.Before(sub.NewPriceFrom) {
		// The announced price is now the price.
		next.MonthlyPrice, next.NewPrice, next.NewPriceFrom = sub.NewPrice, Money{}, time.Time{}
	}
	next.Status, next.Attempt, next.RetryDate, next.Intent = SubscriptionActive, 0, time.Time{}, nil
	if next.Category == "" {
		p, err := s.Product(ctx, sub.ProductID)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return sub, err
		}
		next.Category = p.Category
	}
	if sub.Coupon.Covers() {
		// One covered payment used, in this write (conditional on the
		// version read): counted once however often the job runs.
		next.Coupon = sub.Coupon.Used()
	}
	return next, nil
}

// periodReceipt is the receipt of sub's period paid by charge (next: sub
// as the payment leaves it), and the units the period ships.
func periodReceipt(sub, next Subscription, charge GatewayCharge, period time.Time) (Receipt, int) {
	receipt := NewReceipt(next, charge, period, next.NextPaymentDate)
	receipt.withDiscount(sub.Coupon, sub.DiscountFor(period))
	receipt.Shipping = sub.ShippingFor(period)
	units := sub.PeriodMonths * sub.Units()
	if share, ok := sub.trialShare(period); ok {
		// The first charge after a trial pays its days as a new
		// subscriber's first days do, and ships as they do.
		receipt.Kind, units = ReceiptFirstDays, share.Units()*sub.Units()
	}
	return receipt, units
}

// paymentItems are a payment's writes but the receipt book's counter:
// the receipt, the subscription as paid (saved: as written), the shop's
// event, the receipt's mail if any, and the provider's event item if
// eventID is given (eventAt: its index, or -1).
func (s *Store) paymentItems(ctx context.Context, sub, paid Subscription, receipt Receipt, charge GatewayCharge, mail func(Receipt) *Mail, eventID string) (items []types.TransactWriteItem, saved Subscription, eventAt int, err error) {
	eventAt = -1
	if items, err = s.receiptWrites(receipt); err != nil {
		return nil, Subscription{}, -1, err
	}
	put, written, err := s.subscriptionPut(ctx, paid)
	if err != nil {
		return nil, Subscription{}, -1, err
	}
	items = append(items, put...)
	if items, err = s.withShopEvent(items, EventSubscriptionRenewed, sub.AccountID, charge.At, func() any { return eventSubscription(written, &receipt) }); err != nil {
		return nil, Subscription{}, -1, err
	}
	if mail != nil {
		if m := mail(receipt); m != nil {
			mp, err := s.mailPut(*m)
			if err != nil {
				return nil, Subscription{}, -1, err
			}
			items = append(items, mp)
		}
	}
	if eventID != "" {
		b := &txItems{s: s}
		if err := s.eventItem(b, ProviderOf(charge.Provider), eventID, sub.ID, eventPaid, charge.At); err != nil {
			return nil, Subscription{}, -1, err
		}
		eventAt, items = len(items), append(items, b.tx...)
	}
	return items, written, eventAt, nil
}

// FailPayment records a declined charge: the subscription is past due and
// retried after retryDays[attempt-1] days, or, after the last retry,
// cancelled. It returns the subscription as written.
func (s *Store) FailPayment(ctx context.Context, sub Subscription, today time.Time, retryDays []int, mail func(Subscription) *Mail) (Subscription, error) {
	next := sub
	next.Attempt++
	next.Intent = nil
	if next.Attempt > len(retryDays) {
		next.Status, next.CancelledOn = SubscriptionCancelled, today
		next.NextPaymentDate, next.NextReminderDate, next.RetryDate = time.Time{}, time.Time{}, time.Time{}
	} else {
		next.Status = SubscriptionPastDue
		next.RetryDate = today.AddDate(0, 0, retryDays[next.Attempt-1])
		next.NextReminderDate = time.Time{}
	}
	var m *Mail
	if mail != nil {
		m = mail(next)
	}
	return s.writeSubscriptionWithMail(ctx, next, m)
}

// EndSubscription cancels a subscription whose end at period end has come.
func (s *Store) EndSubscription(ctx context.Context, sub Subscription, today time.Time, mail func(Subscription) *Mail) (Subscription, error) {
	next := sub
	next.Status, next.CancelledOn = SubscriptionCancelled, today
	next.EndsOn, next.NextPaymentDate, next.NextReminderDate, next.RetryDate, next.Intent = time.Time{}, time.Time{}, time.Time{}, time.Time{}, nil
	var m *Mail
	if mail != nil {
		m = mail(next)
	}
	return s.writeSubscriptionWithMail(ctx, next, m)
}

// SendReminder records a reminder: the mail goes into the outbox and the
// reminder date moves on in the same transaction, so a reminder is sent
// once per payment. More mails of that payment (a card expiring before it)
// go in the same transaction, so they too are sent once.
func (s *Store) SendReminder(ctx context.Context, sub Subscription, today time.Time, mail *Mail, more ...*Mail) (Subscription, error) {
	next := sub
	next.NextReminderDate = time.Time{}
	if mail != nil { // nil: dropped unsent, its payment date has passed
		next.LastReminderDate = today
	}
	return s.writeSubscriptionWithMail(ctx, next, append([]*Mail{mail}, more...)...)
}

// OpenIntents lists payment intents recorded before `before`, oldest first
// (GSI2: GSI2-PK=payment-intents, sparse): charges a crashed run left.
func (s *Store) OpenIntents(ctx context.Context, before time.Time, limit int) ([]Subscription, error) {
	q := querySpec{key: onGSI2.pkAndSKBelow(partitionIntents, timestamp(before))}
	p, err := pagedQuery(ctx, s, q, limit, "", subscriptionRecord.subscription)
	return p.Items, err
}

// SubscriptionConsistent reads a subscription strongly consistent, for a
// job about to act on it.
func (s *Store) SubscriptionConsistent(ctx context.Context, customerID, id string) (Subscription, error) {
	return s.subscription(ctx, customerID, id, true)
}

// Now is the store's clock (settable in tests).
func (s *Store) Now() time.Time { return s.now() }
