package rules

import "testing"

// The money of a swap "now": the unused part of the paid period credited,
// the new price for the same days, the difference charged or given back;
// each share rounded down, the day of the swap counted as used.
func TestQuoteSwapNowCreditsTheUnusedDays(t *testing.T) {
	eur := func(c int64) Money { return Money{Amount: c, Currency: "EUR"} }
	for _, tc := range []struct {
		name                          string
		old, new                      int64
		start, end, today             string
		unused, days                  int
		credit, share, charge, refund int64
		belowMinimum                  bool
		from                          string
	}{
		{"1 month, twice the price", 990, 1980, "2026-12-01", "2027-01-01", "2026-12-12", 19, 31, 606, 1213, 607, 0, false, "2026-12-13"},
		{"1 month, half the price: refunded", 1980, 990, "2026-11-01", "2026-12-01", "2026-11-11", 19, 30, 1254, 627, 0, 627, false, "2026-11-12"},
		{"2 months, twice the quantity", 1800, 3600, "2026-11-15", "2027-01-15", "2026-12-01", 44, 61, 1298, 2596, 1298, 0, false, "2026-12-02"},
		{"3 months from day 31, cheaper", 3600, 1350, "2027-01-31", "2027-04-30", "2027-02-28", 60, 89, 2426, 910, 0, 1516, false, "2027-03-01"},
		{"6 months over a leap day, dearer", 5400, 5940, "2028-01-01", "2028-07-01", "2028-03-31", 91, 182, 2700, 2970, 270, 0, false, "2028-04-01"},
		{"6 months on its first day", 5400, 10800, "2026-06-01", "2026-12-01", "2026-06-01", 182, 183, 5370, 10740, 5370, 0, false, "2026-06-02"},
		{"a difference below the minimum is not charged", 990, 1000, "2026-11-01", "2026-12-01", "2026-11-20", 10, 30, 330, 333, 0, 0, true, "2026-11-21"},
		{"the last day: nothing left to swap", 990, 1980, "2026-11-01", "2026-12-01", "2026-11-30", 0, 30, 0, 0, 0, 0, false, "2026-12-01"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := QuoteSwapNow(eur(tc.old), eur(tc.new), d(tc.start), d(tc.end), d(tc.today))
			if q.UnusedDays != tc.unused || q.Days != tc.days || q.Credit != eur(tc.credit) || q.NewShare != eur(tc.share) ||
				q.Charge != eur(tc.charge) || q.Refund != eur(tc.refund) || q.BelowMinimum != tc.belowMinimum {
				t.Fatalf("got %d/%d days, credit %v, share %v, charge %v, refund %v, below %v; want %d/%d, %d, %d, %d, %d, %v",
					q.UnusedDays, q.Days, q.Credit, q.NewShare, q.Charge, q.Refund, q.BelowMinimum,
					tc.unused, tc.days, tc.credit, tc.share, tc.charge, tc.refund, tc.belowMinimum)
			}
			if q.Difference.Amount != tc.share-tc.credit || !q.From.Equal(d(tc.from)) || !q.To.Equal(d(tc.end).AddDate(0, 0, -1)) {
				t.Fatalf("difference %v, days %s..%s", q.Difference, FormatDate(q.From), FormatDate(q.To))
			}
			// Never more credit than the old period's amount, nor a charge
			// beyond the new one.
			if q.Credit.Amount > tc.old || q.Charge.Amount > tc.new {
				t.Fatalf("credit %v of %d, charge %v of %d", q.Credit, tc.old, q.Charge, tc.new)
			}
		})
	}
}
