package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store/rules"
)

// A swap of product or quantity "now": the unused days of the period paid
// are credited against the new line's price for the same days
// (QuoteSwapNow), the difference charged to the kept card or refunded at
// once. The period paid and what was paid are read from the period's
// receipt, never from the subscription: free first days, a skip, a pause
// or a new payment day leave the subscription's dates saying nothing sure
// about what today's days cost.

// ReceiptChange is the receipt of a swap now's charge: the rest of the
// period at the new line, [day after the swap, period end).
const ReceiptChange ReceiptKind = "change"

// Refusals of a swap now, at the form's "when" field: only from the next
// payment can be chosen.
var (
	// ErrNoPaidPeriod: no card payment covers today (free first days, a
	// skipped or paused period): nothing to credit, so only a swap from the
	// next payment.
	ErrNoPaidPeriod error = &Refusal{Kind: Conflict, Message: "subs.error.swap_now_unpaid", Field: "when",
		Words: "no card payment covers today (free days, or a skipped or paused period): choose “from the next payment”"}
	// ErrChangedNowAlready: this period's payment was changed now, or
	// partly given back, already.
	ErrChangedNowAlready error = &Refusal{Kind: Conflict, Message: "subs.error.swap_now_again", Field: "when",
		Words: "this period's payment was changed already: choose “from the next payment”"}
	// ErrPeriodEndsToday: the period paid ends today; from the next
	// payment is the same thing.
	ErrPeriodEndsToday error = &Refusal{Kind: Conflict, Message: "subs.error.swap_now_last_day", Field: "when",
		Words: "today is the last day of the period paid: choose “from the next payment”"}
)

// SwapNowPlan is a swap now as quoted from the subscription read (at
// Current.Version) and the receipt of the period covering today.
type SwapNowPlan struct {
	Current, Next Subscription
	Receipt       Receipt
	Quote         SwapQuote
}

// Key names the change: the subscription, the version it was planned on
// and the choice. A double submit of one tab has the same key, so the
// provider takes its charge once.
func (p SwapNowPlan) Key() string {
	return fmt.Sprintf("swapnow-%s-v%d-%s-%d", p.Current.ID, p.Current.Version, p.Next.ProductID, p.Next.Units())
}

// longestPeriod bounds how far back a period covering today can start.
const longestPeriod = 6

// paidReceiptCovering is the receipt of the card payment covering day:
// the newest of sub's period markers up to the day after (a swap now's
// receipt starts then), then its receipt; both read consistent (a Query
// each). ErrNoPaidPeriod when no charged receipt covers day;
// ErrChangedNowAlready when a swap now (or a refund) touched it.
func (s *Store) paidReceiptCovering(ctx context.Context, sub Subscription, day time.Time) (Receipt, error) {
	q := querySpec{key: onTable.pkAndSKBetween(accountKey(sub.AccountID), periodKey(sub.ID, day.AddDate(0, -longestPeriod-1, 0)),
		periodKey(sub.ID, day.AddDate(0, 0, 1))), backward: true, consistent: true}
	marks, err := pagedQuery(ctx, s, q, 1, "", asRecord[periodRecord])
	if err != nil {
		return Receipt{}, err
	}
	if len(marks.Items) == 0 {
		return Receipt{}, ErrNoPaidPeriod
	}
	r, err := s.receiptConsistent(ctx, sub.AccountID, marks.Items[0].ReceiptNumber)
	switch {
	case errors.Is(err, ErrNotFound):
		return Receipt{}, ErrNoPaidPeriod // expired: older than six months
	case err != nil:
		return Receipt{}, err
	case r.Kind == ReceiptChange, r.Refund != nil:
		return r, ErrChangedNowAlready
	case r.Kind == ReceiptFreeDays, r.Amount.Amount <= 0, r.PeriodStart.After(day), !r.PeriodEnd.After(day):
		return r, ErrNoPaidPeriod
	}
	return r, nil
}

// QuoteSwapNowFor quotes swapping cur to next (SwapProduct's result)
// today, from the receipt covering today; the new line's days with the
// code that discounted that receipt, if one did (periodNetAt).
func (s *Store) QuoteSwapNowFor(ctx context.Context, cur, next Subscription) (SwapNowPlan, error) {
	today := rules.DateOf(s.now(), s.loc)
	r, err := s.paidReceiptCovering(ctx, cur, today)
	if err != nil {
		return SwapNowPlan{}, err
	}
	price, err := s.periodNetAt(ctx, r, cur, next)
	if err != nil {
		return SwapNowPlan{}, err
	}
	q := QuoteSwapNow(r.Amount, price, r.PeriodStart, r.PeriodEnd, today)
	if q.UnusedDays == 0 {
		return SwapNowPlan{}, ErrPeriodEndsToday
	}
	return SwapNowPlan{Current: cur, Next: next, Receipt: r, Quote: q}, nil
}

// periodPriceAt is what r's days cost at next's line: quantity × monthly
// price × the period's months for a whole period; for a new subscriber's
// first days, that period price's share of those days (FirstPeriod's rule).
func periodPriceAt(r Receipt, cur, next Subscription) Money {
	if !r.FirstDays() {
		months := (r.PeriodEnd.Year()-r.PeriodStart.Year())*12 + int(r.PeriodEnd.Month()-r.PeriodStart.Month())
		return Money{Amount: next.MonthlyPrice.Amount * int64(next.Units()*max(months, 1)), Currency: next.MonthlyPrice.Currency}
	}
	months := max(cur.PeriodMonths, 1)
	whole := Money{Amount: next.MonthlyPrice.Amount * int64(next.Units()*months), Currency: next.MonthlyPrice.Currency}
	prev := rules.BillingDate(r.PeriodEnd.Year(), r.PeriodEnd.Month()-time.Month(months), cur.PaymentDay)
	return rules.DayShare(whole, rules.DaysBetween(r.PeriodStart, r.PeriodEnd), rules.DaysBetween(prev, r.PeriodEnd))
}

