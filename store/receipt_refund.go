package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store/rules"
)

// Refunds of subscription receipts. A receipt is refunded at most once, in
// full or in part: the refund lives on the receipt item, reserved by a
// conditional write before the gateway is asked and completed after it,
// with its mail, in one transaction. The gateway's key is the receipt's, so
// however often a refund is tried it gives money back once.

// ReceiptRefundStatus is where a receipt's refund is.
type ReceiptRefundStatus string

const (
	// ReceiptRefundPending: reserved on the receipt, the gateway not yet confirmed.
	ReceiptRefundPending ReceiptRefundStatus = "pending"
	// ReceiptRefunded: the gateway gave the money back.
	ReceiptRefunded ReceiptRefundStatus = "refunded"
)

// ReceiptRefund is the one refund of a receipt.
type ReceiptRefund struct {
	Status      ReceiptRefundStatus
	Key         string // the idempotency key of the request that made it
	Amount      Money
	Reason      string
	By          string // a staff member's email, or "cancellation"
	RequestedAt time.Time
	RefundedAt  time.Time
	GatewayID   string // the gateway's id of the refund
	// CardTries are the failed tries while pending (refund_retry.go).
	CardTries CardRefundTries
	// With is another receipt's refund the same cancellation made, told of
	// in this refund's mail; MailedWith, on that other receipt, names the
	// receipt whose mail tells of it: its own refund sends none
	// (cancel_refund_swap.go).
	With       *RefundPart
	MailedWith string
	// CreditNote is its number in the books' credit notes
	// ("CN2026-000007"), given when the provider confirms it
	// (receipt_credit_note.go); "" before, and on one from before.
	CreditNote   string
	CreditNoteAt time.Time
}

// RefundPart is one receipt's part of a refund from two.
type RefundPart struct {
	Number string // the receipt's number in the books
	Amount Money
	Card   string // the card it goes back to, as Card.Label says
}

func (r receiptRecord) refund() *ReceiptRefund {
	if r.RefundStatus == "" {
		return nil
	}
	out := &ReceiptRefund{
		Status: ReceiptRefundStatus(r.RefundStatus), Key: r.RefundKey, Amount: Money{Amount: r.RefundAmount, Currency: r.Currency},
		Reason: r.RefundReason, By: r.RefundBy, RequestedAt: parseTime(r.RefundRequestedAt),
		RefundedAt: parseTime(r.RefundedAt), GatewayID: r.RefundID, CardTries: r.tries(), MailedWith: r.RefundMailedWith,
		CreditNote: r.RefundCreditNote, CreditNoteAt: parseTime(r.RefundCreditNoteAt),
	}
	if r.RefundWithNumber != "" {
		out.With = &RefundPart{Number: r.RefundWithNumber, Amount: Money{Amount: r.RefundWithAmount, Currency: r.Currency}, Card: r.RefundWithCard}
	}
	return out
}

// Refunded is what was given back of the receipt (a pending refund
// not yet), earlier refunds a top-up followed included.
func (r Receipt) Refunded() Money {
	back := Money{Amount: r.RefundedBefore.Amount, Currency: r.Amount.Currency}
	if r.Refund != nil && r.Refund.Status == ReceiptRefunded {
		back.Amount += r.Refund.Amount.Amount
	}
	return back
}

// ErrRefundRefused wraps a gateway's final no: the reservation is let go.
// ErrRefundExceedsCharge, ErrBadRefund and a charge the gateway does not
// know (ErrNotFound) are final too.
var ErrRefundRefused = errors.New("the payment gateway refused the refund")

// refusedForGood tells a gateway's final no from a refund whose outcome is
// unknown (a timeout), which stays pending to be finished with its key.
func refusedForGood(err error) bool {
	return errors.Is(err, ErrRefundRefused) || errors.Is(err, ErrRefundExceedsCharge) || errors.Is(err, ErrBadRefund) || errors.Is(err, ErrNotFound)
}

// Errors of a refund request staff can understand.
var (
	ErrAlreadyRefunded     = errors.New("this receipt has been refunded already; a receipt is refunded once")
	ErrRefundUnderWay      = errors.New("a refund of this receipt is under way; reload the page in a minute")
	ErrRefundAmount        = errors.New("the refund must be more than 0.00 and at most the amount paid")
	ErrReceiptRefundReason = errors.New("say why the money goes back, in at most 500 characters")
)

