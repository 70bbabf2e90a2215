package handlers

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/views"
	"shop/views/lang"
)

// Day ranges of the admin pages: YYYY-MM-DD, both days included, days in
// the shop's time zone (what staff see on every page). A day is the instants
// from its local midnight to the next, converted to UTC for the queries (the
// store's timestamps are UTC): a local day can straddle two UTC days or
// months, and a day with a daylight-saving change is 23 or 25 hours long.
const (
	dayLayout       = "2006-01-02"
	defaultRangeLen = 30  // days shown when no range is given
	maxRangeLen     = 366 // days one request may ask for
)

// dateRange is a checked range of whole days.
type dateRange struct {
	From, To string    // YYYY-MM-DD, days in the shop's time zone
	Start    time.Time // the first instant of From (UTC)
	End      time.Time // the last millisecond of To (UTC)
}

// rangeError says which field of a date range is wrong ("from", "to", or ""
// for the range as a whole) and why, in words for staff: Message in
// English, ID and Args the message in the catalogue, for the language of
// the request.
type rangeError struct {
	Field   string
	Message string
	ID      string
	Args    []any
}

// newRangeError is the error of field with message id and its values.
func newRangeError(field, id string, args ...any) *rangeError {
	return &rangeError{Field: field, ID: id, Args: args, Message: lang.In(lang.English, id, args...)}
}

func (e *rangeError) Error() string { return e.Message }

// Errors is the message as form field errors, in English.
func (e *rangeError) Errors() views.FieldErrors { return views.FieldErrors{e.Field: e.Message} }

// Text is the message in the language of the request.
func (e *rangeError) Text(c *fiber.Ctx) string { return page.T(c, e.ID, e.Args...) }

// FieldErrors is the message as form field errors, in the language of the
// request.
func (e *rangeError) FieldErrors(c *fiber.Ctx) views.FieldErrors {
	return views.FieldErrors{e.Field: e.Text(c)}
}

// parseDateRange reads from and to as typed, days in loc. Either may be
// blank: to is then today (in loc) and from the 30 days up to to. A range
// runs forwards and spans at most 366 days.
func parseDateRange(fromS, toS string, now time.Time, loc *time.Location) (dateRange, *rangeError) {
	y, m, d := now.In(loc).Date()
	to := time.Date(y, m, d, 0, 0, 0, 0, time.UTC) // days are counted on a calendar with no DST
	if toS != "" {
		t, ok := parseDay(toS)
		if !ok {
			return dateRange{}, newRangeError("to", "admin.common.err.to", "Example", to.Format(dayLayout))
		}
		to = t
	}
	from := to.AddDate(0, 0, -(defaultRangeLen - 1))
	if fromS != "" {
		f, ok := parseDay(fromS)
		if !ok {
			return dateRange{}, newRangeError("from", "admin.common.err.from", "Example", from.Format(dayLayout))
		}
		from = f
	}
	if from.After(to) {
		return dateRange{}, newRangeError("from", "admin.common.err.order")
	}
	if days := int(to.Sub(from).Hours()/24) + 1; days > maxRangeLen {
		return dateRange{}, newRangeError("from", "admin.common.err.too_long")
	}
	return dateRange{
		From: from.Format(dayLayout), To: to.Format(dayLayout),
		Start: dayStart(from, loc), End: dayStart(to.AddDate(0, 0, 1), loc).Add(-time.Millisecond),
	}, nil
}

// dayStart is the first instant of a calendar day in loc, in UTC. Where a
// daylight-saving change skips midnight (clocks jump from 00:00 to 01:00:
// Havana, Beirut, Santiago), time.Date reads the missing midnight with one
// of the two offsets; the day then starts at the jump, the edge of the zone
// time.Date landed in.
func dayStart(day time.Time, loc *time.Location) time.Time {
	t := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, loc)
	switch local := t.In(loc); {
	case local.Day() != day.Day(): // the evening before: the day starts as that zone ends
		_, end := t.ZoneBounds()
		t = end
	case local.Hour() != 0 || local.Minute() != 0:
		if start, _ := t.ZoneBounds(); start.In(loc).Day() == day.Day() {
			t = start
		}
	}
	return t.UTC()
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
