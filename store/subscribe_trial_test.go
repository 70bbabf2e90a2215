package store

import (
	"fmt"
	"testing"

	"shop/store/rules"
)

// Every trial length staff may give (0, 1, 14, 30, 90), payment day 1, 15
// and 31, every period, subscribing on every day of 2027 and 2028: the
// trial is [today, today+days); the first charge is on its end (the
// FirstPeriod from it), or, when that share would be free, a whole period
// on the payment date after; it is never below the smallest charge; and a
// subscription of that trial charges exactly that and moves to its next.
func TestTrialFirstChargeOnEveryDay(t *testing.T) {
	for _, days := range []int{0, 1, 14, 30, 90} {
		for _, day := range []int{1, 15, 31} {
			for _, months := range rules.Periods {
				price := Money{Amount: 1290 * int64(months), Currency: "EUR"}
				for today := d("2027-01-01"); today.Before(d("2029-01-01")); today = today.AddDate(0, 0, 1) {
					p := TrialFirstCharge(today, days, day, months, price)
					f := p.First
					where := fmt.Sprintf("%d days, day %d every %d, from %s: ends %s, %s", days, day, months, FormatDate(today), FormatDate(p.Ends), prorationString(f))
					atEnd := rules.FirstPeriod(p.Ends, day, months, price)
					switch {
					case p.Ends != today.AddDate(0, 0, days):
						t.Fatal(where, ": the trial's end")
					case !atEnd.Free && f != atEnd:
						t.Fatal(where, ": the first charge is the first period from the trial's end")
					case atEnd.Free && (f.From != atEnd.Next || !f.Full || f.Charge != price):
						t.Fatal(where, ": a free share moves the first charge to a whole period on the payment date")
					case f.Free || f.Charge.Amount < rules.MinimumCharge("EUR").Amount:
						t.Fatal(where, ": the first charge is below the smallest charge")
					}
					sub := Subscription{MonthlyPrice: Money{Amount: 1290, Currency: "EUR"}, PeriodMonths: months, PaymentDay: day, TrialEnds: p.Ends}
					if sub.AmountFor(f.From) != f.Charge || sub.PeriodEnd(f.From) != f.Next ||
						sub.AmountFor(f.Next) != price || sub.PeriodEnd(f.Next) != rules.NextBillingDate(f.Next, months, day) {
						t.Fatal(where, ": the subscription's payments")
					}
				}
			}
		}
	}
}

// The form's quote of a product with a trial: nothing today, the trial's
// days free, then the first charge and the whole periods after it; a code
// for one payment is taken off that first charge, not off the trial.
func TestQuoteSubscriptionWithATrial(t *testing.T) {
	p := Product{ID: "tea", Subscribable: true, MonthlyPrice: Money{Amount: 1290, Currency: "EUR"}, TrialDays: 14}
	q := QuoteSubscription(d("2026-11-28"), p, 1, 1, nil)
	if q.First.Charge.Amount != 0 || !q.First.Trial || !q.First.Free || q.First.Units() != 0 || q.Trial == nil ||
		FormatDate(q.First.Next) != "2026-12-12" || FormatDate(q.Trial.Ends) != "2026-12-12" ||
		q.Trial.First.Charge.Amount != 832 || FormatDate(q.Trial.First.Next) != "2027-01-01" || q.Then.Amount != 1290 {
		t.Fatalf("quote %+v, trial %+v", q, q.Trial)
	}
	code := &Coupon{Code: "TEA10", Kind: DiscountPercent, Percent: 10, Left: 1}
	q = QuoteSubscriptionWith(d("2026-11-28"), p, 1, 1, nil, code)
	if q.Trial.First.Charge.Amount != 749 || q.Trial.First.Discount.Amount != 83 || q.Then.Amount != 1290 || q.Coupon == nil || q.Coupon.Left != 1 {
		t.Fatalf("with a code for one payment: %+v, trial %+v, coupon %+v", q, q.Trial, q.Coupon)
	}
	p.TrialDays = 0
	if q := QuoteSubscription(d("2026-11-28"), p, 1, 1, nil); q.Trial != nil || q.First.Charge.Amount != 129 {
		t.Fatalf("without a trial: %+v", q)
	}
}

// A day changed during the trial moves its first charge where the new day
// puts it: the trial ending on 12 December with day 13 would charge one
// day's share (€0.43, below the smallest charge), so the first charge is
// the whole period on 13 December; after the trial a change keeps the next
// payment, as always.
func TestChangingTheDayDuringATrialMovesItsFirstCharge(t *testing.T) {
	sub := Subscription{MonthlyPrice: Money{Amount: 1290, Currency: "EUR"}, PeriodMonths: 1, PaymentDay: 1, Status: SubscriptionActive,
		TrialEnds: d("2026-12-12"), NextPaymentDate: d("2026-12-12"), LastPaymentDate: d("2026-11-28")}
	got, err := ChangeDay(13)(sub, d("2026-11-30"), 7)
	if err != nil || FormatDate(got.NextPaymentDate) != "2026-12-13" || got.AmountFor(got.NextPaymentDate).Amount != 1290 {
		t.Fatalf("day 13 in the trial: next %s of %v, %v", FormatDate(got.NextPaymentDate), got.AmountFor(got.NextPaymentDate), err)
	}
	got, err = ChangeDay(20)(sub, d("2026-11-30"), 7)
	if err != nil || FormatDate(got.NextPaymentDate) != "2026-12-12" || got.AmountFor(got.NextPaymentDate).Amount != 1290*8/30 {
		t.Fatalf("day 20 in the trial: next %s of %v, %v", FormatDate(got.NextPaymentDate), got.AmountFor(got.NextPaymentDate), err)
	}
	paid := sub
	paid.NextPaymentDate, paid.LastPaymentDate = d("2027-01-01"), d("2026-12-12")
	if got, _ := ChangeDay(13)(paid, d("2026-12-20"), 7); FormatDate(got.NextPaymentDate) != "2027-01-01" {
		t.Fatalf("after the trial the next payment moved to %s", FormatDate(got.NextPaymentDate))
	}
}
