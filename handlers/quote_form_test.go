package handlers

import (
	"time"

	"testing"

	"shop/store"
	"shop/store/rules"
	"shop/views"
)

// TestKeptQuotesAreWhatQuotingMakes: a subscribe form's quote, kept or
// made, is store.QuoteSubscriptionShipped's for its values, on two days, with
// and without a trial, a trial taken, a delivery and a scheduled price.
func TestKeptQuotesAreWhatQuotingMakes(t *testing.T) {
	day1, _ := rules.ParseDate("2026-11-30")
	day2, _ := rules.ParseDate("2026-12-01")
	effective, _ := rules.ParseDate("2027-01-15")
	eur := func(cents int64) store.Money { return store.Money{Amount: cents, Currency: "EUR"} }
	change := &store.PriceChange{ProductID: "cf-light", Old: eur(1290), New: eur(1490), EffectiveOn: effective}
	zone := &store.ShippingZone{ID: "eu", Name: "EU", Countries: []string{"SE"}, Price: eur(490), DaysMin: 2, DaysMax: 4}
	for _, tc := range []struct {
		name       string
		trialDays  int
		trialTaken bool
		delivery   *store.SubscribeDelivery
		change     *store.PriceChange
	}{
		{name: "plain"},
		{name: "trial", trialDays: 14},
		{name: "trial taken", trialDays: 14, trialTaken: true},
		{name: "delivery", delivery: &store.SubscribeDelivery{To: store.Address{Country: "SE"}, Zone: zone}},
		{name: "price change", change: change},
	} {
		for _, today := range []time.Time{day1, day2, day1} {
			for _, months := range []int{1, 3} {
				p := store.Product{ID: "cf-light", Subscribable: true, MonthlyPrice: eur(1290), TrialDays: tc.trialDays}
				f := &views.SubscribeForm{Product: p, TrialTaken: tc.trialTaken, Delivery: tc.delivery}
				quoteForm(f, today, 28, months, true, tc.change)
				if tc.trialTaken {
					p.TrialDays = 0
				}
				want := store.QuoteSubscriptionShipped(today, p, 28, months, tc.change, nil, tc.delivery.PeriodRate(p.MonthlyPrice, months))
				if f.Quote == nil || *f.Quote != want && !sameTrial(*f.Quote, want) {
					t.Fatalf("%s, %s, %d months: quote %+v, want %+v", tc.name, rules.FormatDate(today), months, f.Quote, want)
				}
			}
		}
	}
}

// sameTrial: two quotes equal but for their Trial pointers, which point at
// equal trials.
func sameTrial(a, b store.SubscribeQuote) bool {
	if a.Trial == nil || b.Trial == nil || *a.Trial != *b.Trial {
		return false
	}
	a.Trial, b.Trial = nil, nil
	return a == b
}
