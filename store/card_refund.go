package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
)

// A refund's card part goes back through the provider that took the
// payment (the record's Provider: "test", "stripe"; "" for records from
// before providers had names, the test provider's), under an idempotency
// key made from the refund's id, so that every try of one refund is one
// refund at the provider. The provider may answer that the refund is
// pending: its id is kept on the refund, which stays on the card refunds
// list until the provider's refund event (ApplyRefundEvent) or the card
// refunds job, reading the refund at the provider, confirms it, whichever
// comes first, once.

// CardRefund is the card part of one refund as its provider is asked for it.
type CardRefund struct {
	// Provider took the payment ("": the test provider, see ProviderOf).
	Provider string
	// PaymentRef is the provider's payment: Stripe's payment intent, the
	// test provider's, or a charge of the legacy test gateway (ch_…).
	PaymentRef string
	Amount     Money
	// Key is the idempotency key, made from the refund's id.
	Key string
	// RefundRef is the provider's refund, when a try before was answered
	// pending: it is read where it stands, nothing is refunded again.
	RefundRef string
	// Metadata names the shop's refund, so that the provider's refund
	// events find it (RefundMeta* keys).
	Metadata map[string]string
}

// CardRefundAnswer is the provider's answer to a card refund.
type CardRefundAnswer struct {
	Ref string // the provider's refund id
	// Pending: the provider took the refund and has not confirmed it yet;
	// its event or the card refunds job will.
	Pending bool
}

// Refunder makes the card part of refunds at the provider that took each
// payment, at most once per idempotency key (store/payment's CardRefunds:
// by the record's provider, and the legacy test gateway for its charges).
// A final no is ErrRefundRefused (or ErrRefundExceedsCharge, ErrBadRefund,
// ErrNotFound); a refund the provider reports failed is ErrCardRefundFailed;
// anything else is an unknown outcome, tried again under the same key.
type Refunder interface {
	RefundCard(ctx context.Context, r CardRefund) (CardRefundAnswer, error)
}

// ErrCardRefundFailed: the provider took the refund and then reported it
// failed (a closed card, say): no money went back. Its key is spent; staff
// retrying it make a new refund at the provider under the next round's key.
var ErrCardRefundFailed = fmt.Errorf("the card's bank did not take the refund back: %w", ErrRefundRefused)

// Keys of a card refund's metadata at its provider: which of the shop's
// refunds it is.
const (
	RefundMetaOrder    = "shop_order"    // an order's refund: the order's id
	RefundMetaRefund   = "shop_refund"   // and the refund's key
	RefundMetaCustomer = "shop_customer" // a receipt's refund: the account
	RefundMetaReceipt  = "shop_receipt"  // and the receipt's number
	// RefundMetaKey is the idempotency key it was made with: an event of
	// a round that failed before is told from the round waiting now.
	RefundMetaKey = "shop_key"
)

// roundKey is a card refund's idempotency key in its round: the first
// round's is the refund's own key (as before rounds), each round after a
// failure reported by the provider gets its own.
func roundKey(key string, round int) string {
	if round <= 0 {
		return key
	}
	return fmt.Sprintf("%s-r%d", key, round+1)
}

// cardRefundOf is what the provider is asked for an order's refund.
func cardRefundOf(orderID string, rf Refund) CardRefund {
	c := CardRefund{
		Provider: rf.Provider, PaymentRef: rf.chargeID, Amount: rf.Card,
		Key:       roundKey(refundGatewayKey(orderID, rf.ID), rf.cardRound),
		RefundRef: rf.GatewayRefundID,
	}
	c.Metadata = map[string]string{RefundMetaOrder: orderID, RefundMetaRefund: rf.ID, RefundMetaKey: c.Key}
	return c
}

// cardPendingRecheck is when a refund the provider answered pending is read
// again at the provider, if no event confirmed it meanwhile.
const cardPendingRecheck = 15 * time.Minute

