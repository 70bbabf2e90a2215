package rules

import (
	"fmt"
	"testing"
	"time"
)

func TestUnusedShareIsProRataByDays(t *testing.T) {
	eur := func(c int64) Money { return Money{Amount: c, Currency: "EUR"} }
	for _, tc := range []struct {
		name                 string
		paid                 int64
		start, end, cancel   string
		want                 int64
		unusedDays, totalDay int
	}{
		{"mid month of 30 days", 3000, "2026-04-10", "2026-05-10", "2026-04-24", 1500, 15, 30},
		{"the day the period starts keeps that day", 3100, "2026-01-01", "2026-02-01", "2026-01-01", 3000, 30, 31},
		{"the last day of the period gives nothing back", 3100, "2026-01-01", "2026-02-01", "2026-01-31", 0, 0, 31},
		{"after the period", 3100, "2026-01-01", "2026-02-01", "2026-02-03", 0, 0, 31},
		{"before the period starts, all of it", 3100, "2026-01-01", "2026-02-01", "2025-12-31", 3100, 31, 31},
		{"February of a common year", 2800, "2027-02-01", "2027-03-01", "2027-02-14", 1400, 14, 28},
		{"February of a leap year", 2900, "2028-02-01", "2028-03-01", "2028-02-14", 1500, 15, 29},
		{"leap day itself", 2900, "2028-02-01", "2028-03-01", "2028-02-29", 0, 0, 29},
		{"day 31 clamped: 31 Jan to 28 Feb", 2800, "2026-01-31", "2026-02-28", "2026-02-13", 1400, 14, 28},
		{"month end into a leap February", 2900, "2028-01-31", "2028-02-29", "2028-02-01", 2700, 27, 29},
		{"over a year end", 3100, "2026-12-15", "2027-01-15", "2026-12-31", 1400, 14, 31},
		{"six months over a leap day", 18200, "2028-01-01", "2028-07-01", "2028-03-31", 9100, 91, 182},
		{"rounded down, never up", 1000, "2026-04-01", "2026-05-01", "2026-04-01", 966, 29, 30},
		{"nothing paid", 0, "2026-04-01", "2026-05-01", "2026-04-10", 0, 0, 30},
		{"an empty period", 1000, "2026-04-01", "2026-04-01", "2026-04-01", 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, unused, total := UnusedShare(eur(tc.paid), d(tc.start), d(tc.end), d(tc.cancel))
			if got != eur(tc.want) || unused != tc.unusedDays || total != tc.totalDay {
				t.Errorf("UnusedShare(%d, %s..%s, %s) = %v, %d/%d days; want %d, %d/%d", tc.paid, tc.start, tc.end, tc.cancel,
					got, unused, total, tc.want, tc.unusedDays, tc.totalDay)
			}
			if got.Amount < 0 || got.Amount > tc.paid {
				t.Errorf("share %v outside 0..%d", got, tc.paid)
			}
		})
	}
}

// FuzzUnusedShare: whatever the dates, the share stays within what was
// paid and never grows as the cancellation comes later.
func FuzzUnusedShare(f *testing.F) {
	f.Add(int64(3000), 0, 30, 14)
	f.Add(int64(1), 0, 365, 400)
	f.Add(int64(99999), 10, 5, 7)
	f.Fuzz(func(t *testing.T, paid int64, startOff, length, cancelOff int) {
		if paid < 0 || paid > MaxMoney || length < -400 || length > 400 || startOff < -400 || startOff > 400 || cancelOff < -800 || cancelOff > 800 {
			t.Skip()
		}
		start := d("2028-01-01").AddDate(0, 0, startOff)
		end := start.AddDate(0, 0, length)
		cancel := start.AddDate(0, 0, cancelOff)
		got, unused, total := UnusedShare(Money{paid, "EUR"}, start, end, cancel)
		later, _, _ := UnusedShare(Money{paid, "EUR"}, start, end, cancel.AddDate(0, 0, 1))
		if got.Amount < 0 || got.Amount > paid || unused < 0 || unused > total || later.Amount > got.Amount {
			t.Fatalf("paid %d, %s..%s cancelled %s: %v (%d/%d), a day later %v", paid, FormatDate(start), FormatDate(end), FormatDate(cancel), got, unused, total, later)
		}
	})
}

