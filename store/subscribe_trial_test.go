package store

import (
	"fmt"
	"testing"

	"shop/store/rules"
)

// The first charge after a trial is the first period of a subscriber who
// subscribed on the trial's last day + 1: the share up to the payment
// date, a whole period when the trial ends on one, and, when the share is
// below the smallest charge, a whole period on the payment date after.
func TestTrialFirstChargeIsTheFirstPeriodFromTheTrialsEnd(t *testing.T) {
	eur := func(a int64) Money { return Money{Amount: a, Currency: "EUR"} }
	cases := []struct {
		name                 string
		today                string
		days, day, months    int
		ends, charge, from   string
		to, next             string
		amount               int64
		full                 bool
		chargeDays, chargeOf int
	}{
		{"two weeks, day 1, monthly", "2026-11-28", 14, 1, 1, "2026-12-12", "2026-12-12", "2026-12-12", "2026-12-31", "2027-01-01", 832, false, 20, 31},
		{"no trial is the plain first period", "2026-11-28", 0, 1, 1, "2026-11-28", "2026-11-28", "2026-11-28", "2026-11-30", "2026-12-01", 129, false, 3, 30},
		{"a trial ending on the payment day pays a whole period then", "2026-11-28", 3, 1, 1, "2026-12-01", "2026-12-01", "2026-12-01", "2026-12-31", "2027-01-01", 1290, true, 31, 31},
		{"a share below €0.50 is free: a whole period on the payment day", "2026-11-28", 2, 1, 1, "2026-11-30", "2026-12-01", "2026-12-01", "2026-12-31", "2027-01-01", 1290, true, 31, 31},
		{"one day", "2026-11-28", 1, 15, 1, "2026-11-29", "2026-11-29", "2026-11-29", "2026-12-14", "2026-12-15", 688, false, 16, 30},
		{"thirty days, day 15, every 2 months", "2026-11-28", 30, 15, 2, "2026-12-28", "2026-12-28", "2026-12-28", "2027-01-14", "2027-01-15", 761, false, 18, 61},
		{"ninety days, day 31, every 6 months: February's last day", "2026-11-28", 90, 31, 6, "2027-02-26", "2027-02-26", "2027-02-26", "2027-02-27", "2027-02-28", 85, false, 2, 181},
		{"leap year, day 15, every 3 months", "2028-01-20", 30, 15, 3, "2028-02-19", "2028-02-19", "2028-02-19", "2028-03-14", "2028-03-15", 1063, false, 25, 91},
		{"leap year, day 31 lands on 29 February", "2028-02-01", 28, 31, 1, "2028-02-29", "2028-02-29", "2028-02-29", "2028-03-30", "2028-03-31", 1290, true, 31, 31},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := TrialFirstCharge(d(c.today), c.days, c.day, c.months, eur(1290*int64(c.months)))
			f := p.First
			got := fmt.Sprintf("ends %s, %d on %s for %s..%s, next %s, full %v, %d of %d", FormatDate(p.Ends), f.Charge.Amount, FormatDate(f.From),
				FormatDate(f.From), FormatDate(f.To), FormatDate(f.Next), f.Full, f.Days, f.Of)
			want := fmt.Sprintf("ends %s, %d on %s for %s..%s, next %s, full %v, %d of %d", c.ends, c.amount, c.charge, c.from, c.to, c.next, c.full,
				c.chargeDays, c.chargeOf)
			if got != want {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
		})
	}
}

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

// FuzzTrialFirstCharge: whatever the date, trial, day, period and price,
// the first charge is on or after the trial's end, within a period's price,
// ends on a payment date, and is a share only when it is on the trial's end.
func FuzzTrialFirstCharge(f *testing.F) {
	f.Add(0, 14, 1, uint8(0), int64(1290))
	f.Add(789, 90, 31, uint8(3), int64(50))
	f.Add(-4000, 1, 29, uint8(2), int64(rules.MaxMoney))
	f.Fuzz(func(t *testing.T, offset, days, day int, pick uint8, price int64) {
		if offset < -20000 || offset > 20000 || !ValidTrialDays(days) || !rules.ValidPaymentDay(day) || price < 0 || price > rules.MaxMoney {
			t.Skip()
		}
		months := rules.Periods[int(pick)%len(rules.Periods)]
		today := d("2028-02-29").AddDate(0, 0, offset)
		p := TrialFirstCharge(today, days, day, months, Money{Amount: price, Currency: "EUR"})
		c := p.First
		where := fmt.Sprintf("%d days, day %d every %d, %d on %s: %s", days, day, months, price, FormatDate(today), prorationString(c))
		switch {
		case p.Ends != today.AddDate(0, 0, days) || c.From.Before(p.Ends):
			t.Fatal(where, ": before the trial's end")
		case c.Charge.Amount < 0 || c.Charge.Amount > price:
			t.Fatal(where, ": outside 0..price")
		case !c.Next.After(c.From) || !c.Next.Equal(rules.BillingDate(c.Next.Year(), c.Next.Month(), day)):
			t.Fatal(where, ": the next payment is not a payment date after it")
		case !c.Full && !c.From.Equal(p.Ends):
			t.Fatal(where, ": a share on another day than the trial's end")
		case c.From.After(p.Ends) && !c.From.Equal(rules.FirstBillingDateAfter(p.Ends, day)):
			t.Fatal(where, ": moved past the first payment date")
		}
	})
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
