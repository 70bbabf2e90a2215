package store

import (
	"fmt"
	"testing"

	"shop/store/rules"
)

// The form's quote is the charge's: the first days at today's price, then
// the first whole period at the price of its day, a scheduled price from
// its day on.
func TestQuoteSubscriptionTakesAScheduledPriceOnItsDay(t *testing.T) {
	tea := Product{ID: "tea", Subscribable: true, MonthlyPrice: Money{Amount: 1290, Currency: "EUR"}}
	change := func(on string, applied bool) *PriceChange {
		c := &PriceChange{ProductID: "tea", Old: Money{Amount: 1290, Currency: "EUR"}, New: Money{Amount: 1390, Currency: "EUR"}, EffectiveOn: d(on)}
		if applied {
			c.AppliedOn = d(on)
		}
		return c
	}
	for _, tc := range []struct {
		name     string
		change   *PriceChange
		months   int
		then     int64
		newPrice string
	}{
		{"none scheduled", nil, 1, 1290, ""},
		{"on the first payment date", change("2026-12-01", false), 1, 1390, "2026-12-01"},
		{"on the first payment date, every 3 months", change("2026-12-01", false), 3, 3 * 1390, "2026-12-01"},
		{"after it", change("2026-12-15", false), 1, 1290, "2026-12-15"},
		{"applied already: the product's price is the new one", change("2026-11-01", true), 1, 1290, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := QuoteSubscription(d("2026-11-28"), tea, 1, tc.months, tc.change)
			if want := rules.FirstPeriod(d("2026-11-28"), 1, tc.months, Money{Amount: 1290 * int64(tc.months), Currency: "EUR"}); q.First != want {
				t.Errorf("first period %s, want %s", prorationString(q.First), prorationString(want))
			}
			if q.Then != (Money{Amount: tc.then, Currency: "EUR"}) || FormatDate(q.NewPriceFrom) != tc.newPrice {
				t.Errorf("then %v, new price from %q; want %d from %q", q.Then, FormatDate(q.NewPriceFrom), tc.then, tc.newPrice)
			}
		})
	}
}

func prorationString(p rules.Proration) string {
	return fmt.Sprintf("charge %v share %v, %s..%s next %s, %d of %d days, full %v free %v", p.Charge, p.Share,
		FormatDate(p.From), FormatDate(p.To), FormatDate(p.Next), p.Days, p.Of, p.Full, p.Free)
}
