package rules

import "time"

// Free trials (issue #28): a subscribable product may have a trial of 0 to
// MaxTrialDays days. The trial is [today, today+days) and the first charge
// is on its end, as if the customer subscribed that day (FirstPeriod from
// the trial's end: the share up to the payment date, or a whole period
// when the trial ends on one).

// MaxTrialDays is the longest free trial staff may give a product.
const MaxTrialDays = 90

// ValidTrialDays reports whether n is a trial staff may give: 0 (none) to 90 days.
func ValidTrialDays(n int) bool { return n >= 0 && n <= MaxTrialDays }

// TrialPlan is a subscription taken out today with a free trial.
type TrialPlan struct {
	// Ends is the first day that is not free: the trial is [today, Ends).
	Ends time.Time
	// First is the first charge, on First.From: FirstPeriod taken out on
	// Ends (the share of the days up to the payment date after, or a
	// whole period when Ends is a payment date). When that share is below
	// the smallest charge those days are free too, as for any subscriber,
	// and First is the whole period on the payment date after Ends.
	First Proration
}

// TrialFirstCharge is what a subscription with a trial of `days` days
// taken out today pays first, with payment day `day` every `months`
// months at `price` a period. 14 days from 28 November, day 1, €12.90 a
// month: free until 11 December; then €8.32 on 12 December for 12-31
// December (20 of 31 days), then €12.90 on 1 January.
func TrialFirstCharge(today time.Time, days, day, months int, price Money) TrialPlan {
	ends := today.AddDate(0, 0, days)
	return TrialPlan{Ends: ends, First: ChargeAfterTrial(ends, day, months, price)}
}

// ChargeAfterTrial is the first charge after a trial ending on ends.
func ChargeAfterTrial(ends time.Time, day, months int, price Money) Proration {
	first := FirstPeriod(ends, day, months, price)
	if first.Free {
		return FirstPeriod(first.Next, day, months, price) // a payment date: a whole period
	}
	return first
}

// FreePeriod is the trial as a first period: nothing charged for [today,
// the first charge's day).
func (t TrialPlan) FreePeriod(today time.Time, months int, currency string) Proration {
	zero := Money{Currency: currency}
	return Proration{From: today, To: t.First.From.AddDate(0, 0, -1), Next: t.First.From, Days: DaysBetween(today, t.First.From),
		Of: DaysBetween(today, t.First.From), Months: months, Charge: zero, Share: zero, Free: true, Trial: true}
}
