package rules

import "time"

// The limits of what a customer may ask of a subscription: how many units
// a month, and how far ahead a pause may end.

// MaxSubscriptionQuantity is the most units a month a subscription takes.
const MaxSubscriptionQuantity = 10

// ValidQuantity says whether n units a month may be subscribed to.
func ValidQuantity(n int) bool { return n >= 1 && n <= MaxSubscriptionQuantity }

// MaxPauseDays is how far ahead a pause may be set to end: a year.
const MaxPauseDays = 366

// ValidPauseEnd says whether a pause may end on until: after today, and
// within MaxPauseDays.
func ValidPauseEnd(until, today time.Time) bool {
	return until.After(today) && !until.After(today.AddDate(0, 0, MaxPauseDays))
}

// PaymentAfterPause is the first payment of a subscription paused until
// resumesOn (the day it is active again), paid up to paidUntil (its next
// payment date when paused), on payment day `day`: the first payment day
// on or after resumesOn, never before the end of the period already paid.
func PaymentAfterPause(resumesOn, paidUntil time.Time, day int) time.Time {
	next := FirstBillingDateAfter(resumesOn.AddDate(0, 0, -1), day)
	if paidUntil.After(next) {
		return paidUntil
	}
	return next
}