// refundResumeAfter is how long a pending refund belongs to the request that
// made it; after that (its request crashed or gave up) any request may
// finish it, with its amount and the receipt's gateway key.
const refundResumeAfter = 2 * time.Minute

// RefundRequest is staff's (or a cancellation's) refund of one receipt.
type RefundRequest struct {
	CustomerID string
	Number     string // the receipt's
	Amount     Money
	Reason     string
	By         string
	Key        string // idempotency key: the same request twice refunds once
	// Finish takes over a pending refund whatever its key (staff's "finish
	// the refund" button); the pending one's amount and reason stand.
	Finish bool
	// With and MailedWith join a cancellation's refunds of two receipts
	// in one mail (ReceiptRefund's).
	With       *RefundPart
	MailedWith string
}

// pending is req as its receipt's pending refund, reserved now.
func (req RefundRequest) pending(now time.Time) *ReceiptRefund {
	return &ReceiptRefund{Status: ReceiptRefundPending, Key: req.Key, Amount: req.Amount, Reason: req.Reason, By: req.By, RequestedAt: now,
		With: req.With, MailedWith: req.MailedWith}
}

// withParts adds req's parts (With, MailedWith) to a reservation's update.
func (req RefundRequest) withParts(upd expression.UpdateBuilder) expression.UpdateBuilder {
	if w := req.With; w != nil {
		upd = upd.Set(expression.Name("RefundWithNumber"), expression.Value(w.Number)).
			Set(expression.Name("RefundWithAmount"), expression.Value(w.Amount.Amount)).
			Set(expression.Name("RefundWithCard"), expression.Value(w.Card))
	}
	if req.MailedWith != "" {
		upd = upd.Set(expression.Name("RefundMailedWith"), expression.Value(req.MailedWith))
	}
	return upd
}

// refundPartAttrs are the attributes of a refund's parts, removed with it.
var refundPartAttrs = []string{"RefundWithNumber", "RefundWithAmount", "RefundWithCard", "RefundMailedWith"}

// refundKey is the gateway's idempotency key of a receipt's refund: one
// per receipt, so no two requests can both give money back.
func receiptRefundKey(number string) string { return "subrefund-" + number }

// receiptConsistent reads a receipt strongly consistent, for a write.
func (s *Store) receiptConsistent(ctx context.Context, customerID, number string) (Receipt, error) {
	at, ok := receiptTimeOf(number)
	if !ok || !ValidID(customerID) {
		return Receipt{}, fmt.Errorf("receipt %q: %w", number, ErrNotFound)
	}
	mine := expression.Name("Number").Equal(expression.Value(number))
	q := querySpec{key: onTable.pkAndSKPrefix(accountKey(customerID), receiptAtPrefix(at)), filter: &mine, consistent: true}
	return queryOne(ctx, s, q, "receipt "+number, receiptRecord.receipt)
}

// RefundReceipt gives back req.Amount of a receipt's charge, once: the
// refund is reserved on the receipt (on condition it has none), the gateway
// asked with the receipt's key, and the refund completed with its mail in
// one transaction. The same key again returns the receipt as refunded;
// another key gets ErrAlreadyRefunded, or ErrRefundUnderWay while the first
// is between its reservation and the gateway's answer.
func (s *Store) RefundReceipt(ctx context.Context, req RefundRequest, refunder Refunder, mail func(Receipt) *Mail) (Receipt, error) {
	req.Reason = strings.TrimSpace(req.Reason)
	if req.Reason == "" || len([]rune(req.Reason)) > 500 {
		return Receipt{}, ErrReceiptRefundReason
	}
	if !ValidID(req.Key) || len(req.Key) > 64 {
		return Receipt{}, errors.New("refund: a request key is needed")
	}
	for range 3 {
		r, err := s.receiptConsistent(ctx, req.CustomerID, req.Number)
		if err != nil {
			return Receipt{}, err
		}
		if r.Refund == nil {
			if req.Amount.Currency != r.Amount.Currency || req.Amount.Amount <= 0 || req.Amount.Amount > r.Amount.Amount-r.RefundedBefore.Amount {
				return r, ErrRefundAmount
			}
			err := s.reserveReceiptRefund(ctx, r, req)
			if errors.Is(err, ErrConflict) {
				continue // another request reserved it first: read what it did
			}
			if err != nil {
				return r, err
			}
			r.Refund = req.pending(s.now())
			return s.finishReceiptRefund(ctx, r, refunder, mail)
		}
		mine := r.Refund.Key == req.Key
		switch {
		case r.Refund.Status == ReceiptRefunded && mine:
			return r, nil
		case r.Refund.Status == ReceiptRefunded:
			return r, ErrAlreadyRefunded
		case mine || req.Finish || s.now().Sub(r.Refund.RequestedAt) > refundResumeAfter:
			return s.finishReceiptRefund(ctx, r, refunder, mail)
		}
		return r, ErrRefundUnderWay
	}
	return Receipt{}, fmt.Errorf("receipt %s kept changing: %w", req.Number, ErrConflict)
}

