package rules

import "time"

// SwapQuote is what a swap of product or quantity "now" comes to for the
// rest of the period paid, by the one proration rule (prorata.go).
type SwapQuote struct {
	// From and To are the first and last day at the new price: the day
	// of the swap counts as used at the old one (UnusedShare's rule), so
	// From is the day after it.
	From, To time.Time
	// UnusedDays of Days: the period's days left after today, of all.
	UnusedDays, Days int
	// Credit is the unused part of the old period's amount, NewShare the
	// new period's amount for the same days, each rounded down
	// (UnusedShare); Difference is NewShare − Credit.
	Credit, NewShare, Difference Money
	// Charge is the difference taken now (when it is positive and at
	// least the currency's MinimumCharge), Refund what is given back
	// (when it is negative). BelowMinimum: a positive difference too small
	// to charge, so nothing is charged and the swap still applies.
	Charge, Refund Money
	BelowMinimum   bool
}

// QuoteSwapNow is the money of a swap today of a subscription whose paid
// period is [start, end) (payment dates), from a whole period costing
// oldAmount to one costing newAmount (quantity × monthly price × months).
//
// Credit = UnusedShare(oldAmount, start, end, today), NewShare =
// UnusedShare(newAmount, start, end, today): price × unused days / days of
// the period, each rounded down to the minor unit, today counted as used.
// Rounding each down keeps both on the same rule as a refund on
// cancelling; the difference is theirs.
//
// €9.90 a month (1–31 December, 31 days), swapped to €19.80 on 12
// December: 19 days unused; credit €6.06, new share €12.13, charged €6.07.
func QuoteSwapNow(oldAmount, newAmount Money, start, end, today time.Time) SwapQuote {
	q := SwapQuote{To: end.AddDate(0, 0, -1)}
	q.Credit, q.UnusedDays, q.Days = UnusedShare(oldAmount, start, end, today)
	q.NewShare, _, _ = UnusedShare(newAmount, start, end, today)
	q.From = end.AddDate(0, 0, -q.UnusedDays)
	cur := newAmount.Currency
	q.Difference = Money{Amount: q.NewShare.Amount - q.Credit.Amount, Currency: cur}
	q.Charge, q.Refund = Money{Currency: cur}, Money{Currency: cur}
	switch d := q.Difference.Amount; {
	case d >= MinimumCharge(cur).Amount:
		q.Charge.Amount = d
	case d > 0:
		q.BelowMinimum = true
	case d < 0:
		q.Refund.Amount = -d
	}
	return q
}
