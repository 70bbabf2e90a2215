package store

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"shop/store/rules"
)

// PaidStart is a pending subscribe's first payment as its provider
// reports it (an event, or the reconcile's read).
type PaidStart struct {
	Payment string // the provider's payment id; "" when nothing was charged (setup mode)
	Amount  Money
	Card    *Card  // the card the provider saved (a new card); nil: the subscribe's kept card
	EventID string // the event that reported it, if one did
	// Mail is the first receipt's mail, written with it (nil: none).
	Mail func(Receipt) *Mail
	// TrialMail is the mail of a trial's start (the trial's end, the first
	// charge's amount and day), written with its receipt instead of Mail
	// (nil: none; a trial's receipt charged nothing to say).
	TrialMail func(Subscription, Receipt) *Mail
}

// StartSubscription starts a pending subscribe its provider says was paid:
// one transaction writes the subscription, its first receipt (the
// provider's payment, the first period as quoted on the subscribe's day)
// and, when the product ships, the first period's order (awaiting stock if
// stock ran out meanwhile), moves the subscribe to started on condition
// it is still pending, and writes the event's item. An event twice, or the
// reconcile beside it, finds it settled: ErrSubscribeSettled, nothing
// written. A payment of another amount than quoted is errPaymentAmount.
func (s *Store) StartSubscription(ctx context.Context, p PendingSubscribe, paid PaidStart) (Subscription, Receipt, error) {
	if p.Status != SubscribePending {
		return Subscription{}, Receipt{}, ErrSubscribeSettled
	}
	if paid.Amount.Amount != p.Charge.Amount || (paid.Amount.Amount > 0 && paid.Amount.Currency != p.Charge.Currency) {
		return Subscription{}, Receipt{}, fmt.Errorf("subscribe %s paid %s, quoted %s: %w", p.Key, paid.Amount, p.Charge, errPaymentAmount)
	}
	card := p.Card
	if paid.Card != nil {
		card = *paid.Card
	}
	product := Product{ID: p.ProductID, Name: p.ProductName, Category: p.Category, MonthlyPrice: p.MonthlyPrice, Subscribable: true,
		TrialDays: p.TrialDays}
	var change *PriceChange
	if !p.NewPriceFrom.IsZero() {
		change = &PriceChange{New: p.NewPrice, EffectiveOn: p.NewPriceFrom}
	}
	q := QuoteSubscriptionShipped(p.Today, product, p.PaymentDay, p.PeriodMonths, change, p.Coupon, p.Shipping)
	first := q.First
	now := s.now().UTC().Truncate(time.Millisecond)
	sub := Subscription{
		ID: p.SubscriptionID, AccountID: p.CustomerID, ProductID: p.ProductID, ProductName: p.ProductName, Names: p.Names, Category: p.Category,
		Email: p.Email, Lang: p.Lang, MonthlyPrice: p.MonthlyPrice, PeriodMonths: p.PeriodMonths, PaymentDay: p.PaymentDay,
		Status: SubscriptionActive, Card: card, CreatedAt: now, Version: 1, LastPaymentDate: p.Today,
		NextPaymentDate: first.Next, NewPrice: p.NewPrice, NewPriceFrom: p.NewPriceFrom, Coupon: q.Coupon,
		Shipping: q.Shipping, ShipTo: p.ShipTo,
	}
	if p.NewPriceFrom.IsZero() {
		sub.NewPrice = Money{}
	}
	sub.NextReminderDate = rules.ReminderDate(sub.NextPaymentDate, rules.DateOf(now, s.loc), s.reminderLead)
	if q.Trial != nil {
		// Its reminder says the trial ends, a few days before it does.
		sub.TrialEnds = q.Trial.Ends
		sub.NextReminderDate = rules.ReminderDate(sub.TrialEnds, rules.DateOf(now, s.loc), TrialReminderDays)
	}
	receipt := NewReceipt(sub, GatewayCharge{Key: subscribeKey(p.CustomerID, p.Key), ID: paid.Payment, Amount: first.Charge, At: now,
		Provider: p.Provider}, p.Today, first.Next)
	receipt.withDiscount(p.Coupon, first.Discount)
	receipt.Shipping = first.Shipping
	switch {
	case first.Trial:
		receipt.Kind = ReceiptTrial
	case first.Free:
		receipt.Kind = ReceiptFreeDays
	case !first.Full:
		receipt.Kind = ReceiptFirstDays
	}
	so, ships, err := s.planSubscriptionOrder(ctx, sub, receipt, first.Units())
	if err != nil {
		return Subscription{}, Receipt{}, err
	}
	var order *subscriptionOrder
	if ships {
		order = &so
	}
	started := p
	started.Status = SubscribeStarted
	b := &txItems{s: s}
	if err := s.eventItem(b, ProviderOf(p.Provider), paid.EventID, p.SubscriptionID, eventStarted, now); err != nil {
		return Subscription{}, Receipt{}, err
	}
	pending := expression.Name("Status").Equal(expression.Value(string(SubscribePending)))
	err = s.writeSubscribe(ctx, &sub, &receipt, order, p.Today, now, started.record(), pending, b.tx, startMail(paid, sub, receipt.Kind))
	if err == nil {
		return sub, receipt, nil
	}
	if settled(cancellationReasons(err), subscribeKeyAt, subscribeKeyAt+2) {
		return Subscription{}, Receipt{}, ErrSubscribeSettled
	}
	return Subscription{}, Receipt{}, fmt.Errorf("start subscription %s: %w", p.SubscriptionID, err)
}

// settled says whether a settling transaction failed on one of the items
// at the given places (the subscribe's key, an event's item; a place below 0 is no item).
func settled(reasons []string, at ...int) bool {
	for _, i := range at {
		if i >= 0 && i < len(reasons) && reasons[i] == reasonConditionFailed {
			return true
		}
	}
	return false
}

// startMail is the mail a start writes with its first receipt: a trial's,
// or the receipt's.
func startMail(paid PaidStart, sub Subscription, kind ReceiptKind) func(Receipt) *Mail {
	switch {
	case kind != ReceiptTrial:
		return paid.Mail
	case paid.TrialMail == nil:
		return nil
	}
	return func(r Receipt) *Mail { return paid.TrialMail(sub, r) }
}
