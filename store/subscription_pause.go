package store

import (
	"time"

	"shop/store/rules"
)

// MaxPauseDays is how far ahead a pause may be set to end: a year
// (rules.MaxPauseDays; web tests name it here).
const MaxPauseDays = rules.MaxPauseDays

// errBadResumeDate: a pause's end is not after today, or too far ahead.
var errBadResumeDate error = Refuse(Invalid, "subs.error.until", "a pause ends after today and within a year")

// Pause stops payments and reminders until the customer resumes.
func Pause() SubscriptionChange { return PauseUntil(time.Time{}) }

// PauseUntil stops payments and reminders until a date (the day it is
// active again; zero: until the customer resumes). The payments job
// resumes it on that day (ResumeAsPlanned), the payment-due index holding
// it by the date. A paused subscription may move its date, or drop it.
func PauseUntil(until time.Time) SubscriptionChange {
	return func(s Subscription, today time.Time, lead int) (Subscription, error) {
		switch {
		case changeable(s) != nil:
			return s, changeable(s)
		case !until.IsZero() && !rules.ValidPauseEnd(until, today):
			return s, errBadResumeDate
		case s.Status == SubscriptionPaused && s.ResumesOn.Equal(until):
			return s, ErrSameValue
		case s.Ending():
			return s, ErrSubscriptionEnding
		case s.Status == SubscriptionPastDue:
			return s, ErrPaymentOutstanding
		}
		if s.Status != SubscriptionPaused {
			s.Status, s.PausedOn = SubscriptionPaused, today
		}
		s.ResumesOn = until
		return s, nil
	}
}

// Resume starts a paused subscription again. Its next payment is the next
// payment day after today, never earlier than the end of the period already
// paid, and nothing is charged for the paused months.
func Resume() SubscriptionChange {
	return func(s Subscription, today time.Time, lead int) (Subscription, error) {
		switch {
		case changeable(s) != nil:
			return s, changeable(s)
		case s.Status != SubscriptionPaused:
			return s, errSubscriptionNotPaused
		}
		return resumed(s, rules.FirstBillingDateAfter(today, s.PaymentDay), today, lead), nil
	}
}

// ResumeAsPlanned is the payments job's resume of a subscription paused
// until a date that has come: its next payment is its first payment day on
// or after that date (the customer chose the day it is active again),
// never earlier than the end of the period already paid.
func ResumeAsPlanned() SubscriptionChange {
	return func(s Subscription, today time.Time, lead int) (Subscription, error) {
		switch {
		case changeable(s) != nil:
			return s, changeable(s)
		case s.Status != SubscriptionPaused || s.ResumesOn.IsZero() || s.ResumesOn.After(today):
			return s, errSubscriptionNotPaused
		}
		return resumed(s, s.PaymentAfterPause(), today, lead), nil
	}
}

// PaymentAfterPause is the first payment of a subscription paused until a
// day: its first payment day on or after it, never before the end of the
// period already paid (rules.PaymentAfterPause; resumed keeps the later of
// the two).
func (s Subscription) PaymentAfterPause() time.Time {
	return rules.PaymentAfterPause(s.ResumesOn, s.NextPaymentDate, s.PaymentDay)
}

// resumed is s active again, its next payment on next (or at the end of
// the period already paid, if later).
func resumed(s Subscription, next, today time.Time, lead int) Subscription {
	if s.NextPaymentDate.After(next) {
		next = s.NextPaymentDate
	}
	s.Status = SubscriptionActive
	s.PausedOn, s.ResumesOn = time.Time{}, time.Time{}
	s.NextPaymentDate = next
	s.NextReminderDate = rules.ReminderDate(next, today, lead)
	if next.Before(today) { // resumed late (a job catching up): it is charged now, unannounced
		s.NextReminderDate = time.Time{}
	}
	return s
}
