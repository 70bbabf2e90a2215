package rules

import "testing"

func TestValidQuantity(t *testing.T) {
	for n, want := range map[int]bool{-1: false, 0: false, 1: true, 2: true, 10: true, 11: false, 99: false} {
		if ValidQuantity(n) != want {
			t.Errorf("ValidQuantity(%d) = %v, want %v", n, !want, want)
		}
	}
}

// A pause ends after today and at most MaxPauseDays (a year, 366 days) on.
func TestValidPauseEnd(t *testing.T) {
	for _, tc := range []struct {
		today, until string
		want         bool
	}{
		{"2026-11-12", "2026-11-11", false},
		{"2026-11-12", "2026-11-12", false},
		{"2026-11-12", "2026-11-13", true},
		{"2026-11-12", "2027-11-12", true},
		{"2026-11-12", "2027-11-13", true}, // 366 days
		{"2026-11-12", "2027-11-14", false},
		{"2027-03-01", "2028-03-01", true}, // over a leap day: 366 days
		{"2027-03-01", "2028-03-02", false},
	} {
		if got := ValidPauseEnd(d(tc.until), d(tc.today)); got != tc.want {
			t.Errorf("ValidPauseEnd(%s, %s) = %v, want %v", tc.until, tc.today, got, tc.want)
		}
	}
}

// A paused subscription's first payment is the first payment day on or
// after the day it resumes, never inside the period already paid.
func TestPaymentAfterPause(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		resumesOn, paidUntil string
		day                  int
		want                 string
	}{
		{"resumes on a payment day", "2027-02-01", "2026-12-01", 1, "2027-02-01"},
		{"resumes the day after one", "2027-02-02", "2026-12-01", 1, "2027-03-01"},
		{"resumes mid month, day 15", "2027-02-10", "2026-12-15", 15, "2027-02-15"},
		{"day 31 in February", "2027-02-10", "2026-12-31", 31, "2027-02-28"},
		{"day 31 in a leap February", "2028-02-10", "2027-12-31", 31, "2028-02-29"},
		{"resumes inside the period paid: its end", "2026-12-10", "2027-01-01", 1, "2027-01-01"},
		{"paid for two months ahead", "2027-01-05", "2027-03-01", 1, "2027-03-01"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := PaymentAfterPause(d(tc.resumesOn), d(tc.paidUntil), tc.day); !got.Equal(d(tc.want)) {
				t.Fatalf("PaymentAfterPause = %s, want %s", FormatDate(got), tc.want)
			}
		})
	}
}