// receiptRefundReservation is the update that reserves a refund on a receipt.
func (s *Store) receiptRefundReservation(r Receipt, req RefundRequest) (types.TransactWriteItem, error) {
	now := s.now()
	listPK, listSK := pendingRefundKeys(now, receiptRefundListID(r))
	upd := expression.Set(expression.Name("RefundStatus"), expression.Value(string(ReceiptRefundPending))).
		Set(expression.Name(attrAttnPK), expression.Value(listPK)).
		Set(expression.Name(attrAttnSK), expression.Value(listSK)).
		Set(expression.Name("RefundKey"), expression.Value(req.Key)).
		Set(expression.Name("RefundAmount"), expression.Value(req.Amount.Amount)).
		Set(expression.Name("RefundReason"), expression.Value(req.Reason)).
		Set(expression.Name("RefundBy"), expression.Value(req.By)).
		Set(expression.Name("RefundRequestedAt"), expression.Value(timestamp(now)))
	upd = req.withParts(upd)
	cond := expression.AttributeExists(expression.Name(attrPK)).And(expression.AttributeNotExists(expression.Name("RefundStatus")))
	return s.txUpdate(accountKey(r.AccountID), receiptSortKey(r.ProcessedAt, r.ProductID), upd, cond)
}

// reserveReceiptRefund writes the reservation alone; ErrConflict if the receipt
// has a refund already.
func (s *Store) reserveReceiptRefund(ctx context.Context, r Receipt, req RefundRequest) error {
	w, err := s.receiptRefundReservation(r, req)
	if err != nil {
		return err
	}
	u := w.Update
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: u.TableName, Key: u.Key, UpdateExpression: u.UpdateExpression, ConditionExpression: u.ConditionExpression,
		ExpressionAttributeNames: u.ExpressionAttributeNames, ExpressionAttributeValues: u.ExpressionAttributeValues,
	})
	if isConditionFailed(err) {
		return fmt.Errorf("receipt %s: %w", r.Number, ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("reserve refund of %s: %w", r.Number, err)
	}
	return nil
}

// receiptRefundListID is a receipt's id in the pending card refunds' list.
func receiptRefundListID(r Receipt) string { return accountKey(r.AccountID) + "#" + r.Number }

// RetryReceiptRefund tries again a receipt's pending refund, under the
// receipt's gateway key (a retry never refunds twice), whoever's request
// reserved it: the retry job. The refund's mail goes with its completion,
// as in RefundReceipt. A receipt with no pending refund is returned as it
// is.
func (s *Store) RetryReceiptRefund(ctx context.Context, customerID, number string, refunder Refunder, mail func(Receipt) *Mail) (Receipt, error) {
	r, err := s.receiptConsistent(ctx, customerID, number)
	if err != nil {
		return Receipt{}, err
	}
	if r.Refund == nil || r.Refund.Status != ReceiptRefundPending {
		return r, nil
	}
	return s.finishReceiptRefund(ctx, r, refunder, mail)
}

// CurrentReceipt is the receipt of the period a subscription paid last: its
// period marker names it (a GetItem), then the receipt (a Query).
func (s *Store) CurrentReceipt(ctx context.Context, sub Subscription) (Receipt, error) {
	if sub.LastPaymentDate.IsZero() {
		return Receipt{}, fmt.Errorf("subscription %s has paid no period: %w", sub.ID, ErrNotFound)
	}
	p, err := getItemConsistent(ctx, s, accountKey(sub.AccountID), periodKey(sub.ID, sub.LastPaymentDate), "paid period", asRecord[periodRecord])
	if err != nil {
		return Receipt{}, err
	}
	return s.receiptConsistent(ctx, sub.AccountID, p.ReceiptNumber)
}