// finishRefund makes a written refund's card part at its provider, if it
// is still pending, and marks the refund done, off the pending list, on
// condition it is still pending (the provider's event may confirm it at
// the same moment: once). A failed try is counted on the refund for the
// retry job (refund_retry.go); a refund the provider answered pending
// keeps its id and waits for the event or the job.
func (s *Store) finishRefund(ctx context.Context, o Order, rf Refund, refunder Refunder) (Refund, error) {
	if rf.Status != RefundCardPending {
		return s.numberCreditNote(ctx, o.ID, rf) // done: its credit note, if it has none yet
	}
	pk, sk := orderKey(o.ID), refundKey(rf.ID)
	pending := expression.Name("Status").Equal(expression.Value(string(RefundCardPending)))
	ans, err := refunder.RefundCard(ctx, cardRefundOf(o.ID, rf))
	switch {
	case errors.Is(err, ErrCardRefundFailed):
		return s.failCardRound(ctx, o.ID, rf, err)
	case err != nil:
		slog.Warn("refund recorded, its card part not made yet", "order", o.ID, "refund", rf.ID, "provider", ProviderOf(rf.Provider), "err", err)
		if ctx.Err() == nil { // a try our own caller stopped is not the bank's failure
			rf.CardTries = s.countCardTry(ctx, pk, sk, pending, rf.CardTries, err)
		}
		return rf, fmt.Errorf("%w: %w", ErrRefundCard, err)
	case ans.Pending:
		next := s.now().UTC().Truncate(time.Millisecond).Add(cardPendingRecheck)
		err := s.updateIf(ctx, pk, sk,
			expression.Set(expression.Name("GatewayRefundID"), expression.Value(ans.Ref)).
				Set(expression.Name("CardNextTryAt"), expression.Value(timestamp(next))),
			pending)
		if err != nil && !isConditionFailed(err) {
			return rf, fmt.Errorf("keep refund %s's card refund %s: %w", rf.ID, ans.Ref, err)
		}
		rf.GatewayRefundID, rf.CardTries.NextAt = ans.Ref, next
		return rf, nil
	}
	err = s.updateIf(ctx, pk, sk, markCardRefundDone(ans.Ref, o.ID, rf, s.now()), pending)
	if isConditionFailed(err) {
		now, err := s.OrderRefund(ctx, o.ID, rf.ID) // confirmed meanwhile (its event, the job): as it is
		if err != nil {
			return now, err
		}
		return s.numberCreditNote(ctx, o.ID, now)
	}
	if err != nil {
		return rf, fmt.Errorf("mark refund %s done: %w", rf.ID, err)
	}
	rf.Status, rf.GatewayRefundID = RefundDone, ans.Ref
	return s.numberCreditNote(ctx, o.ID, rf)
}

// markCardRefundDone is the update of an order's refund whose card part
// the provider confirmed: off the pending list, onto the list of credit
// notes due (a late payment's refund, which takes none, off both).
func markCardRefundDone(ref, orderID string, rf Refund, at time.Time) expression.UpdateBuilder {
	upd := expression.Set(expression.Name("Status"), expression.Value(string(RefundDone))).
		Set(expression.Name("GatewayRefundID"), expression.Value(ref)).
		Remove(expression.Name("CardNextTryAt"))
	if !takesCreditNote(rf) {
		return upd.Remove(expression.Name(attrAttnPK)).Remove(expression.Name(attrAttnSK))
	}
	pk, sk := creditNoteDueKeys(at, orderID, rf.ID)
	return upd.Set(expression.Name(attrAttnPK), expression.Value(pk)).Set(expression.Name(attrAttnSK), expression.Value(sk))
}

// failCardRound records that the provider reported the refund's card part
// failed: its refund id is dropped, the next round's key is taken (the
// failed refund gave nothing back, so a new one cannot give twice), and the
// refund stays listed for staff ("needs a look"), who retry it or pay the
// customer another way. On condition the round is still the one read.
func (s *Store) failCardRound(ctx context.Context, orderID string, rf Refund, cause error) (Refund, error) {
	upd, cond := failedRoundUpdate(rf.cardRound, s.now())
	err := s.updateIf(ctx, orderKey(orderID), refundKey(rf.ID), upd, cond)
	if err != nil && !isConditionFailed(err) {
		return rf, fmt.Errorf("record the failed card refund of %s: %w", rf.ID, err)
	}
	now, rerr := s.OrderRefund(ctx, orderID, rf.ID)
	if rerr != nil {
		return rf, rerr
	}
	return now, fmt.Errorf("%w: %w", ErrRefundCard, cause)
}

// nextRound moves a card refund (an order's refund or a receipt's) to its
// next round, on condition its round is still round.
func nextRound(round int) (expression.UpdateBuilder, expression.ConditionBuilder) {
	upd := expression.Set(expression.Name("CardRound"), expression.Value(round+1))
	sameRound := expression.Name("CardRound").Equal(expression.Value(round))
	if round == 0 {
		sameRound = expression.AttributeNotExists(expression.Name("CardRound")).Or(sameRound)
	}
	return upd, sameRound
}

// failedRoundUpdate is nextRound for an order's refund, which stays listed
// needing staff (its tries at the most the job makes, the problem
// "refused"), its failed refund's id dropped.
func failedRoundUpdate(round int, at time.Time) (expression.UpdateBuilder, expression.ConditionBuilder) {
	upd, cond := nextRound(round)
	upd = upd.Set(expression.Name("CardTries"), expression.Value(MaxCardRefundTries)).
		Set(expression.Name("CardProblem"), expression.Value(string(CardRefundRefused))).
		Set(expression.Name("CardTriedAt"), expression.Value(timestamp(at.UTC().Truncate(time.Millisecond)))).
		Remove(expression.Name("CardNextTryAt")).Remove(expression.Name("GatewayRefundID"))
	return upd, cond.And(expression.Name("Status").Equal(expression.Value(string(RefundCardPending))))
}
