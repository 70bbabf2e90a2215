package store

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store/rules"
)

// A receipt holds one refund. A swap now that refunded the difference
// takes it; cancelling now in the same period then gives back the rest as
// a top-up of the same receipt: its refund becomes cancelling's, the swap
// now's amount kept in RefundedBefore (Refunded counts both), under the
// card refund's next round so the provider's key is a new refund. The
// customer then paid the old line's days up to the swap plus the new
// line's since, to the cent (TestCancelNowAfterASwapNowRefundGivesBackTheRest).

// cancelTopUp is cancelling now's refund of a period whose receipt a swap
// now refunded (done): the unused days at the line as it is now, priced as
// the period was (periodNetAt: its code), capped at what is left of the
// receipt. None when that refund is still pending or was not a swap's
// (staff refunded the receipt: nothing more goes back).
func (s *Store) cancelTopUp(ctx context.Context, cur Subscription, receipt Receipt, today time.Time) ([]cancelRefund, int, int, error) {
	if receipt.Refund.By != "change" || receipt.Refund.Status != ReceiptRefunded {
		return nil, 0, 0, nil
	}
	price, err := s.periodNetAt(ctx, receipt, cur, cur)
	if err != nil {
		return nil, 0, 0, err
	}
	owed, unused, total := rules.UnusedShare(price, receipt.PeriodStart, receipt.PeriodEnd, today)
	owed.Amount = min(owed.Amount, receipt.Amount.Amount-receipt.Refunded().Amount)
	if owed.Amount <= 0 {
		return nil, unused, total, nil
	}
	req := RefundRequest{CustomerID: cur.AccountID, Number: receipt.Number, Amount: owed, By: "cancellation", Key: "cancel-" + cur.ID,
		Reason: fmt.Sprintf("cancelled on %s: %d unused days of %d at %s", FormatDate(today), unused, total, cur.LineName())}
	return []cancelRefund{{receipt: receipt, req: req, topUp: true}}, unused, total, nil
}

// toppedUp is r with its done refund counted in RefundedBefore and its
// card refund in the next round, as receiptRefundTopUp writes it.
func (r Receipt) toppedUp() Receipt {
	r.RefundedBefore = r.Refunded()
	r.CreditNotesBefore = r.CreditNotes()
	r.refundRound++
	return r
}

// receiptRefundTopUp reserves req on r after its done refund: on
// condition that refund is still the one read (done, its key, its round).
func (s *Store) receiptRefundTopUp(r Receipt, req RefundRequest) (types.TransactWriteItem, error) {
	now := s.now()
	listPK, listSK := pendingRefundKeys(now, receiptRefundListID(r))
	upd, sameRound := nextRound(r.refundRound)
	upd = upd.Set(expression.Name("RefundStatus"), expression.Value(string(ReceiptRefundPending))).
		Set(expression.Name(attrAttnPK), expression.Value(listPK)).
		Set(expression.Name(attrAttnSK), expression.Value(listSK)).
		Set(expression.Name("RefundKey"), expression.Value(req.Key)).
		Set(expression.Name("RefundAmount"), expression.Value(req.Amount.Amount)).
		Set(expression.Name("RefundReason"), expression.Value(req.Reason)).
		Set(expression.Name("RefundBy"), expression.Value(req.By)).
		Set(expression.Name("RefundRequestedAt"), expression.Value(timestamp(now))).
		Set(expression.Name("RefundedBefore"), expression.Value(r.Refunded().Amount))
	upd = keepCreditNote(upd, r)
	for _, attr := range append([]string{"RefundedAt", "RefundID", "CardTries", "CardProblem", "CardTriedAt", "CardNextTryAt"}, refundPartAttrs...) {
		upd = upd.Remove(expression.Name(attr))
	}
	cond := expression.Name("RefundStatus").Equal(expression.Value(string(ReceiptRefunded))).
		And(expression.Name("RefundKey").Equal(expression.Value(r.Refund.Key))).And(sameRound)
	return s.txUpdate(accountKey(r.AccountID), receiptSortKey(r.ProcessedAt, r.ProductID), upd, cond)
}