// PlanSwapNow reads the subscription strongly consistent and quotes the
// swap to quantity × p now: a version other than the page's is a
// StaleError before anything is charged; a swap SwapProduct refuses, or a
// period that cannot be credited, is its error.
func (s *Store) PlanSwapNow(ctx context.Context, customerID, id string, version int, p Product, quantity int, change *PriceChange) (SwapNowPlan, error) {
	cur, err := s.subscription(ctx, customerID, id, true)
	if err != nil {
		return SwapNowPlan{}, err
	}
	if cur.Version != version {
		return SwapNowPlan{Current: cur}, &StaleError{Current: cur}
	}
	next, err := SwapProduct(p, quantity, change)(cur, rules.DateOf(s.now(), s.loc), s.reminderLead)
	if err != nil {
		return SwapNowPlan{Current: cur}, err
	}
	plan, err := s.QuoteSwapNowFor(ctx, cur, next)
	if err != nil {
		plan.Current = cur
	}
	return plan, err
}

// swapWrites are the items that write next over cur (on condition of
// cur's version, the first item): in place, or moved under the new
// product's key.
func (s *Store) swapWrites(ctx context.Context, cur, next Subscription) ([]types.TransactWriteItem, Subscription, error) {
	if next.ProductID == cur.ProductID {
		return s.subscriptionPut(ctx, next)
	}
	return s.moveWrites(ctx, cur, next)
}

// staleNow is the StaleError of a subscription that moved since plan.
func (s *Store) staleNow(ctx context.Context, cur Subscription) error {
	now, err := s.subscription(ctx, cur.AccountID, cur.ID, true)
	if err != nil {
		return fmt.Errorf("subscription %s: %w", cur.ID, ErrConflict)
	}
	return &StaleError{Current: now}
}

// SwapNowFree writes a swap now that moves no money (nothing left to
// credit, or a difference below the smallest charge): the swap alone, on
// condition of the version planned.
func (s *Store) SwapNowFree(ctx context.Context, plan SwapNowPlan) (Subscription, error) {
	saved, err := s.saveChange(ctx, plan.Current, plan.Next)
	if errors.Is(err, ErrConflict) {
		return plan.Current, s.staleNow(ctx, plan.Current)
	}
	return saved, err
}

// SwappedNow is what a swap now wrote: the subscription, and the receipt
// with the money (the period's receipt with its refund, or the change's
// receipt of its charge); nil when no money moved.
type SwappedNow struct {
	Subscription Subscription
	Receipt      *Receipt
}

// SwapNowRefunding writes a swap now whose new share is below the credit:
// one transaction writes the swap (on condition of the version planned)
// and reserves the refund of the difference on the period's receipt (on
// condition it has none), keyed by the change; then the provider is asked,
// as cancelling now does (finishReceiptRefund). A refund the provider did
// not confirm stays pending on the receipt for the retry job.
func (s *Store) SwapNowRefunding(ctx context.Context, plan SwapNowPlan, refunder Refunder, mail func(Receipt) *Mail) (SwappedNow, error) {
	q := plan.Quote
	if q.Refund.Amount <= 0 {
		return SwappedNow{}, errors.New("swap now: no refund quoted")
	}
	req := RefundRequest{CustomerID: plan.Current.AccountID, Number: plan.Receipt.Number, Amount: q.Refund, By: "change", Key: plan.Key(),
		Reason: fmt.Sprintf("Change to %s on %s: %d unused days of %d credited", plan.Next.LineName(), FormatDate(q.From.AddDate(0, 0, -1)), q.UnusedDays, q.Days)}
	items, saved, err := s.swapWrites(ctx, plan.Current, plan.Next)
	if err != nil {
		return SwappedNow{}, err
	}
	reserveAt := len(items)
	reserve, err := s.receiptRefundReservation(plan.Receipt, req)
	if err != nil {
		return SwappedNow{}, err
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: append(items, reserve)})
	reasons := cancellationReasons(err)
	switch {
	case err == nil:
	case len(reasons) > reserveAt && reasons[reserveAt] == reasonConditionFailed && reasons[0] != reasonConditionFailed:
		return SwappedNow{Subscription: plan.Current}, ErrChangedNowAlready // staff refunded the receipt meanwhile
	case len(reasons) > 0:
		return SwappedNow{Subscription: plan.Current}, s.staleNow(ctx, plan.Current)
	default:
		return SwappedNow{}, fmt.Errorf("swap subscription %s now: %w", plan.Current.ID, err)
	}
	r := plan.Receipt
	r.Refund = req.pending(s.now())
	done, err := s.finishReceiptRefund(ctx, r, refunder, mail)
	if err != nil {
		// Swapped all the same; the refund waits on the receipt, pending.
		slog.ErrorContext(ctx, "refund of a swap now", "subscription", plan.Current.ID, "receipt", r.Number, "err", err)
	}
	return SwappedNow{Subscription: saved, Receipt: &done}, nil
}