// The first period, worked by hand: the example, each period
// length, short months, leap years, year ends and the smallest charge.
func TestFirstPeriodChargesTheDaysUpToTheFirstPaymentDay(t *testing.T) {
	money := func(c int64, cur string) Money { return Money{Amount: c, Currency: cur} }
	for _, tc := range []struct {
		name          string
		today         string
		day, months   int
		price         Money // a period's
		share, charge int64
		to, next      string
		days, of      int
		full, free    bool
	}{
		{"the issue's example: €12.90 monthly, day 1, on 28 November", "2026-11-28", 1, 1, money(1290, "EUR"), 129, 129, "2026-11-30", "2026-12-01", 3, 30, false, false},
		{"every 2 months: a share of 1 Oct to 1 Dec", "2026-11-28", 1, 2, money(2580, "EUR"), 126, 126, "2026-11-30", "2026-12-01", 3, 61, false, false},
		{"every 3 months: a share of 1 Sep to 1 Dec", "2026-11-28", 1, 3, money(3870, "EUR"), 127, 127, "2026-11-30", "2026-12-01", 3, 91, false, false},
		{"every 6 months: a share of 1 Jun to 1 Dec", "2026-11-28", 1, 6, money(7740, "EUR"), 126, 126, "2026-11-30", "2026-12-01", 3, 183, false, false},
		{"today is the payment day: a whole period", "2026-12-01", 1, 1, money(1290, "EUR"), 1290, 1290, "2026-12-31", "2027-01-01", 31, 31, true, false},
		{"today is the payment day, every 6 months", "2026-12-01", 1, 6, money(7740, "EUR"), 7740, 7740, "2027-05-31", "2027-06-01", 182, 182, true, false},
		{"the AWS sample: 18 May, day 28", "2026-05-18", 28, 1, money(1299, "EUR"), 433, 433, "2026-05-27", "2026-05-28", 10, 30, false, false},
		{"day 31 in a leap February: one day of 29, free", "2028-02-28", 31, 1, money(1290, "EUR"), 44, 0, "2028-02-28", "2028-02-29", 1, 29, false, true},
		{"day 31 in a leap February, every 3 months", "2028-02-28", 31, 3, money(3870, "EUR"), 42, 0, "2028-02-28", "2028-02-29", 1, 91, false, true},
		{"day 31 in a leap February, at a price that pays", "2028-02-28", 31, 1, money(2900, "EUR"), 100, 100, "2028-02-28", "2028-02-29", 1, 29, false, false},
		{"day 31 on 28 February of a common year is its payment date", "2027-02-28", 31, 1, money(1290, "EUR"), 1290, 1290, "2027-03-30", "2027-03-31", 31, 31, true, false},
		{"day 29 on 28 February of a common year is its payment date", "2027-02-28", 29, 1, money(1290, "EUR"), 1290, 1290, "2027-03-28", "2027-03-29", 29, 29, true, false},
		{"day 30 just before a short February's end", "2027-02-27", 30, 1, money(1290, "EUR"), 44, 0, "2027-02-27", "2027-02-28", 1, 29, false, true},
		{"after day 30 in January: up to 28 February", "2026-01-31", 30, 1, money(1290, "EUR"), 1245, 1245, "2026-02-27", "2026-02-28", 28, 29, false, false},
		{"over the year's end", "2026-12-20", 5, 1, money(1290, "EUR"), 665, 665, "2027-01-04", "2027-01-05", 16, 31, false, false},
		{"the day after the payment day: all but one day", "2026-04-02", 1, 1, money(1290, "EUR"), 1247, 1247, "2026-04-30", "2026-05-01", 29, 30, false, false},
		{"rounded down, never up", "2026-04-02", 1, 1, money(1000, "EUR"), 966, 966, "2026-04-30", "2026-05-01", 29, 30, false, false},
		{"exactly the smallest charge is charged", "2026-11-29", 1, 1, money(1500, "EUR"), 100, 100, "2026-11-30", "2026-12-01", 2, 30, false, false},
		{"a cent below it is free", "2026-11-30", 1, 1, money(1470, "EUR"), 49, 0, "2026-11-30", "2026-12-01", 1, 30, false, true},
		{"pounds: £0.30 is enough", "2026-11-30", 1, 1, money(900, "GBP"), 30, 30, "2026-11-30", "2026-12-01", 1, 30, false, false},
		{"kronor: 3.00 kr at least", "2026-11-30", 1, 1, money(4900, "SEK"), 163, 0, "2026-11-30", "2026-12-01", 1, 30, false, true},
		{"yen: ¥50 at least", "2026-11-30", 1, 1, money(1000, "JPY"), 33, 0, "2026-11-30", "2026-12-01", 1, 30, false, true},
		{"won: whole won, rounded down", "2026-11-30", 1, 1, money(5000, "KRW"), 166, 166, "2026-11-30", "2026-12-01", 1, 30, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := FirstPeriod(d(tc.today), tc.day, tc.months, tc.price)
			want := Proration{Charge: money(tc.charge, tc.price.Currency), Share: money(tc.share, tc.price.Currency),
				From: d(tc.today), To: d(tc.to), Next: d(tc.next), Days: tc.days, Of: tc.of, Months: tc.months, Full: tc.full, Free: tc.free}
			if p != want {
				t.Errorf("FirstPeriod(%s, day %d, %d months, %v)\n got %s\nwant %s", tc.today, tc.day, tc.months, tc.price, prorationString(p), prorationString(want))
			}
		})
	}
}

