package rules

import "time"

// Proration: what a share of a period costs, by days. One rule for every
// share the shop computes (a new subscriber's first days, the unused days
// given back on cancelling): price × days / days of the period, rounded
// down to the currency's minor unit, so a share never exceeds what the
// days are worth.

// DayShare is amount × days / of, rounded down to the minor unit; nothing
// for an empty period. Minor units × days stays far inside int64 for any
// amount ParseMoney takes.
func DayShare(amount Money, days, of int) Money {
	share := Money{Currency: amount.Currency}
	if of <= 0 || days <= 0 || amount.Amount <= 0 {
		return share
	}
	share.Amount = amount.Amount * int64(min(days, of)) / int64(of)
	return share
}

// Proration is a new subscription's first period: what is charged today
// and for which days.
type Proration struct {
	// Charge is what is taken today: Share, or nothing when Share is below
	// the smallest card payment of its currency (Free).
	Charge Money
	// Share is the period's price × Days / Of, rounded down.
	Share Money
	// Discount is what a discount code took off Share (WithDiscount).
	Discount Money
	// Shipping is the delivery in Charge: a subscription's rate, in full,
	// when these days ship a unit (WithShipping); zero otherwise.
	Shipping Money
	// From and To are the first and last day paid (To is the day before
	// Next); a receipt's period is [From, Next).
	From, To time.Time
	// Next is the first payment date: from then on a whole period is paid
	// on every payment date.
	Next time.Time
	// Days are the days paid, Of the days of the period that ends on Next.
	Days, Of int
	// Months is the period's length.
	Months int
	// Full: today is a payment date, and a whole period is paid.
	Full bool
	// Free: the share is below the smallest charge, so those days are
	// free and nothing is charged.
	Free bool
	// Trial: these days are the product's free trial (the store's subscribe_trial.go),
	// also Free.
	Trial bool
}

// FirstPeriod is what a subscription taken out today pays first, with
// payment day `day` every `months` months at `price` a period (the monthly
// price × months):
//
//   - On a payment date (today is this month's payment date, day 31
//     clamped to the month's last day by BillingDate), a whole period:
//     today up to the payment date `months` later.
//   - Otherwise, the days up to the first payment date after today
//     (`first`): the share price × days[today, first) / days[prev, first),
//     prev being the payment date one period before first, rounded down
//     to the minor unit. From first on, a whole period is paid on each
//     payment date. A share below the smallest card payment of the
//     currency (MinimumCharge) is not charged: those days are free.
//
// €12.90 a month on day 1, taken out on 28 November: €1.29 for 28-30
// November (3 of 30 days), then €12.90 on 1 December.
func FirstPeriod(today time.Time, day, months int, price Money) Proration {
	p := Proration{From: today, Months: months, Charge: Money{Currency: price.Currency}}
	if today.Equal(BillingDate(today.Year(), today.Month(), day)) {
		p.Next = NextBillingDate(today, months, day)
		p.Days = DaysBetween(today, p.Next)
		p.Of, p.Full, p.Share, p.Charge = p.Days, true, price, price
		p.To = p.Next.AddDate(0, 0, -1)
		return p
	}
	p.Next = FirstBillingDateAfter(today, day)
	prev := BillingDate(p.Next.Year(), p.Next.Month()-time.Month(months), day)
	p.Days, p.Of = DaysBetween(today, p.Next), DaysBetween(prev, p.Next)
	p.To = p.Next.AddDate(0, 0, -1)
	p.Share = DayShare(price, p.Days, p.Of)
	if p.Share.Amount < MinimumCharge(price.Currency).Amount {
		p.Free = true
	} else {
		p.Charge = p.Share
	}
	return p
}

// Units is how many units of a product that ships the first period's order
// carries: one a month paid, as every period ships, a part of a month
// rounded to the nearest (half a month or more ships one). A whole period
// ships Months units; free days ship nothing.
func (p Proration) Units() int {
	if p.Full {
		return p.Months
	}
	if p.Free || p.Of <= 0 {
		return 0
	}
	return (2*p.Months*p.Days + p.Of) / (2 * p.Of)
}

// UnusedShare is what a cancellation on `cancelled` gives back of `paid`
// for the period [start, end) (billing dates): pro rata by days
// (DayShare), the day of cancelling counted as used (the customer had
// it), rounded down so the refund never exceeds what is left. Cancelling
// before the period starts gives everything back, on or after its end
// nothing. It also returns the unused and the total days, for the words
// beside it.
func UnusedShare(paid Money, start, end, cancelled time.Time) (share Money, unusedDays, totalDays int) {
	totalDays = DaysBetween(start, end)
	if totalDays <= 0 || paid.Amount <= 0 {
		return Money{Currency: paid.Currency}, 0, max(totalDays, 0)
	}
	used := DaysBetween(start, cancelled) + 1
	unusedDays = min(max(totalDays-used, 0), totalDays)
	if cancelled.Before(start) {
		unusedDays = totalDays
	}
	return DayShare(paid, unusedDays, totalDays), unusedDays, totalDays
}

// DaysBetween counts the calendar days from a to b (billing dates, UTC
// midnights, so every day has 24 hours).
func DaysBetween(a, b time.Time) int {
	return int(b.Sub(a).Hours() / 24)
}

// WithDiscount is a first period with off (a discount code's) taken off
// its share. A share that the discount brings below the smallest card
// payment is not charged: those days are free, as without a code.
func (p Proration) WithDiscount(off Money) Proration {
	p.Discount = off
	net := p.Share.Amount - p.Discount.Amount
	if net < MinimumCharge(p.Share.Currency).Amount {
		p.Free, p.Charge = true, Money{Currency: p.Share.Currency}
	} else {
		p.Charge = Money{Amount: net, Currency: p.Share.Currency}
	}
	return p
}

// WithShipping adds delivery at rate to a first period that ships a unit.
func (p Proration) WithShipping(rate Money) Proration {
	if rate.Amount <= 0 || p.Units() == 0 {
		return p
	}
	p.Shipping, p.Charge = rate, p.Charge.Add(rate)
	return p
}
