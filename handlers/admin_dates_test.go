package handlers

import (
	"strings"
	"testing"
	"time"
)

func TestParseDateRange(t *testing.T) {
	today := time.Date(2025, 3, 15, 22, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, from, to     string
		wantFrom, wantTo   string
		wantField, wantErr string
	}{
		{name: "defaults", wantFrom: "2025-02-14", wantTo: "2025-03-15"},
		{name: "only to", to: "2025-01-31", wantFrom: "2025-01-02", wantTo: "2025-01-31"},
		{name: "only from", from: "2025-03-01", wantFrom: "2025-03-01", wantTo: "2025-03-15"},
		{name: "one day", from: "2024-02-29", to: "2024-02-29", wantFrom: "2024-02-29", wantTo: "2024-02-29"},
		{name: "366 days", from: "2024-01-01", to: "2024-12-31", wantFrom: "2024-01-01", wantTo: "2024-12-31"},
		{name: "367 days", from: "2024-01-01", to: "2025-01-01", wantField: "from", wantErr: "366"},
		{name: "backwards", from: "2025-03-02", to: "2025-03-01", wantField: "from", wantErr: "after"},
		{name: "from after today", from: "2025-04-01", wantField: "from", wantErr: "after"},
		{name: "not a day", from: "2025-02-30", wantField: "from", wantErr: "YYYY-MM-DD"},
		{name: "no zeros", to: "2025-3-1", wantField: "to", wantErr: "YYYY-MM-DD"},
		{name: "words", to: "yesterday", wantField: "to", wantErr: "YYYY-MM-DD"},
		{name: "a timestamp", from: "2025-03-01T00:00:00Z", wantField: "from", wantErr: "YYYY-MM-DD"},
		{name: "year 1999", from: "1999-12-31", wantField: "from", wantErr: "YYYY-MM-DD"},
		{name: "year 10000", to: "+10000-01-01", wantField: "to", wantErr: "YYYY-MM-DD"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := parseDateRange(tc.from, tc.to, today, time.UTC)
			if tc.wantErr != "" {
				if err == nil {
					t.Fatalf("got %+v, want an error about %s", r, tc.wantField)
				}
				if err.Field != tc.wantField || !strings.Contains(err.Message, tc.wantErr) {
					t.Fatalf("error %q at %q, want %q at %q", err.Message, err.Field, tc.wantErr, tc.wantField)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %q", err.Message)
			}
			if r.From != tc.wantFrom || r.To != tc.wantTo {
				t.Fatalf("got %s..%s, want %s..%s", r.From, r.To, tc.wantFrom, tc.wantTo)
			}
			if r.Start.Format(time.RFC3339) != tc.wantFrom+"T00:00:00Z" || r.End.Format(time.RFC3339Nano) != tc.wantTo+"T23:59:59.999Z" {
				t.Fatalf("instants %s..%s", r.Start, r.End)
			}
		})
	}
}

// A day of a range is the shop's day: from its local midnight to the next,
// as UTC instants, across daylight-saving changes, month and year ends, and
// in zones where a change skips midnight itself.
func TestDateRangeIsTheShopsDays(t *testing.T) {
	zone := func(name string) *time.Location {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Fatal(err)
		}
		return loc
	}
	stockholm := zone("Europe/Stockholm")
	for _, tc := range []struct {
		name       string
		loc        *time.Location
		now        string // RFC 3339; the default range ends on its day in loc
		from, to   string
		start, end string // RFC 3339 UTC
	}{
		{name: "a winter day", loc: stockholm, from: "2026-11-22", to: "2026-11-22",
			start: "2026-11-21T23:00:00Z", end: "2026-11-22T22:59:59.999Z"},
		{name: "a summer day", loc: stockholm, from: "2026-07-01", to: "2026-07-01",
			start: "2026-06-30T22:00:00Z", end: "2026-07-01T21:59:59.999Z"},
		{name: "clocks forward: 23 hours", loc: stockholm, from: "2026-03-29", to: "2026-03-29",
			start: "2026-03-28T23:00:00Z", end: "2026-03-29T21:59:59.999Z"},
		{name: "clocks back: 25 hours", loc: stockholm, from: "2026-10-25", to: "2026-10-25",
			start: "2026-10-24T22:00:00Z", end: "2026-10-25T22:59:59.999Z"},
		{name: "a month's first day starts in the month before (UTC)", loc: stockholm, from: "2026-12-01", to: "2026-12-31",
			start: "2026-11-30T23:00:00Z", end: "2026-12-31T22:59:59.999Z"},
		{name: "a year's first day starts in the year before (UTC)", loc: stockholm, from: "2027-01-01", to: "2027-01-01",
			start: "2026-12-31T23:00:00Z", end: "2027-01-01T22:59:59.999Z"},
		{name: "across both changes", loc: stockholm, from: "2026-03-28", to: "2026-10-26",
			start: "2026-03-27T23:00:00Z", end: "2026-10-26T22:59:59.999Z"},
		{name: "today is the shop's, already tomorrow in UTC terms", loc: stockholm, now: "2026-11-21T23:30:00Z",
			from: "", to: "", start: "2026-10-23T22:00:00Z", end: "2026-11-22T22:59:59.999Z"},
		{name: "west of UTC: a day ends in the next UTC day", loc: zone("America/New_York"), from: "2026-11-01", to: "2026-11-01",
			start: "2026-11-01T04:00:00Z", end: "2026-11-02T04:59:59.999Z"},
		{name: "UTC+14", loc: zone("Pacific/Kiritimati"), from: "2026-01-01", to: "2026-01-01",
			start: "2025-12-31T10:00:00Z", end: "2026-01-01T09:59:59.999Z"},
		{name: "midnight skipped, read late (Havana)", loc: zone("America/Havana"), from: "2026-03-08", to: "2026-03-08",
			start: "2026-03-08T05:00:00Z", end: "2026-03-09T03:59:59.999Z"},
		{name: "midnight skipped, read early (Beirut)", loc: zone("Asia/Beirut"), from: "2026-03-29", to: "2026-03-29",
			start: "2026-03-28T22:00:00Z", end: "2026-03-29T20:59:59.999Z"},
		{name: "UTC", loc: time.UTC, from: "2026-02-28", to: "2026-03-01",
			start: "2026-02-28T00:00:00Z", end: "2026-03-01T23:59:59.999Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
			if tc.now != "" {
				now, _ = time.Parse(time.RFC3339, tc.now)
			}
			r, err := parseDateRange(tc.from, tc.to, now, tc.loc)
			if err != nil {
				t.Fatal(err.Message)
			}
			if got := r.Start.Format(time.RFC3339Nano); got != tc.start {
				t.Errorf("start %s, want %s", got, tc.start)
			}
			if got := r.End.Format(time.RFC3339Nano); got != tc.end {
				t.Errorf("end %s, want %s", got, tc.end)
			}
		})
	}
}

