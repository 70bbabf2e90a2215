package store

import (
	"testing"

	"shop/store/rules"
)

// Cancelling now after a swap now with a charge gives back the unused
// days at the new line, first from the change's receipt: what was paid
// minus what comes back is the old line's days to the swap plus the new
// line's days since, each rounded down.
func TestSplitCancelAfterSwapGivesBackTheNewLinesDays(t *testing.T) {
	eur := func(c int64) Money { return Money{Amount: c, Currency: "EUR"} }
	for _, tc := range []struct {
		name                         string
		old, new                     int64
		start, end, swap, cancel     string
		owed, fromChange, fromPeriod int64
		unused                       int
	}{
		// €9.90 → €19.80 on 12 Dec: credit €6.06, new share €12.13, charged €6.07.
		{"same day", 990, 1980, "2026-12-01", "2027-01-01", "2026-12-12", "2026-12-12", 1213, 607, 606, 19},
		{"eight days later", 990, 1980, "2026-12-01", "2027-01-01", "2026-12-12", "2026-12-20", 702, 607, 95, 11},
		{"on the last day", 990, 1980, "2026-12-01", "2027-01-01", "2026-12-12", "2026-12-31", 0, 0, 0, 0},
		{"three times the price, a day later", 1000, 3000, "2026-11-01", "2026-12-01", "2026-11-01", "2026-11-02", 2800, 1934, 866, 28},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start, end := d(tc.start), d(tc.end)
			swap, cancel := d(tc.swap), d(tc.cancel)
			q := QuoteSwapNow(eur(tc.old), eur(tc.new), start, end, swap)
			got := splitCancelAfterSwap(eur(tc.new), eur(tc.old), q.Charge, start, end, cancel)
			if got.Owed.Amount != tc.owed || got.FromChange.Amount != tc.fromChange || got.FromPeriod.Amount != tc.fromPeriod || got.UnusedDays != tc.unused {
				t.Fatalf("got %+v, want owed %d = %d from the change + %d from the period, %d days", got, tc.owed, tc.fromChange, tc.fromPeriod, tc.unused)
			}
			paid := tc.old + q.Charge.Amount
			usedOld := tc.old - q.Credit.Amount
			newShareAtCancel, _, _ := rules.UnusedShare(eur(tc.new), start, end, cancel)
			usedNew := q.NewShare.Amount - newShareAtCancel.Amount
			if back := got.FromChange.Amount + got.FromPeriod.Amount; paid-back != usedOld+usedNew {
				t.Fatalf("paid %d − back %d = %d, want the days used: %d old + %d new", paid, back, paid-back, usedOld, usedNew)
			}
		})
	}
}
