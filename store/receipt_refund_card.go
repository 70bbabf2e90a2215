package store

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A receipt's refund at the provider that took its charge (card_refund.go
// says how a card refund goes): asked, answered pending, confirmed by the
// provider's event or the card refunds job, or let go when the provider
// says no.

// cardRefundOfReceipt is what the provider is asked for a receipt's
// pending refund.
func cardRefundOfReceipt(r Receipt) CardRefund {
	c := CardRefund{
		Provider: r.Provider, PaymentRef: r.ChargeID, Amount: r.Refund.Amount,
		Key: roundKey(receiptRefundKey(r.Number), r.refundRound), RefundRef: r.Refund.GatewayID,
	}
	c.Metadata = map[string]string{RefundMetaCustomer: r.AccountID, RefundMetaReceipt: r.Number, RefundMetaKey: c.Key}
	return c
}

// receiptRefundMine is the condition that a receipt's refund is still the
// pending one read.
func receiptRefundMine(key string) expression.ConditionBuilder {
	return expression.Name("RefundStatus").Equal(expression.Value(string(ReceiptRefundPending))).
		And(expression.Name("RefundKey").Equal(expression.Value(key)))
}

// finishReceiptRefund asks the provider for the pending refund and records
// its answer. A final no (or a failure the provider reported) lets the
// reservation go; an unknown outcome (the provider unreachable) leaves it
// pending, to be finished by a later try with the same key; a refund the
// provider answered pending keeps its id and waits for the event or the
// job.
func (s *Store) finishReceiptRefund(ctx context.Context, r Receipt, refunder Refunder, mail func(Receipt) *Mail) (Receipt, error) {
	pending := *r.Refund
	pk, sk := accountKey(r.AccountID), receiptSortKey(r.ProcessedAt, r.ProductID)
	ans, err := refunder.RefundCard(ctx, cardRefundOfReceipt(r))
	switch {
	case refusedForGood(err):
		if rel := s.letReceiptRefundGo(ctx, r, nil); rel != nil {
			slog.ErrorContext(ctx, "let go of a refused refund", "receipt", r.Number, "err", rel)
		}
		r.Refund = nil
		return r, err
	case err != nil:
		if ctx.Err() == nil { // a try our own caller stopped is not the provider's failure
			pending.CardTries = s.countCardTry(ctx, pk, sk, receiptRefundMine(pending.Key), pending.CardTries, err)
			r.Refund = &pending
		}
		return r, fmt.Errorf("refund of receipt %s is pending, the provider did not answer: %w", r.Number, err)
	case ans.Pending:
		next := s.now().UTC().Truncate(time.Millisecond).Add(cardPendingRecheck)
		err := s.updateIf(ctx, pk, sk,
			expression.Set(expression.Name("RefundID"), expression.Value(ans.Ref)).
				Set(expression.Name("CardNextTryAt"), expression.Value(timestamp(next))),
			receiptRefundMine(pending.Key))
		if err != nil && !isConditionFailed(err) {
			return r, fmt.Errorf("keep receipt %s's card refund %s: %w", r.Number, ans.Ref, err)
		}
		pending.GatewayID, pending.CardTries.NextAt = ans.Ref, next
		r.Refund = &pending
		return r, nil
	}
	return s.completeReceiptRefund(ctx, r, ans.Ref, mail, nil)
}

// letReceiptRefundGo removes a receipt's pending refund the provider
// refused or reported failed (no money went back), on condition it is
// still the one read, and moves its card refund to the next round (a
// failed refund's key is spent). more joins the write (an event's item).
func (s *Store) letReceiptRefundGo(ctx context.Context, r Receipt, more []types.TransactWriteItem) error {
	upd, round := nextRound(r.refundRound)
	for _, attr := range append([]string{"CardTries", "CardProblem", "CardTriedAt", "CardNextTryAt", "RefundStatus", "RefundKey", "RefundAmount", "RefundReason", "RefundBy", "RefundRequestedAt", "RefundID", attrAttnPK, attrAttnSK}, refundPartAttrs...) {
		upd = upd.Remove(expression.Name(attr))
	}
	w, err := s.txUpdate(accountKey(r.AccountID), receiptSortKey(r.ProcessedAt, r.ProductID), upd, receiptRefundMine(r.Refund.Key).And(round))
	if err != nil {
		return err
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: append([]types.TransactWriteItem{w}, more...)})
	if reasons := cancellationReasons(err); reasons != nil && reasons[0] == reasonConditionFailed {
		return nil // let go or finished meanwhile
	}
	return err
}

