package store

import "time"

// UnusedShare is what a cancellation on `cancelled` gives back of `paid`
// for the period [start, end) (billing dates): pro rata by days, the day of
// cancelling counted as used (the customer had it), rounded down to the
// cent so the refund never exceeds what is left. Cancelling before the
// period starts gives everything back, on or after its end nothing. It
// also returns the unused and the total days, for the words beside it.
func UnusedShare(paid Money, start, end, cancelled time.Time) (share Money, unusedDays, totalDays int) {
	share = Money{Currency: paid.Currency}
	totalDays = daysBetween(start, end)
	if totalDays <= 0 || paid.Amount <= 0 {
		return share, 0, max(totalDays, 0)
	}
	used := daysBetween(start, cancelled) + 1
	unusedDays = min(max(totalDays-used, 0), totalDays)
	if cancelled.Before(start) {
		unusedDays = totalDays
	}
	// Cents × days stays far inside int64 for any amount ParseMoney takes.
	share.Amount = paid.Amount * int64(unusedDays) / int64(totalDays)
	return share, unusedDays, totalDays
}

// daysBetween counts the calendar days from a to b (billing dates, UTC
// midnights, so every day has 24 hours).
func daysBetween(a, b time.Time) int {
	return int(b.Sub(a).Hours() / 24)
}