// Every day of ten years starts at an instant that is on that day in the
// zone, one millisecond after an instant of the day before.
func TestDayStartInEveryZoneWithAnOddDay(t *testing.T) {
	for _, name := range []string{"Europe/Stockholm", "America/New_York", "America/Havana", "America/Santiago", "Asia/Beirut",
		"America/Asuncion", "Australia/Lord_Howe", "Pacific/Apia", "Asia/Kolkata", "UTC"} {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Fatal(err)
		}
		for d := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC); d.Year() < 2031; d = d.AddDate(0, 0, 1) {
			start := dayStart(d, loc)
			want, before := d.Format(dayLayout), d.AddDate(0, 0, -1).Format(dayLayout)
			if got := start.In(loc).Format(dayLayout); got != want {
				t.Fatalf("%s: day %s starts at %s, which is %s there", name, want, start, got)
			}
			if got := start.Add(-time.Millisecond).In(loc).Format(dayLayout); got != before {
				t.Fatalf("%s: a millisecond before day %s starts is %s, want %s", name, want, got, before)
			}
		}
	}
}

// FuzzParseDateRange: whatever is typed, a range either comes back as two
// well-formed days in order at most 366 days apart, or an error names a
// field of the form.
func FuzzParseDateRange(f *testing.F) {
	for _, s := range [][2]string{{"", ""}, {"2025-01-01", "2025-01-31"}, {"2025-02-30", ""}, {"2024-01-01", "2025-01-01"}, {"0000-01-01", "9999-12-31"}, {"2025-13-01", "x"}} {
		f.Add(s[0], s[1])
	}
	today := time.Date(2025, 3, 15, 12, 0, 0, 0, time.UTC)
	var zones []*time.Location
	for _, name := range []string{"UTC", "Europe/Stockholm", "America/Havana", "Asia/Beirut", "Pacific/Kiritimati", "America/St_Johns"} {
		loc, err := time.LoadLocation(name)
		if err != nil {
			f.Fatal(err)
		}
		zones = append(zones, loc)
	}
	f.Fuzz(func(t *testing.T, from, to string) {
		loc := zones[len(from+to)%len(zones)]
		r, err := parseDateRange(from, to, today, loc)
		if err != nil {
			if err.Message == "" || (err.Field != "from" && err.Field != "to") {
				t.Fatalf("(%q, %q): error %+v", from, to, err)
			}
			return
		}
		f, okF := parseDay(r.From)
		l, okT := parseDay(r.To)
		if !okF || !okT {
			t.Fatalf("(%q, %q) gave malformed days %q..%q", from, to, r.From, r.To)
		}
		if from != "" && r.From != from || to != "" && r.To != to {
			t.Fatalf("(%q, %q) became %q..%q", from, to, r.From, r.To)
		}
		if f.After(l) || l.Sub(f) > (maxRangeLen-1)*24*time.Hour {
			t.Fatalf("(%q, %q) gave %q..%q", from, to, r.From, r.To)
		}
		// The instants are the first and last of the days, there.
		if r.Start.In(loc).Format(dayLayout) != r.From || r.Start.Add(-time.Millisecond).In(loc).Format(dayLayout) == r.From ||
			r.End.In(loc).Format(dayLayout) != r.To || r.End.Add(time.Millisecond).In(loc).Format(dayLayout) == r.To {
			t.Fatalf("(%q, %q) in %s: instants %s..%s", from, to, loc, r.Start, r.End)
		}
		if !r.Start.Equal(f) && loc == time.UTC {
			t.Fatalf("(%q, %q) in UTC starts at %s", from, to, r.Start)
		}
	})
}
