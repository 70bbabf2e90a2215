package store

import (
	"fmt"
	"testing"
	"time"

	"shop/store/rules"
)

// Every transition of a subscription adds to the kept totals what it
// changes, and nothing else: the counts now move with the status, the MRR
// with the status, quantity and price, the month's figures with starts,
// cancels, dunning and recovered payments.
func TestSubscriptionTotalsChangeOfEveryTransition(t *testing.T) {
	day := func(s string) time.Time { d, _ := rules.ParseDate(s); return d }
	active := Subscription{ID: "s", Status: SubscriptionActive, MonthlyPrice: Money{Amount: 450, Currency: "EUR"}, Quantity: 2, PeriodMonths: 1,
		LastPaymentDate: day("2026-10-01"), Version: 3}
	with := func(s Subscription, f func(*Subscription)) Subscription { f(&s); return s }
	paused := with(active, func(s *Subscription) { s.Status = SubscriptionPaused })
	pastDue := with(active, func(s *Subscription) { s.Status, s.Attempt = SubscriptionPastDue, 1 })
	lastRetry := with(active, func(s *Subscription) { s.Status, s.Attempt = SubscriptionPastDue, 3 })
	cancelled := func(s Subscription) Subscription {
		return with(s, func(s *Subscription) { s.Status = SubscriptionCancelled })
	}
	cases := []struct {
		name          string
		before, after Subscription
		want          string // each delta, as format gives it
	}{
		{"start", Subscription{}, active, "[EUR now a1 p0 d0 mrr900 | new1 c0 dun0 rec0]"},
		{"start paused (a seeded one)", Subscription{}, paused, "[EUR now a0 p1 d0 mrr0 | new1 c0 dun0 rec0]"},
		{"pause", active, paused, "[EUR now a-1 p1 d0 mrr-900 | new0 c0 dun0 rec0]"},
		{"resume", paused, active, "[EUR now a1 p-1 d0 mrr900 | new0 c0 dun0 rec0]"},
		{"cancel an active one", active, cancelled(active), "[EUR now a-1 p0 d0 mrr-900 | new0 c1 dun0 rec0]"},
		{"cancel a paused one", paused, cancelled(paused), "[EUR now a0 p-1 d0 mrr0 | new0 c1 dun0 rec0]"},
		{"end at period end", with(active, func(s *Subscription) { s.EndsOn = day("2026-11-01") }), cancelled(active),
			"[EUR now a-1 p0 d0 mrr-900 | new0 c1 dun0 rec0]"},
		{"a charge fails: past due", active, pastDue, "[EUR now a-1 p0 d1 mrr-900 | new0 c0 dun0 rec0]"},
		{"a retry fails: still past due", pastDue, with(pastDue, func(s *Subscription) { s.Attempt = 2 }), "[]"},
		{"the last retry fails: cancelled by dunning", lastRetry, with(cancelled(lastRetry), func(s *Subscription) { s.Attempt = 4 }),
			"[EUR now a0 p0 d-1 mrr0 | new0 c1 dun1 rec0]"},
		{"the customer cancels a past-due one: not dunning", pastDue, cancelled(pastDue), "[EUR now a0 p0 d-1 mrr0 | new0 c1 dun0 rec0]"},
		{"paid again after a failure: recovered", pastDue, with(active, func(s *Subscription) { s.LastPaymentDate = day("2026-11-01") }),
			"[EUR now a1 p0 d-1 mrr900 | new0 c0 dun0 rec900]"},
		{"paid on time: nothing", active, with(active, func(s *Subscription) { s.LastPaymentDate = day("2026-11-01") }), "[]"},
		{"the quantity changes", active, with(active, func(s *Subscription) { s.Quantity = 3 }), "[EUR now a0 p0 d0 mrr450 | new0 c0 dun0 rec0]"},
		{"swapped to a dearer product", active, with(active, func(s *Subscription) { s.ProductID, s.MonthlyPrice = "other", Money{Amount: 600, Currency: "EUR"} }),
			"[EUR now a0 p0 d0 mrr300 | new0 c0 dun0 rec0]"},
		{"a price change applied by a payment", with(active, func(s *Subscription) {
			s.NewPrice, s.NewPriceFrom = Money{Amount: 500, Currency: "EUR"}, day("2026-11-01")
		}),
			with(active, func(s *Subscription) {
				s.MonthlyPrice, s.LastPaymentDate = Money{Amount: 500, Currency: "EUR"}, day("2026-11-01")
			}),
			"[EUR now a0 p0 d0 mrr100 | new0 c0 dun0 rec0]"},
		{"a quantity change of a paused one: no MRR", paused, with(paused, func(s *Subscription) { s.Quantity = 5 }), "[]"},
		{"a reminder, a card, a day: nothing", active, with(active, func(s *Subscription) { s.PaymentDay, s.Card.Last4 = 9, "4242" }), "[]"},
		{"another currency counts under its own", Subscription{}, with(active, func(s *Subscription) { s.MonthlyPrice = Money{Amount: 5000, Currency: "SEK"} }),
			"[SEK now a1 p0 d0 mrr10000 | new1 c0 dun0 rec0]"},
		{"a quantity from before quantities is one", Subscription{}, with(active, func(s *Subscription) { s.Quantity = 0 }),
			"[EUR now a1 p0 d0 mrr450 | new1 c0 dun0 rec0]"},
		{"a cancelled one changing: nothing", cancelled(active), with(cancelled(active), func(s *Subscription) { s.Email = "x@example.com" }), "[]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := formatDeltas(subscriptionTotalsChange(c.before, c.after)); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func formatDeltas(ds []subscriptionTotalsDelta) string {
	s := "["
	for i, d := range ds {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s now a%d p%d d%d mrr%d | new%d c%d dun%d rec%d", d.Currency, d.Active, d.Paused, d.PastDue, d.MRR, d.New, d.Cancelled, d.Dunned, d.Recovered)
	}
	return s + "]"
}