func prorationString(p Proration) string {
	return fmt.Sprintf("charge %v share %v, %s..%s next %s, %d of %d days, full %v free %v", p.Charge, p.Share,
		FormatDate(p.From), FormatDate(p.To), FormatDate(p.Next), p.Days, p.Of, p.Full, p.Free)
}

// Every payment day 1-31 and every period, subscribing on every day of
// 2027 and 2028 (short months, a leap year, two year ends): the first
// payment date is the first payment date after today, found by walking
// the calendar a day at a time; the period it ends began exactly one
// period earlier; the share is the days' part of the price, rounded down;
// only a payment date pays a whole period; and a later day never costs
// more towards the same payment date.
func TestFirstPeriodOnEveryDayForEveryPaymentDayAndPeriod(t *testing.T) {
	isPaymentDate := func(date time.Time, day int) bool {
		last := Date(date.Year(), date.Month()+1, 0).Day()
		return date.Day() == day || (day > last && date.Day() == last)
	}
	for _, months := range Periods {
		price := Money{Amount: 1290 * int64(months), Currency: "EUR"}
		for day := 1; day <= 31; day++ {
			var before Proration
			for today := d("2027-01-01"); today.Before(d("2029-01-01")); today = today.AddDate(0, 0, 1) {
				p := FirstPeriod(today, day, months, price)
				where := fmt.Sprintf("day %d every %d months, on %s: %s", day, months, FormatDate(today), prorationString(p))
				if p.Full != isPaymentDate(today, day) {
					t.Fatalf("%s: a whole period iff today is a payment date", where)
				}
				if p.From != today || !p.Next.After(today) || p.To != p.Next.AddDate(0, 0, -1) || p.Days != DaysBetween(today, p.Next) {
					t.Fatalf("%s: dates", where)
				}
				if !isPaymentDate(p.Next, day) {
					t.Fatalf("%s: the next payment is not on the payment day", where)
				}
				if p.Full {
					if p.Next != NextBillingDate(today, months, day) || p.Days != p.Of || p.Charge != price || p.Share != price || p.Free || p.Units() != months {
						t.Fatalf("%s: a whole period", where)
					}
					before = p
					continue
				}
				// The first payment date after today, a day at a time.
				walk := today.AddDate(0, 0, 1)
				for !isPaymentDate(walk, day) {
					walk = walk.AddDate(0, 0, 1)
				}
				if p.Next != walk {
					t.Fatalf("%s: the first payment date after today is %s", where, FormatDate(walk))
				}
				// The period ending on it began a period earlier, on a payment date.
				prev := p.Next.AddDate(0, 0, -p.Of)
				if !isPaymentDate(prev, day) || NextBillingDate(prev, months, day) != p.Next || !prev.Before(today) {
					t.Fatalf("%s: the period began on %s", where, FormatDate(prev))
				}
				if p.Of < 28*months || p.Of > 31*months+1 || p.Days < 1 || p.Days >= p.Of || p.Days > 31 {
					t.Fatalf("%s: days out of bounds", where)
				}
				if want := price.Amount * int64(p.Days) / int64(p.Of); p.Share.Amount != want || p.Share.Amount >= price.Amount {
					t.Fatalf("%s: share, want %d", where, want)
				}
				if p.Free != (p.Share.Amount < 50) || (p.Free && p.Charge.Amount != 0) || (!p.Free && p.Charge != p.Share) {
					t.Fatalf("%s: the charge below and above €0.50", where)
				}
				if u := p.Units(); u < 0 || u > 1 || (u == 1) != (!p.Free && 2*months*p.Days >= p.Of) {
					t.Fatalf("%s: %d units", where, u)
				}
				if !before.Full && before.Next == p.Next && p.Share.Amount > before.Share.Amount {
					t.Fatalf("%s: a day later costs more than %v", where, before.Share)
				}
				before = p
			}
		}
	}
}

