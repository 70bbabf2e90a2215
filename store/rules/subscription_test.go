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
