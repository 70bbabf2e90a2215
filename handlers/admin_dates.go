package handlers

import (
	"time"

	"shop/views"
)

// Day ranges of the admin pages: YYYY-MM-DD, both days included, in UTC
// (the days the store's timestamps are written in).
const (
	dayLayout       = "2006-01-02"
	defaultRangeLen = 30  // days shown when no range is given
	maxRangeLen     = 366 // days one request may ask for
)

// dateRange is a checked range of whole days.
type dateRange struct {
	From, To string    // YYYY-MM-DD
	Start    time.Time // the first instant of From
	End      time.Time // the last millisecond of To
}

// rangeError says which field of a date range is wrong ("from", "to", or ""
// for the range as a whole) and why, in words for staff.
type rangeError struct {
	Field   string
	Message string
}

func (e *rangeError) Error() string { return e.Message }

// Errors is the message as form field errors.
func (e *rangeError) Errors() views.FieldErrors { return views.FieldErrors{e.Field: e.Message} }

// parseDateRange reads from and to as typed. Either may be blank: to is
// then today and from the 30 days up to to. A range runs forwards and spans
// at most 366 days.
func parseDateRange(fromS, toS string, today time.Time) (dateRange, *rangeError) {
	today = today.UTC()
	to := time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, time.UTC)
	if toS != "" {
		t, ok := parseDay(toS)
		if !ok {
			return dateRange{}, &rangeError{Field: "to", Message: "Enter the last day as YYYY-MM-DD, like " + to.Format(dayLayout) + "."}
		}
		to = t
	}
	from := to.AddDate(0, 0, -(defaultRangeLen - 1))
	if fromS != "" {
		f, ok := parseDay(fromS)
		if !ok {
			return dateRange{}, &rangeError{Field: "from", Message: "Enter the first day as YYYY-MM-DD, like " + from.Format(dayLayout) + "."}
		}
		from = f
	}
	if from.After(to) {
		return dateRange{}, &rangeError{Field: "from", Message: "The first day must not come after the last day."}
	}
	if days := int(to.Sub(from).Hours()/24) + 1; days > maxRangeLen {
		return dateRange{}, &rangeError{Field: "from", Message: "Pick at most 366 days at a time."}
	}
	return dateRange{
		From: from.Format(dayLayout), To: to.Format(dayLayout),
		Start: from, End: to.AddDate(0, 0, 1).Add(-time.Millisecond),
	}, nil
}

// parseDay reads exactly YYYY-MM-DD: a real day of a year from 2000 to 9999,
// written with its leading zeros.
func parseDay(s string) (time.Time, bool) {
	if len(s) != len(dayLayout) {
		return time.Time{}, false
	}
	t, err := time.Parse(dayLayout, s)
	if err != nil || t.Year() < 2000 || t.Format(dayLayout) != s {
		return time.Time{}, false
	}
	return t, true
}
