package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// RefundEvent is a provider's signed report of one of its refunds
// (charge.refunded, refund.updated), as the webhook read it.
type RefundEvent struct {
	Provider string // the provider that sent it: "test", "stripe"
	EventID  string // applied once per provider and id
	// RefundRef is the provider's refund; PaymentRef the payment it gives
	// back on. Stripe's charge.refunded carries no refund since API
	// version 2022-11-15: it confirms nothing (refund.updated does).
	RefundRef  string
	PaymentRef string
	// Status is the refund's: succeeded, pending, failed, canceled,
	// requires_action (Stripe's names).
	Status string
	// Metadata is what the shop gave the refund (RefundMeta* keys): which
	// of its refunds it is, and the key of the round it was made in.
	Metadata map[string]string
	// ReceiptMail is the customer's mail of a receipt's refund the event
	// completes (nil: none).
	ReceiptMail func(Receipt) *Mail
}

// RefundEventOutcome is what applying a refund event did.
type RefundEventOutcome string

const (
	// RefundEventConfirmed: the refund is done, off the card refunds list.
	RefundEventConfirmed RefundEventOutcome = "confirmed"
	// RefundEventFailed: the provider could not give the money back. An
	// order's refund stays listed for staff (its next try a new refund
	// under the next round's key); a receipt's is let go.
	RefundEventFailed RefundEventOutcome = "failed"
	// RefundEventDuplicate: applied before, or the refund was confirmed
	// already (by the request or the card refunds job).
	RefundEventDuplicate RefundEventOutcome = "duplicate"
	// RefundEventIgnored: it names no refund of the shop's waiting on it
	// (another provider's, an earlier round's, no metadata), or says the
	// refund is still pending.
	RefundEventIgnored RefundEventOutcome = "ignored"
)

// Provider refund statuses (as Stripe names them) the shop acts on.
const (
	providerRefundSucceeded = "succeeded"
	providerRefundFailed    = "failed"
	providerRefundCanceled  = "canceled"
)

// Outcomes of a refund event's item (payment_event.go).
const (
	eventRefundConfirmed eventOutcome = "refund-confirmed"
	eventRefundFailed    eventOutcome = "refund-failed"
)

// ApplyRefundEvent confirms, or records the failure of, the shop's refund
// a provider's refund event names (by the metadata the shop gave it), in
// one transaction with the event's item: an event is applied once, and a
// refund the request or the card refunds job confirmed first is not
// confirmed again (every write is on condition the refund still waits, in
// the round the event's refund was made in). A receipt's refund completes
// with today's totals and its mail, as the request would have.
//
// Cost: a consistent GetItem (an order's refund) or Query (a receipt), and
// one TransactWriteItems of 2 items (a receipt's: up to 4).
func (s *Store) ApplyRefundEvent(ctx context.Context, ev RefundEvent) (RefundEventOutcome, error) {
	if ev.Provider == "" || !ValidID(ev.Provider) || !validEventID(ev.EventID) {
		return "", fmt.Errorf("refund event %q of %q: %w", ev.EventID, ev.Provider, errBadPayment)
	}
	var outcome eventOutcome
	switch ev.Status {
	case providerRefundSucceeded:
		outcome = eventRefundConfirmed
	case providerRefundFailed, providerRefundCanceled:
		outcome = eventRefundFailed
	default:
		return RefundEventIgnored, nil // still on its way: nothing changes
	}
	if _, err := s.paymentEventApplied(ctx, ev.Provider, ev.EventID); err == nil {
		return RefundEventDuplicate, nil
	} else if !errors.Is(err, ErrNotFound) {
		return "", err
	}
	m := ev.Metadata
	switch {
	case m[RefundMetaOrder] != "" && m[RefundMetaRefund] != "":
		return s.applyOrderRefundEvent(ctx, ev, outcome)
	case m[RefundMetaCustomer] != "" && m[RefundMetaReceipt] != "":
		return s.applyReceiptRefundEvent(ctx, ev, outcome)
	}
	return RefundEventIgnored, nil
}

// paymentEventApplied reads the item of a provider's event applied before
// (its outcome); ErrNotFound for one not applied.
func (s *Store) paymentEventApplied(ctx context.Context, provider, eventID string) (string, error) {
	key := paymentEventKey(provider, eventID)
	return getItemConsistent(ctx, s, key, key, "payment event "+eventID, func(r paymentEventRecord) string { return r.Outcome })
}

