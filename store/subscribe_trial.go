package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"shop/store/rules"
)

// Free trials (issue #28). Staff give a subscribable product a trial of
// 0-90 days. Subscribing to it charges nothing (the card is saved in the
// provider's setup mode, as for free first days); the trial is [today,
// today+days) and the first charge is on its end, as if the customer
// subscribed that day (FirstPeriod from the trial's end: the share up to
// the payment date, or a whole period when the trial ends on one:
// rules.TrialFirstCharge, rules/trial.go, with MaxTrialDays). The
// subscription keeps TrialEnds; its payment due on that day is that share
// (Subscription.GrossFor, PeriodEnd), then whole periods on payment days.
// A customer takes a product's trial once: a marker under the customer,
// written on condition it does not exist in the pending subscribe's own
// transaction.

// TrialReminderDays is how long before a trial ends its reminder is mailed.
const TrialReminderDays = 3

// ErrTrialTaken: the customer has had this product's trial already (or
// another tab took it a moment ago); nothing was written.
var ErrTrialTaken = errors.New("you have had this product's free trial already")

// trialDays is what a product's item keeps as its trial: none when it is
// not subscribable.
func trialDays(p Product) int {
	if !p.Subscribable {
		return 0
	}
	return p.TrialDays
}

// TrialFirstCharge is what a subscription with a trial of `days` days
// taken out today pays first (rules.TrialFirstCharge).
func TrialFirstCharge(today time.Time, days, day, months int, price Money) rules.TrialPlan {
	return rules.TrialFirstCharge(today, days, day, months, price)
}

// trialShare is the first charge after the trial when it is due on
// period and pays a share (FirstPeriod from TrialEnds); false for any
// other period, and when the trial ends on a payment date (a whole period,
// as usual).
func (s Subscription) trialShare(period time.Time) (rules.Proration, bool) {
	if s.TrialEnds.IsZero() || !period.Equal(s.TrialEnds) {
		return rules.Proration{}, false
	}
	p := rules.FirstPeriod(period, s.PaymentDay, s.PeriodMonths, s.periodGross(period))
	return p, !p.Full
}

// PeriodEnd is the payment date after the payment of `period`: the next
// payment day `months` on, or, for the share after a trial, the payment
// date that share runs up to.
func (s Subscription) PeriodEnd(period time.Time) time.Time {
	if p, ok := s.trialShare(period); ok {
		return p.Next
	}
	return rules.NextBillingDate(period, s.PeriodMonths, s.PaymentDay)
}

// InTrial reports whether today is within the subscription's free trial.
func (s Subscription) InTrial(today time.Time) bool {
	return !s.TrialEnds.IsZero() && today.Before(s.TrialEnds)
}

// OnTrial reports whether the subscription is in its free trial: active,
// and nothing charged since it ended (its first charge is still to come).
func (s Subscription) OnTrial() bool {
	return !s.TrialEnds.IsZero() && s.Status == SubscriptionActive && s.LastPaymentDate.Before(s.TrialEnds)
}

// TrialLastDay is the last free day of its trial.
func (s Subscription) TrialLastDay() time.Time { return s.TrialEnds.AddDate(0, 0, -1) }

// replanTrial moves the first payment of a subscription still in its
// trial to where its (changed) day and period put it, so the trial's
// first charge is never a share below the smallest charge.
func (s Subscription) replanTrial(today time.Time) Subscription {
	if !s.InTrial(today) || s.Status != SubscriptionActive {
		return s
	}
	s.NextPaymentDate = rules.ChargeAfterTrial(s.TrialEnds, s.PaymentDay, s.PeriodMonths, s.periodGross(s.TrialEnds)).From
	return s
}

// trialRecord marks that a customer took a product's trial, with the
// subscription that took it.
type trialRecord struct {
	PK             string `dynamodbav:"PK"`
	SK             string `dynamodbav:"SK"`
	EntityType     string `dynamodbav:"EntityType"`
	SubscriptionID string `dynamodbav:"SubscriptionID"`
	TakenAt        string `dynamodbav:"TakenAt"`
}

// takeTrial adds to b the marker of p's trial, on condition the customer
// has none for the product (the role "trial" when it fails).
func takeTrial(b *txItems, p PendingSubscribe) error {
	cond := expression.AttributeNotExists(expression.Name(attrPK))
	return b.put(trialRecord{PK: customerKey(p.CustomerID), SK: trialTakenKey(p.ProductID), EntityType: entityTrialTaken,
		SubscriptionID: p.SubscriptionID, TakenAt: timestamp(p.At)}, &cond, itemRole{kind: "trial"})
}

// giveTrialBack adds to b the removal of the trial marker a subscribe that
// never started wrote (on condition it is that subscribe's): the customer
// may take the trial again.
func giveTrialBack(b *txItems, p PendingSubscribe) error {
	del, err := b.s.txDelete(customerKey(p.CustomerID), trialTakenKey(p.ProductID),
		expression.Name("SubscriptionID").Equal(expression.Value(p.SubscriptionID)))
	if err != nil {
		return err
	}
	b.add(del, itemRole{kind: "trial"})
	return nil
}

// TrialTaken reports whether the customer has taken the product's free
// trial (one GetItem of the marker).
func (s *Store) TrialTaken(ctx context.Context, customerID, productID string) (bool, error) {
	if !ValidID(customerID) || !ValidID(productID) {
		return false, nil
	}
	_, err := getItem(ctx, s, customerKey(customerID), trialTakenKey(productID), "trial of "+productID, asRecord[trialRecord])
	switch {
	case errors.Is(err, ErrNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("trial taken: %w", err)
	}
	return true, nil
}

// TrialQuote is a trial as the subscribe form and the confirmation say it.
type TrialQuote struct {
	Ends time.Time // the first day not free
	// First is the first charge, on First.From for First.From-First.To:
	// its Charge is what is taken then (less a code, as the payments job
	// takes it off), Full when it is a whole period.
	First rules.Proration
}

// quoteTrial is a subscribe to a product with a trial of `days` days:
// nothing today; the first charge after the trial, with the code's
// discount as the payments job takes it (the code's payments count from
// that charge, none is used by the trial); then whole periods.
func quoteTrial(today time.Time, sub Subscription, days int, coupon *Coupon) SubscribeQuote {
	ends := today.AddDate(0, 0, days)
	t := TrialFirstCharge(today, days, sub.PaymentDay, sub.PeriodMonths, sub.periodGross(ends))
	sub.TrialEnds, sub.Coupon = t.Ends, coupon
	first := t.First
	first.Discount, first.Charge = sub.DiscountFor(first.From), sub.AmountFor(first.From)
	after := sub
	if coupon.Covers() {
		after.Coupon = coupon.Used()
	}
	first.Shipping = sub.ShippingFor(first.From)
	return SubscribeQuote{First: t.FreePeriod(today, sub.PeriodMonths, sub.MonthlyPrice.Currency), Then: after.AmountFor(first.Next),
		Shipping: sub.Shipping, NewPrice: sub.NewPrice, NewPriceFrom: sub.NewPriceFrom, Coupon: coupon, Trial: &TrialQuote{Ends: t.Ends, First: first}}
}
