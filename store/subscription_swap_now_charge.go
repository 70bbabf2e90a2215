package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// SwapNowCharged records a swap now whose difference the kept card paid
// (charge): one transaction writes the change's receipt ("Change to
// <line>", ReceiptChange, the rest of the period) with its period marker
// (on condition neither exists), the swap (on condition of the version
// planned), the receipt's number and, if given, its mail. A subscription
// that moved meanwhile is a StaleError and nothing is written: the caller
// gives the charge back. The same charge recorded already (a double
// submit of one tab, the provider's key making it one payment) answers
// what that write did.
func (s *Store) SwapNowCharged(ctx context.Context, plan SwapNowPlan, charge GatewayCharge, mail func(Receipt) *Mail) (SwappedNow, error) {
	return s.swapNowCharged(ctx, plan, charge, mail)
}

// swapNowCharged is SwapNowCharged with more items in its transaction (a
// waiting swap's, deleted on condition it is this payment's).
func (s *Store) swapNowCharged(ctx context.Context, plan SwapNowPlan, charge GatewayCharge, mail func(Receipt) *Mail, extra ...types.TransactWriteItem) (SwappedNow, error) {
	q := plan.Quote
	if q.Charge.Amount <= 0 || charge.Amount != q.Charge {
		return SwappedNow{}, fmt.Errorf("swap now: charged %v, quoted %v", charge.Amount, q.Charge)
	}
	receipt := NewReceipt(plan.Next, charge, q.From, plan.Receipt.PeriodEnd)
	receipt.Kind = ReceiptChange
	var saved Subscription
	err := s.numbered(ctx, bookReceipts, plan.Current.ID, charge.At, 1, func(n bookNumber) error {
		s.numberReceipt(&receipt, n, 0)
		items, err := s.receiptWrites(receipt)
		if err != nil {
			return err
		}
		swap, written, err := s.swapWrites(ctx, plan.Current, plan.Next)
		if err != nil {
			return err
		}
		saved, items = written, append(items, swap...)
		if mail != nil {
			if m := mail(receipt); m != nil {
				mp, err := s.mailPut(*m)
				if err != nil {
					return err
				}
				items = append(items, mp)
			}
		}
		items = append(items, extra...)
		counter, err := s.bookCounterWrite(n)
		if err != nil {
			return err
		}
		items = append(items, counter)
		err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		if bookNumberTaken(err, len(items)-1) {
			return errBookNumberTaken
		}
		return err
	})
	switch {
	case err == nil:
		return SwappedNow{Subscription: saved, Receipt: &receipt}, nil
	case len(cancellationReasons(err)) == 0:
		return SwappedNow{}, fmt.Errorf("record the swap now of %s: %w", plan.Current.ID, err)
	}
	return s.swapChargedBefore(ctx, plan, charge)
}

// swapChargedBefore is a swap now whose write lost: the change's receipt
// for this very charge if another request wrote it (a double submit), else
// the StaleError of the subscription as it is now.
func (s *Store) swapChargedBefore(ctx context.Context, plan SwapNowPlan, charge GatewayCharge) (SwappedNow, error) {
	now, err := s.subscription(ctx, plan.Current.AccountID, plan.Current.ID, true)
	if err != nil {
		return SwappedNow{}, fmt.Errorf("subscription %s: %w", plan.Current.ID, ErrConflict)
	}
	r, err := s.paidReceiptCovering(ctx, now, plan.Quote.From.AddDate(0, 0, -1))
	if errors.Is(err, ErrChangedNowAlready) && r.Kind == ReceiptChange && r.ChargeID == charge.ID {
		return SwappedNow{Subscription: now, Receipt: &r}, nil
	}
	return SwappedNow{Subscription: now}, &StaleError{Current: now}
}