// completeReceiptRefund records a receipt's pending refund as made (ref:
// the provider's refund), numbered as a credit note (receipt_credit_note.go),
// with today's totals and its mail, in one transaction on condition it is
// still the pending one read: once, whoever confirms it (the request, the
// job, the provider's event). more joins the transaction (an event's item).
func (s *Store) completeReceiptRefund(ctx context.Context, r Receipt, ref string, mail func(Receipt) *Mail, more []types.TransactWriteItem) (Receipt, error) {
	at := s.now().UTC().Truncate(time.Millisecond)
	var done Receipt
	var cancelled error
	err := s.numbered(ctx, bookCreditNotes, r.SubscriptionID, at, 1, func(n bookNumber) error {
		items, counterAt, d, err := s.receiptRefundCompletion(ctx, r, ref, mail, more, n, at)
		if err != nil {
			return err
		}
		err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		reasons := cancellationReasons(err)
		switch {
		case err == nil:
			done = d
			return nil
		case len(reasons) > 0 && reasons[0] == reasonConditionFailed:
			cancelled = err // not pending any more: a twin finished it
			return nil
		case bookNumberTaken(err, counterAt):
			return errBookNumberTaken
		case len(reasons) > 0:
			cancelled = err
			return nil
		}
		return fmt.Errorf("complete refund of %s: %w", r.Number, err)
	})
	if err != nil {
		return r, err
	}
	if cancelled == nil {
		return done, nil
	}
	// A twin finished it first (the provider gave both the one refund):
	// the receipt as it is now is the answer.
	now, rerr := s.receiptConsistent(ctx, r.AccountID, r.Number)
	if rerr != nil {
		return r, rerr
	}
	if now.Refund != nil && now.Refund.Status == ReceiptRefunded {
		return now, nil
	}
	return now, fmt.Errorf("complete refund of %s: %w", r.Number, ErrConflict)
}

// receiptRefundCompletion is completeReceiptRefund's transaction with
// credit note n: the receipt, more, the day's totals, the mail, then the
// series' counter (its index returned), and the receipt as it writes it.
func (s *Store) receiptRefundCompletion(ctx context.Context, r Receipt, ref string, mail func(Receipt) *Mail, more []types.TransactWriteItem, n bookNumber, at time.Time) ([]types.TransactWriteItem, int, Receipt, error) {
	done := r
	refund := *r.Refund
	refund.Status, refund.GatewayID, refund.RefundedAt = ReceiptRefunded, ref, at
	refund.CreditNote, refund.CreditNoteAt = n.String(), at
	done.Refund = &refund
	upd := expression.Set(expression.Name("RefundStatus"), expression.Value(string(ReceiptRefunded))).
		Set(expression.Name("RefundID"), expression.Value(ref)).
		Set(expression.Name("RefundedAt"), expression.Value(timestamp(refund.RefundedAt))).
		Remove(expression.Name(attrAttnPK)).Remove(expression.Name(attrAttnSK)).Remove(expression.Name("CardNextTryAt"))
	complete, err := s.txUpdate(accountKey(r.AccountID), receiptSortKey(r.ProcessedAt, r.ProductID), withCreditNote(upd, n, at),
		receiptRefundMine(r.Refund.Key))
	if err != nil {
		return nil, 0, r, err
	}
	items := append([]types.TransactWriteItem{complete}, more...)
	if r.orderID != "" {
		// The receipt's order counted it in its day's totals: what goes
		// back counts on today's, with the completion, so once.
		shards, err := s.lists.count(ctx, s)
		if err != nil {
			return nil, 0, r, err
		}
		totals, err := s.dayTotalsRefund(r.orderID, refund.RefundedAt, refund.Amount, shards)
		if err != nil {
			return nil, 0, r, err
		}
		items = append(items, totals)
	}
	if mail != nil {
		if m := mail(done); m != nil {
			mp, err := s.mailPut(*m)
			if err != nil {
				return nil, 0, r, err
			}
			items = append(items, mp)
		}
	}
	items, counterAt, err := s.creditNoteCounter(items, n)
	return items, counterAt, done, err
}
