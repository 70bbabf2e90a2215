package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"shop/store/rules"
)

// After a swap now the days left in the period are paid at the new line:
// the period's receipt paid the old line's days, the change's receipt
// ("Change to <line>") the difference to the new line for the rest. A
// cancellation now gives back the unused days at what they were paid at,
// the new line, never the old receipt's amount alone. Given back from both
// receipts, it is told in one mail, the period's refund's, with the total
// and each receipt's part and card (RefundPart); the change's refund
// sends none (TestCancelNowAfterASwapNowGivesBackTheNewLinesDays).

// cancelSplit is what cancelling now gives back of a period swapped now
// with a charge: Owed, the unused days at the new line (UnusedShare of
// wholeNew), taken first from the change's receipt (FromChange, up to
// what it charged) and the rest from the period's receipt (FromPeriod).
type cancelSplit struct {
	Owed, FromChange, FromPeriod Money
	UnusedDays, Days             int
}

// splitCancelAfterSwap is the refund of cancelling on today a period
// [start, end) swapped now to a line costing wholeNew for the whole
// period, whose change receipt charged `change`. Paid minus given back is
// then the old line's days up to the swap plus the new line's days from
// it to today, each rounded down as UnusedShare does. FromPeriod never
// exceeds `period`, the period's receipt's amount.
func splitCancelAfterSwap(wholeNew, period, change Money, start, end, today time.Time) cancelSplit {
	var c cancelSplit
	c.Owed, c.UnusedDays, c.Days = rules.UnusedShare(wholeNew, start, end, today)
	cur := wholeNew.Currency
	c.FromChange = Money{Amount: min(c.Owed.Amount, max(change.Amount, 0)), Currency: cur}
	c.FromPeriod = Money{Amount: min(c.Owed.Amount-c.FromChange.Amount, period.Amount), Currency: cur}
	return c
}

// cancelRefund is one receipt's refund reserved by a cancellation.
type cancelRefund struct {
	receipt Receipt
	req     RefundRequest
	topUp   bool // after the receipt's swap now refund (cancel_refund_topup.go)
}

// cancelRefunds are the refunds that cancelling cur on today gives: the
// unused days of the period's receipt at its amount or, after a swap now
// with a charge, at the new line, split over the change's receipt and the
// period's (splitCancelAfterSwap). None when a receipt was refunded
// already (staff did, or a swap now gave money back).
func (s *Store) cancelRefunds(ctx context.Context, cur Subscription, today time.Time) ([]cancelRefund, int, int, error) {
	receipt, err := s.CurrentReceipt(ctx, cur)
	switch {
	case errors.Is(err, ErrNotFound): // expired or never written: nothing to give back from
		return nil, 0, 0, nil
	case err != nil:
		return nil, 0, 0, err
	case receipt.Refund != nil:
		return s.cancelTopUp(ctx, cur, receipt, today)
	}
	why := func(unused, total int) string {
		return fmt.Sprintf("cancelled on %s: %d unused days of %d", FormatDate(today), unused, total)
	}
	req := func(r Receipt, amount Money, key, reason string) cancelRefund {
		return cancelRefund{receipt: r, req: RefundRequest{CustomerID: cur.AccountID, Number: r.Number, Amount: amount, By: "cancellation", Key: key, Reason: reason}}
	}
	change, swapped, err := s.changeReceiptOf(ctx, cur, receipt, today)
	if err != nil {
		return nil, 0, 0, err
	}
	if !swapped {
		// Delivery is not given back: the period's parcel was sent.
		share, unused, total := rules.UnusedShare(receipt.Goods(), receipt.PeriodStart, receipt.PeriodEnd, today)
		if share.Amount <= 0 {
			return nil, unused, total, nil
		}
		return []cancelRefund{req(receipt, share, "cancel-"+cur.ID, why(unused, total))}, unused, total, nil
	}
	price, err := s.periodNetAt(ctx, receipt, cur, cur)
	if err != nil {
		return nil, 0, 0, err
	}
	split := splitCancelAfterSwap(price, receipt.Amount, change.Amount, receipt.PeriodStart, receipt.PeriodEnd, today)
	var out []cancelRefund
	if split.FromChange.Amount > 0 {
		out = append(out, req(change, split.FromChange, "cancel-change-"+cur.ID, why(split.UnusedDays, split.Days)+" at "+change.ProductName))
	}
	if split.FromPeriod.Amount > 0 {
		out = append(out, req(receipt, split.FromPeriod, "cancel-"+cur.ID, why(split.UnusedDays, split.Days)+" at "+change.ProductName))
	}
	if len(out) == 2 { // one mail, the period's, tells of both
		out[1].req.With = &RefundPart{Number: change.NumberInBooks(), Amount: split.FromChange, Card: change.Card.Label()}
		out[0].req.MailedWith = receipt.Number
	}
	return out, split.UnusedDays, split.Days, nil
}

// changeReceiptOf is the receipt of a swap now's charge in period's
// period, not refunded, if one was written: the newest period marker up to
// tomorrow (a swap now's receipt starts the day after it), one consistent
// Query; its receipt is read only when it is not period's.
func (s *Store) changeReceiptOf(ctx context.Context, cur Subscription, period Receipt, today time.Time) (Receipt, bool, error) {
	q := querySpec{key: onTable.pkAndSKBetween(accountKey(cur.AccountID), periodKey(cur.ID, period.PeriodStart),
		periodKey(cur.ID, today.AddDate(0, 0, 1))), backward: true, consistent: true}
	marks, err := pagedQuery(ctx, s, q, 1, "", asRecord[periodRecord])
	if err != nil || len(marks.Items) == 0 || marks.Items[0].ReceiptNumber == period.Number {
		return Receipt{}, false, err
	}
	r, err := s.receiptConsistent(ctx, cur.AccountID, marks.Items[0].ReceiptNumber)
	switch {
	case errors.Is(err, ErrNotFound):
		return Receipt{}, false, nil
	case err != nil:
		return Receipt{}, false, err
	}
	return r, r.Kind == ReceiptChange && r.Refund == nil && r.PeriodEnd.Equal(period.PeriodEnd), nil
}
