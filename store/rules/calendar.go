package rules

import (
	"errors"
	"time"
)

// The billing calendar. A billing date is a day in the shop's time zone,
// kept as a time.Time at midnight UTC of that day so that arithmetic on it
// never meets a daylight-saving change; DateOf and FormatDate convert.

// DateLayout is how billing dates are written: YYYY-MM-DD.
const DateLayout = "2006-01-02"

// Periods a subscription may be billed in, in months.
var Periods = []int{1, 2, 3, 6}

// ErrBadDate refuses a date ParseDate cannot read.
var ErrBadDate = errors.New("not a date: use YYYY-MM-DD")

// ValidPeriod reports whether months is a period the shop bills in.
func ValidPeriod(months int) bool {
	for _, p := range Periods {
		if p == months {
			return true
		}
	}
	return false
}

// ValidPaymentDay reports whether day can be a payment day.
func ValidPaymentDay(day int) bool { return day >= 1 && day <= 31 }

// Date returns the billing date of a calendar day.
func Date(year int, month time.Month, day int) time.Time {
	return time.Date(year, month, day, 0, 0, 0, 0, time.UTC)
}

// DateOf is the billing date of an instant in the shop's time zone.
func DateOf(t time.Time, loc *time.Location) time.Time {
	y, m, d := t.In(loc).Date()
	return Date(y, m, d)
}

// ParseDate reads YYYY-MM-DD strictly (no times, no zones, real days only).
func ParseDate(s string) (time.Time, error) {
	if len(s) != len(DateLayout) {
		return time.Time{}, ErrBadDate
	}
	t, err := time.Parse(DateLayout, s)
	if err != nil || t.Year() < 1970 || t.Year() > 9999 {
		return time.Time{}, ErrBadDate
	}
	return t, nil
}

// FormatDate writes a billing date as YYYY-MM-DD; the zero date is "".
func FormatDate(d time.Time) string {
	if d.IsZero() {
		return ""
	}
	return d.Format(DateLayout)
}

// DaysIn is the number of days of a month.
func DaysIn(year int, month time.Month) int {
	return Date(year, month+1, 0).Day()
}

// BillingDate is the payment day in a month: a day the month does not have
// falls on its last day. The day is kept apart from the date, so it never
// drifts: day 31 bills 31 Jan, 28 Feb, 31 Mar.
func BillingDate(year int, month time.Month, day int) time.Time {
	first := Date(year, month, 1) // normalises a month past December
	return Date(first.Year(), first.Month(), min(day, DaysIn(first.Year(), first.Month())))
}

// NextBillingDate is the payment after the one on date: the payment day of
// the month `months` later.
func NextBillingDate(date time.Time, months, day int) time.Time {
	return BillingDate(date.Year(), date.Month()+time.Month(months), day)
}

// FirstBillingDateAfter is the first payment day strictly after date.
func FirstBillingDateAfter(date time.Time, day int) time.Time {
	d := BillingDate(date.Year(), date.Month(), day)
	if d.After(date) {
		return d
	}
	return BillingDate(date.Year(), date.Month()+1, day)
}

// ReminderDate is when the reminder for a payment goes out: lead days
// before it, but never before today (a reminder cannot be sent in the past).
func ReminderDate(payment, today time.Time, leadDays int) time.Time {
	r := payment.AddDate(0, 0, -leadDays)
	if r.Before(today) {
		return today
	}
	return r
}
