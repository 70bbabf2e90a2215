package store

import (
	"testing"
)

func TestUnusedShareIsProRataByDays(t *testing.T) {
	eur := func(c int64) Money { return Money{Amount: c, Currency: "EUR"} }
	for _, tc := range []struct {
		name                 string
		paid                 int64
		start, end, cancel   string
		want                 int64
		unusedDays, totalDay int
	}{
		{"mid month of 30 days", 3000, "2026-04-10", "2026-05-10", "2026-04-24", 1500, 15, 30},
		{"the day the period starts keeps that day", 3100, "2026-01-01", "2026-02-01", "2026-01-01", 3000, 30, 31},
		{"the last day of the period gives nothing back", 3100, "2026-01-01", "2026-02-01", "2026-01-31", 0, 0, 31},
		{"after the period", 3100, "2026-01-01", "2026-02-01", "2026-02-03", 0, 0, 31},
		{"before the period starts, all of it", 3100, "2026-01-01", "2026-02-01", "2025-12-31", 3100, 31, 31},
		{"February of a common year", 2800, "2027-02-01", "2027-03-01", "2027-02-14", 1400, 14, 28},
		{"February of a leap year", 2900, "2028-02-01", "2028-03-01", "2028-02-14", 1500, 15, 29},
		{"leap day itself", 2900, "2028-02-01", "2028-03-01", "2028-02-29", 0, 0, 29},
		{"day 31 clamped: 31 Jan to 28 Feb", 2800, "2026-01-31", "2026-02-28", "2026-02-13", 1400, 14, 28},
		{"month end into a leap February", 2900, "2028-01-31", "2028-02-29", "2028-02-01", 2700, 27, 29},
		{"over a year end", 3100, "2026-12-15", "2027-01-15", "2026-12-31", 1400, 14, 31},
		{"six months over a leap day", 18200, "2028-01-01", "2028-07-01", "2028-03-31", 9100, 91, 182},
		{"rounded down, never up", 1000, "2026-04-01", "2026-05-01", "2026-04-01", 966, 29, 30},
		{"nothing paid", 0, "2026-04-01", "2026-05-01", "2026-04-10", 0, 0, 30},
		{"an empty period", 1000, "2026-04-01", "2026-04-01", "2026-04-01", 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, unused, total := UnusedShare(eur(tc.paid), d(tc.start), d(tc.end), d(tc.cancel))
			if got != eur(tc.want) || unused != tc.unusedDays || total != tc.totalDay {
				t.Errorf("UnusedShare(%d, %s..%s, %s) = %v, %d/%d days; want %d, %d/%d", tc.paid, tc.start, tc.end, tc.cancel,
					got, unused, total, tc.want, tc.unusedDays, tc.totalDay)
			}
			if got.Amount < 0 || got.Amount > tc.paid {
				t.Errorf("share %v outside 0..%d", got, tc.paid)
			}
		})
	}
}

// FuzzUnusedShare: whatever the dates, the share stays within what was
// paid and never grows as the cancellation comes later.
func FuzzUnusedShare(f *testing.F) {
	f.Add(int64(3000), 0, 30, 14)
	f.Add(int64(1), 0, 365, 400)
	f.Add(int64(99999), 10, 5, 7)
	f.Fuzz(func(t *testing.T, paid int64, startOff, length, cancelOff int) {
		if paid < 0 || paid > maxMoney || length < -400 || length > 400 || startOff < -400 || startOff > 400 || cancelOff < -800 || cancelOff > 800 {
			t.Skip()
		}
		start := d("2028-01-01").AddDate(0, 0, startOff)
		end := start.AddDate(0, 0, length)
		cancel := start.AddDate(0, 0, cancelOff)
		got, unused, total := UnusedShare(Money{paid, "EUR"}, start, end, cancel)
		later, _, _ := UnusedShare(Money{paid, "EUR"}, start, end, cancel.AddDate(0, 0, 1))
		if got.Amount < 0 || got.Amount > paid || unused < 0 || unused > total || later.Amount > got.Amount {
			t.Fatalf("paid %d, %s..%s cancelled %s: %v (%d/%d), a day later %v", paid, FormatDate(start), FormatDate(end), FormatDate(cancel), got, unused, total, later)
		}
	})
}
