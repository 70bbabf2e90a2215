package store

import (
	"time"

	"shop/store/rules"
)

// What subscribing comes to, before the customer confirms: the form's
// preview and the charge are made by the same quote.

// SubscribeQuote is what subscribing today comes to, before the customer
// confirms: the first period (FirstPeriod), then the first whole period's
// payment on its date, and an announced price the subscriber would pay
// from its day. Subscribe charges by the same quote, so the form's preview
// and the charge never differ.
type SubscribeQuote struct {
	First rules.Proration
	// Then is the payment on First.Next and, until NewPriceFrom, each
	// after it while Coupon covers them; ThenGross is that payment
	// without the code, what comes once a code of a few payments runs out.
	// Both carry Shipping, the delivery of each payment that sends a
	// parcel (First.Shipping: whether the first does).
	Then         Money
	ThenGross    Money
	Shipping     Money
	NewPrice     Money // the monthly price from NewPriceFrom, when one is scheduled
	NewPriceFrom time.Time
	// NewAmount is the first payment at NewPrice, less the coupon if it
	// still covers that payment.
	NewAmount Money
	// Coupon is the code's terms the subscription keeps after its first
	// period: nil once it covers no more payments (or without a code).
	Coupon *Coupon
	// Trial is the free trial (First is then its free days, up to the
	// first charge), nil without one: TrialEnds, and its first charge
	// (FirstCharge, less the code) on FirstDate for FirstFrom-FirstTo.
	Trial *TrialQuote
}

// QuoteSubscription quotes a subscription to p taken out today with a
// payment day and period; change is the product's scheduled price, if
// any (the new subscriber pays it from its day, as everyone does). A
// product with a trial (p.TrialDays; zero it for a customer who had it)
// is quoted free until its first charge (quoteTrial).
func QuoteSubscription(today time.Time, p Product, day, months int, change *PriceChange) SubscribeQuote {
	return QuoteSubscriptionWith(today, p, day, months, change, nil)
}

// QuoteSubscriptionWith is QuoteSubscription with a discount code's terms
// attached (nil: none): the first period takes its discount, and Then too
// while it covers payments after the first.
func QuoteSubscriptionWith(today time.Time, p Product, day, months int, change *PriceChange, coupon *Coupon) SubscribeQuote {
	return QuoteSubscriptionShipped(today, p, day, months, change, coupon, Money{Currency: p.MonthlyPrice.Currency})
}

// QuoteSubscriptionShipped is QuoteSubscriptionWith for a product that
// ships, at shipping a period (SubscribeDelivery.PeriodRate): each payment
// that sends a parcel carries it (subscription_delivery.go).
func QuoteSubscriptionShipped(today time.Time, p Product, day, months int, change *PriceChange, coupon *Coupon, shipping Money) SubscribeQuote {
	sub := Subscription{MonthlyPrice: p.MonthlyPrice, PeriodMonths: months, PaymentDay: day, Shipping: shipping}
	if pc := change; pc != nil && pc.AppliedOn.IsZero() && pc.EffectiveOn.After(today) && pc.New.Currency == sub.MonthlyPrice.Currency {
		sub.NewPrice, sub.NewPriceFrom = pc.New, pc.EffectiveOn
	}
	if p.TrialDays > 0 {
		return quoteTrial(today, sub, p.TrialDays, coupon)
	}
	first := rules.WithCoupon(rules.FirstPeriod(today, day, months, sub.Amount()), coupon).WithShipping(sub.Shipping)
	sub.Coupon = coupon
	if first.Discount.Amount > 0 {
		sub.Coupon = coupon.Used()
	}
	q := SubscribeQuote{First: first, Then: sub.AmountFor(first.Next), ThenGross: sub.GrossFor(first.Next).Add(sub.ShippingFor(first.Next)),
		Shipping: sub.Shipping, NewPrice: sub.NewPrice, NewPriceFrom: sub.NewPriceFrom, Coupon: sub.Coupon}
	if !sub.NewPriceFrom.IsZero() {
		q.NewAmount = sub.firstAtNewPrice(first.Next)
	}
	return q
}

// firstAtNewPrice is the first payment on or after the announced price's
// day, counting from the payment date next: each payment before it uses
// one of the coupon's covered payments, as the payments job does.
func (s Subscription) firstAtNewPrice(next time.Time) Money {
	if s.PeriodMonths < 1 { // no period to step by (never a valid subscription)
		return s.AmountFor(s.NewPriceFrom)
	}
	for d := next; ; d = rules.NextBillingDate(d, s.PeriodMonths, s.PaymentDay) {
		if !d.Before(s.NewPriceFrom) {
			return s.AmountFor(d)
		}
		if s.Coupon.Covers() {
			s.Coupon = s.Coupon.Used()
		}
	}
}
