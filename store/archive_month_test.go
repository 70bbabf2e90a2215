package store_test

import (
	"testing"
	"time"

	"shop/store"
)

func TestMonthsOfTheBooks(t *testing.T) {
	stockholm, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		t.Fatal(err)
	}
	m, err := store.ParseMonth("2026-01")
	if err != nil {
		t.Fatal(err)
	}
	if got := m.AddMonths(-2).String(); got != "2025-11" {
		t.Fatalf("two months before 2026-01: %s", got)
	}
	// 23:30 UTC on the last day of January is February in Stockholm.
	if got := store.MonthOf(time.Date(2026, 1, 31, 23, 30, 0, 0, time.UTC), stockholm); got.String() != "2026-02" {
		t.Fatalf("month of 2026-01-31T23:30Z in Stockholm: %s", got)
	}
	if !m.End(stockholm).Equal(time.Date(2026, 1, 31, 23, 0, 0, 0, time.UTC)) {
		t.Fatalf("January ends at %s in Stockholm", m.End(stockholm))
	}
	for _, bad := range []string{"", "2026-1", "2026-13", "2026-00", "1999-12", "2026/01", "+026-01", "2026-01-01", "２０２６-01"} {
		if _, err := store.ParseMonth(bad); err == nil {
			t.Errorf("ParseMonth(%q) took it", bad)
		}
	}
}

// FuzzParseMonth: whatever the text, a month taken prints back as it was
// written, within 2000-01..9999-12.
func FuzzParseMonth(f *testing.F) {
	for _, s := range []string{"2026-05", "2026-13", "", "9999-12", "2000-01", "1999-12", "20a6-01", "2026-5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := store.ParseMonth(s)
		if err != nil {
			return
		}
		if m.String() != s || m.Month < 1 || m.Month > 12 || m.Year < 2000 || m.Year > 9999 {
			t.Fatalf("ParseMonth(%q) = %+v (%s)", s, m, m)
		}
		if next := m.AddMonths(1); !m.Before(next) || next.AddMonths(-1) != m {
			t.Fatalf("%s and the month after it, %s", m, next)
		}
	})
}