// CancelledNow is what cancelling now did: the subscription as written and,
// when the settings give the unused days back, the receipt with its refund
// (pending if the gateway did not answer; it is finished from the receipt).
type CancelledNow struct {
	Subscription Subscription
	Receipt      *Receipt
	UnusedDays   int
	PeriodDays   int
	// Refunded is all the cancellation gives back (after a swap now, on
	// two receipts); Pending when the gateway confirmed not all of it.
	Refunded Money
	Pending  bool
}

// CancelSubscriptionNow cancels a subscription today, on condition of the
// version the customer's page showed. When staff allow it (settings), the
// unused days of the period paid last are refunded pro rata
// (UnusedShare): the refund is reserved on that receipt in the same
// transaction as the cancellation, so a cancellation never loses its
// refund, then the gateway is asked. After a swap now with a charge the
// unused days are given back at the new line, from the change's receipt
// and the period's (cancelRefunds). A receipt refunded already (staff did)
// gives nothing more back.
func (s *Store) CancelSubscriptionNow(ctx context.Context, customerID, id string, version int, refunder Refunder, mail func(Receipt) *Mail) (CancelledNow, error) {
	settings, err := s.SubscriptionSettings(ctx)
	if err != nil {
		return CancelledNow{}, err
	}
	cur, err := s.subscription(ctx, customerID, id, true)
	if err != nil {
		return CancelledNow{}, err
	}
	if cur.Version != version {
		return CancelledNow{Subscription: cur}, &StaleError{Current: cur}
	}
	today := rules.DateOf(s.now(), s.loc)
	next, err := CancelNow()(cur, today, s.reminderLead)
	if err != nil {
		return CancelledNow{Subscription: cur}, err
	}
	var refunds []cancelRefund
	var out CancelledNow
	if settings.RefundUnusedOnCancel && cur.Status != SubscriptionPastDue && !cur.LastPaymentDate.IsZero() {
		if refunds, out.UnusedDays, out.PeriodDays, err = s.cancelRefunds(ctx, cur, today); err != nil {
			return CancelledNow{Subscription: cur}, err
		}
	}
	put, saved, err := s.subscriptionPut(ctx, next)
	if err != nil {
		return CancelledNow{Subscription: cur}, err
	}
	items, reserveAt := put, len(put) // put: the subscription, then its totals
	for _, r := range refunds {
		reserve, err := s.receiptRefundReservation(r.receipt, r.req)
		if r.topUp {
			reserve, err = s.receiptRefundTopUp(r.receipt, r.req)
		}
		if err != nil {
			return CancelledNow{Subscription: cur}, err
		}
		items = append(items, reserve)
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	reasons := cancellationReasons(err)
	switch {
	case err == nil:
	case len(reasons) > reserveAt && slices.Contains(reasons[reserveAt:], reasonConditionFailed) && reasons[0] != reasonConditionFailed:
		// Staff refunded a receipt meanwhile: cancel without another refund.
		return s.cancelSubscriptionNowWithoutRefund(ctx, customerID, id, version)
	case len(reasons) > 0:
		if now, rerr := s.subscription(ctx, customerID, id, true); rerr == nil {
			return CancelledNow{Subscription: now}, &StaleError{Current: now}
		}
		return CancelledNow{Subscription: cur}, fmt.Errorf("cancel subscription %s: %w", id, ErrConflict)
	default:
		return CancelledNow{Subscription: cur}, fmt.Errorf("cancel subscription %s: %w", id, err)
	}
	out.Subscription = saved
	for _, r := range refunds {
		receipt, refund := r.receipt, r.req
		if r.topUp {
			receipt = receipt.toppedUp()
		}
		receipt.Refund = refund.pending(s.now())
		done, err := s.finishReceiptRefund(ctx, receipt, refunder, mail)
		if err != nil {
			// Cancelled all the same; the refund waits on the receipt for staff.
			slog.ErrorContext(ctx, "refund of a cancellation", "subscription", id, "receipt", receipt.Number, "err", err)
		}
		out.Receipt = &done
		out.Refunded = Money{Amount: out.Refunded.Amount + refund.Amount.Amount, Currency: refund.Amount.Currency}
		out.Pending = out.Pending || done.Refund == nil || done.Refund.Status != ReceiptRefunded
	}
	return out, nil
}

// cancelSubscriptionNowWithoutRefund cancels today and gives nothing back.
func (s *Store) cancelSubscriptionNowWithoutRefund(ctx context.Context, customerID, id string, version int) (CancelledNow, error) {
	sub, err := s.ChangeSubscription(ctx, customerID, id, version, CancelNow())
	return CancelledNow{Subscription: sub}, err
}