// FuzzFirstPeriod: whatever the day, period, price and date, the share is
// within the price, a whole period is paid exactly on a payment date, the
// days stay within the period and the first payment is after today.
func FuzzFirstPeriod(f *testing.F) {
	f.Add(0, 1, uint8(0), int64(1290))
	f.Add(789, 31, uint8(2), int64(1))
	f.Add(-4000, 29, uint8(3), int64(MaxMoney))
	codes := Currencies()
	f.Fuzz(func(t *testing.T, offset, day int, pick uint8, price int64) {
		if offset < -20000 || offset > 20000 || !ValidPaymentDay(day) || price < 0 || price > MaxMoney {
			t.Skip()
		}
		months := Periods[int(pick)%len(Periods)]
		cur := codes[int(pick)/len(Periods)%len(codes)]
		today := d("2028-02-29").AddDate(0, 0, offset)
		p := FirstPeriod(today, day, months, Money{price, cur})
		where := fmt.Sprintf("day %d every %d, %d %s on %s: %s", day, months, price, cur, FormatDate(today), prorationString(p))
		payday := today.Equal(BillingDate(today.Year(), today.Month(), day))
		switch {
		case p.Share.Amount < 0 || p.Share.Amount > price || p.Charge.Amount < 0 || p.Charge.Amount > p.Share.Amount:
			t.Fatal(where, ": share outside 0..price")
		case p.Share.Currency != cur || p.Charge.Currency != cur:
			t.Fatal(where, ": currency")
		case p.Full != payday || p.Full && p.Share.Amount != price:
			t.Fatal(where, ": a whole period iff today is a payment date")
		case !p.Next.After(today) || p.Days != DaysBetween(today, p.Next) || p.Days < 1 || p.Days > p.Of || p.Of > 31*months+1:
			t.Fatal(where, ": days")
		case !p.Full && (p.Days >= p.Of || p.Days > 31):
			t.Fatal(where, ": a part of a period")
		case p.Free != (!p.Full && p.Share.Amount < MinimumCharge(cur).Amount):
			t.Fatal(where, ": free iff below the smallest charge")
		case p.Units() < 0 || p.Units() > months:
			t.Fatal(where, ": units")
		}
	})
}
