package store_test

import (
	"testing"

	"shop/store"
)

// Done counts each due subscription once: a payment run's mails go with
// its charges, declines and cancellations; a reminder run's mails are its
// outcome.
func TestRunCountsDone(t *testing.T) {
	for _, c := range []struct {
		what   string
		counts store.RunCounts
		want   int
	}{
		{"payments", store.RunCounts{Due: 10, Charged: 5, Declined: 2, Cancelled: 1, Mailed: 8, Skipped: 1, Failed: 1}, 10},
		{"payments half way", store.RunCounts{Due: 10, Charged: 3, Mailed: 3}, 3},
		{"reminders", store.RunCounts{Due: 10, Mailed: 7, Skipped: 2, Failed: 1}, 10},
		{"nothing yet", store.RunCounts{Due: 4}, 0},
	} {
		if got := c.counts.Done(); got != c.want {
			t.Errorf("%s: Done() = %d, want %d", c.what, got, c.want)
		}
	}
}
