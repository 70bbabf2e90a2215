package rules

import (
	"fmt"
	"testing"
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

// FuzzTrialFirstCharge: whatever the date, trial, day, period and price,
// the first charge is on or after the trial's end, within a period's price,
// ends on a payment date, and is a share only when it is on the trial's end.
func FuzzTrialFirstCharge(f *testing.F) {
	f.Add(0, 14, 1, uint8(0), int64(1290))
	f.Add(789, 90, 31, uint8(3), int64(50))
	f.Add(-4000, 1, 29, uint8(2), int64(MaxMoney))
	f.Fuzz(func(t *testing.T, offset, days, day int, pick uint8, price int64) {
		if offset < -20000 || offset > 20000 || !ValidTrialDays(days) || !ValidPaymentDay(day) || price < 0 || price > MaxMoney {
			t.Skip()
		}
		months := Periods[int(pick)%len(Periods)]
		today := d("2028-02-29").AddDate(0, 0, offset)
		p := TrialFirstCharge(today, days, day, months, Money{Amount: price, Currency: "EUR"})
		c := p.First
		where := fmt.Sprintf("%d days, day %d every %d, %d on %s: %s", days, day, months, price, FormatDate(today), prorationString(c))
		switch {
		case p.Ends != today.AddDate(0, 0, days) || c.From.Before(p.Ends):
			t.Fatal(where, ": before the trial's end")
		case c.Charge.Amount < 0 || c.Charge.Amount > price:
			t.Fatal(where, ": outside 0..price")
		case !c.Next.After(c.From) || !c.Next.Equal(BillingDate(c.Next.Year(), c.Next.Month(), day)):
			t.Fatal(where, ": the next payment is not a payment date after it")
		case !c.Full && !c.From.Equal(p.Ends):
			t.Fatal(where, ": a share on another day than the trial's end")
		case c.From.After(p.Ends) && !c.From.Equal(FirstBillingDateAfter(p.Ends, day)):
			t.Fatal(where, ": moved past the first payment date")
		}
	})
}
