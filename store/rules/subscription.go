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