// waitsOn says whether a refund waiting in the round whose key is key,
// through provider on payment, with the provider's refund ref ("" before
// one was kept), is the one ev reports.
func (ev RefundEvent) waitsOn(provider, payment, key, ref string) bool {
	switch {
	case ProviderOf(provider) != ProviderOf(ev.Provider):
		return false
	case ev.PaymentRef != "" && payment != "" && ev.PaymentRef != payment:
		return false
	case ev.Metadata[RefundMetaKey] != key:
		return false // an earlier round's refund (it failed), or not the shop's
	case ref != "" && ev.RefundRef != "" && ref != ev.RefundRef:
		return false
	}
	return true
}

func (s *Store) applyOrderRefundEvent(ctx context.Context, ev RefundEvent, outcome eventOutcome) (RefundEventOutcome, error) {
	orderID, key := ev.Metadata[RefundMetaOrder], ev.Metadata[RefundMetaRefund]
	rf, err := s.OrderRefund(ctx, orderID, key)
	if errors.Is(err, ErrNotFound) {
		return RefundEventIgnored, nil
	}
	if err != nil {
		return "", err
	}
	if rf.Status != RefundCardPending {
		// Done already: its credit note, if a stop before left it without.
		if _, err := s.numberCreditNote(ctx, orderID, rf); err != nil {
			return "", err
		}
		return RefundEventDuplicate, nil
	}
	if !ev.waitsOn(rf.Provider, rf.chargeID, cardRefundOf(orderID, rf).Key, rf.GatewayRefundID) {
		return RefundEventIgnored, nil
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	b := &txItems{s: s}
	upd, cond := failedRoundUpdate(rf.cardRound, now)
	if outcome == eventRefundConfirmed {
		ref := ev.RefundRef
		if ref == "" {
			ref = rf.GatewayRefundID
		}
		_, cond = nextRound(rf.cardRound)
		upd, cond = markCardRefundDone(ref, orderID, rf, now), cond.And(expression.Name("Status").Equal(expression.Value(string(RefundCardPending))))
	}
	if err := b.update(orderKey(orderID), refundKey(key), upd, cond, itemRole{}); err != nil {
		return "", err
	}
	if err := s.eventItem(b, ev.Provider, ev.EventID, orderID, outcome, now); err != nil {
		return "", err
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: b.tx})
	if reasons := cancellationReasons(err); reasons != nil {
		return RefundEventDuplicate, nil // confirmed (or failed) meanwhile, or this event applied by a twin
	}
	if err != nil {
		return "", fmt.Errorf("apply refund event %s to refund %s of order %s: %w", ev.EventID, key, orderID, err)
	}
	if outcome == eventRefundFailed {
		return RefundEventFailed, nil
	}
	rf.Status = RefundDone
	if _, err := s.numberCreditNote(ctx, orderID, rf); err != nil {
		return "", fmt.Errorf("refund %s of order %s confirmed: %w", key, orderID, err) // the event again numbers it
	}
	return RefundEventConfirmed, nil
}

func (s *Store) applyReceiptRefundEvent(ctx context.Context, ev RefundEvent, outcome eventOutcome) (RefundEventOutcome, error) {
	r, err := s.receiptConsistent(ctx, ev.Metadata[RefundMetaCustomer], ev.Metadata[RefundMetaReceipt])
	if errors.Is(err, ErrNotFound) {
		return RefundEventIgnored, nil
	}
	if err != nil {
		return "", err
	}
	switch {
	case r.Refund == nil:
		return RefundEventIgnored, nil
	case r.Refund.Status != ReceiptRefundPending:
		return RefundEventDuplicate, nil
	case !ev.waitsOn(r.Provider, r.ChargeID, cardRefundOfReceipt(r).Key, r.Refund.GatewayID):
		return RefundEventIgnored, nil
	}
	b := &txItems{s: s}
	if err := s.eventItem(b, ev.Provider, ev.EventID, "", outcome, s.now().UTC().Truncate(time.Millisecond)); err != nil {
		return "", err
	}
	if outcome == eventRefundFailed {
		if err := s.letReceiptRefundGo(ctx, r, b.tx); err != nil {
			if cancellationReasons(err) != nil {
				return RefundEventDuplicate, nil // this event applied by a twin
			}
			return "", err
		}
		return RefundEventFailed, nil
	}
	ref := ev.RefundRef
	if ref == "" {
		ref = r.Refund.GatewayID
	}
	done, err := s.completeReceiptRefund(ctx, r, ref, ev.ReceiptMail, b.tx)
	if err != nil {
		return "", err
	}
	if done.Refund == nil || done.Refund.RefundedAt.IsZero() || done.Refund.GatewayID != ref {
		return RefundEventDuplicate, nil
	}
	return RefundEventConfirmed, nil
}
