package views

import (
	"strconv"
	"strings"
	"time"

	"shop/store"
)

// AdminSubscriptionList is a page of the subscriptions in one status,
// newest first.
type AdminSubscriptionList struct {
	Status        store.SubscriptionStatus
	Subscriptions []store.Subscription
	NextURL       string
}

// AdminSubscriptionsDue is what the billing jobs have to do on one day: the
// reminders to send and the payments to take (or retry, or end), each a
// page at a time.
type AdminSubscriptionsDue struct {
	Date          string // as typed; YYYY-MM-DD once checked
	Today         string
	Errors        FieldErrors
	Reminders     []store.Subscription
	RemindersNext string
	Payments      []store.Subscription
	PaymentsNext  string
}

// adminEvery is a subscription's period in words.
func adminEvery(months int) string {
	if months == 1 {
		return "every month"
	}
	return "every " + strconv.Itoa(months) + " months"
}

// adminSubscriptionState says where a subscription stands, with its date.
func adminSubscriptionState(s store.Subscription) string {
	switch {
	case s.Ending():
		return "ends on " + adminDate(s.EndsOn)
	case s.Status == store.SubscriptionActive:
		return "next payment " + adminDate(s.NextPaymentDate)
	case s.Status == store.SubscriptionPastDue:
		return "payment of " + adminDate(s.NextPaymentDate) + " failed; retry on " + adminDate(s.RetryDate)
	case s.Status == store.SubscriptionPaused:
		return "paused since " + adminDate(s.PausedOn)
	case s.Status == store.SubscriptionCancelled:
		return "cancelled on " + adminDate(s.CancelledOn)
	}
	return ""
}

// adminDueAction is what the payment job does with a subscription that is
// due: charge it, retry it, or end it.
func adminDueAction(s store.Subscription) string {
	switch {
	case s.Ending():
		return "end (cancelled at period end)"
	case s.Status == store.SubscriptionPastDue:
		return "retry " + s.Amount().String()
	}
	return "charge " + s.Amount().String()
}

// adminPeriod is the period a receipt paid for.
func adminPeriod(from, to time.Time) string {
	if from.IsZero() {
		return "—"
	}
	return adminDate(from) + " – " + adminDate(to)
}

// adminStatusTitle is a status as a tab names it: "Past due".
func adminStatusTitle(st store.SubscriptionStatus) string {
	l := st.Label()
	if l == "" {
		return l
	}
	return strings.ToUpper(l[:1]) + l[1:]
}
