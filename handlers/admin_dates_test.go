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
			r, err := parseDateRange(tc.from, tc.to, today)
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

// FuzzParseDateRange: whatever is typed, a range either comes back as two
// well-formed days in order at most 366 days apart, or an error names a
// field of the form.
func FuzzParseDateRange(f *testing.F) {
	for _, s := range [][2]string{{"", ""}, {"2025-01-01", "2025-01-31"}, {"2025-02-30", ""}, {"2024-01-01", "2025-01-01"}, {"0000-01-01", "9999-12-31"}, {"2025-13-01", "x"}} {
		f.Add(s[0], s[1])
	}
	today := time.Date(2025, 3, 15, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, from, to string) {
		r, err := parseDateRange(from, to, today)
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
		if !r.Start.Equal(f) || !r.End.After(l) || r.End.Sub(l) >= 24*time.Hour {
			t.Fatalf("(%q, %q) instants %s..%s", from, to, r.Start, r.End)
		}
	})
}
