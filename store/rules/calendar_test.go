package rules

import (
	"testing"
	"time"
)

func d(s string) time.Time {
	t, err := ParseDate(s)
	if err != nil {
		panic(s)
	}
	return t
}

func TestBillingDateClampsToTheMonth(t *testing.T) {
	for _, tc := range []struct {
		year  int
		month time.Month
		day   int
		want  string
	}{
		{2026, time.January, 31, "2026-01-31"},
		{2026, time.February, 31, "2026-02-28"},
		{2028, time.February, 31, "2028-02-29"},
		{2028, time.February, 29, "2028-02-29"},
		{2027, time.February, 29, "2027-02-28"},
		{2026, time.April, 31, "2026-04-30"},
		{2026, time.April, 30, "2026-04-30"},
		{2026, time.December, 1, "2026-12-01"},
		{2026, time.Month(13), 31, "2027-01-31"}, // a month past December is the next year's
		{2100, time.February, 29, "2100-02-28"},  // not a leap year
		{2000, time.February, 30, "2000-02-29"},  // a leap year
	} {
		if got := FormatDate(BillingDate(tc.year, tc.month, tc.day)); got != tc.want {
			t.Errorf("BillingDate(%d, %d, %d) = %s, want %s", tc.year, tc.month, tc.day, got, tc.want)
		}
	}
}

// Every payment day and every period, over the 48 months from one
// 29 February to the next but three: each date is the day or the month's
// last day, each is exactly a period after the one before, and the day
// comes back after short months.
func TestBillingCalendarNeverDrifts(t *testing.T) {
	for _, period := range Periods {
		for day := 1; day <= 31; day++ {
			date := BillingDate(2024, time.February, day)
			leapDays := 0
			for step := 0; step < 48/period; step++ {
				next := NextBillingDate(date, period, day)
				wantMonth := Date(date.Year(), date.Month()+time.Month(period), 1)
				if next.Year() != wantMonth.Year() || next.Month() != wantMonth.Month() {
					t.Fatalf("day %d every %d: after %s came %s, want a date in %s", day, period, FormatDate(date), FormatDate(next), wantMonth.Format("2006-01"))
				}
				if want := min(day, DaysIn(next.Year(), next.Month())); next.Day() != want {
					t.Fatalf("day %d every %d: %s, want day %d", day, period, FormatDate(next), want)
				}
				if next.Month() == time.February && next.Day() == 29 {
					leapDays++
				}
				date = next
			}
			if FormatDate(date) != FormatDate(BillingDate(2028, time.February, day)) {
				t.Fatalf("day %d every %d: 48 months after Feb 2024 is %s", day, period, FormatDate(date))
			}
			if day >= 29 && period == 1 && leapDays != 1 {
				t.Fatalf("day %d: %d February 29ths after 2024's, want 1 (2028)", day, leapDays)
			}
		}
	}
}

func TestDay31BillsTheLastDayAndComesBack(t *testing.T) {
	got := []string{}
	date := BillingDate(2027, time.January, 31)
	for range 6 {
		got = append(got, FormatDate(date))
		date = NextBillingDate(date, 1, 31)
	}
	want := []string{"2027-01-31", "2027-02-28", "2027-03-31", "2027-04-30", "2027-05-31", "2027-06-30"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("day 31 bills %v, want %v", got, want)
		}
	}
}

func TestFirstBillingDateAfter(t *testing.T) {
	for _, tc := range []struct {
		today string
		day   int
		want  string
	}{
		{"2026-05-18", 28, "2026-05-28"},
		{"2026-05-28", 28, "2026-06-28"}, // strictly after today
		{"2026-05-29", 28, "2026-06-28"},
		{"2026-01-31", 31, "2026-02-28"},
		{"2026-02-27", 31, "2026-02-28"},
		{"2026-02-28", 31, "2026-03-31"},
		{"2026-12-31", 5, "2027-01-05"},
	} {
		if got := FormatDate(FirstBillingDateAfter(d(tc.today), tc.day)); got != tc.want {
			t.Errorf("FirstBillingDateAfter(%s, %d) = %s, want %s", tc.today, tc.day, got, tc.want)
		}
	}
}

func TestReminderDate(t *testing.T) {
	for _, tc := range []struct{ payment, today, want string }{
		{"2023-06-28", "2023-05-18", "2023-06-21"}, // the AWS sample
		{"2026-03-03", "2026-02-20", "2026-02-24"},
		{"2026-03-03", "2026-03-01", "2026-03-01"}, // never before today
	} {
		if got := FormatDate(ReminderDate(d(tc.payment), d(tc.today), 7)); got != tc.want {
			t.Errorf("ReminderDate(%s, today %s) = %s, want %s", tc.payment, tc.today, got, tc.want)
		}
	}
}

// The calendar never leaves the month, never goes backwards and never skips
// a period, whatever the start, day and period.
func FuzzBillingCalendar(f *testing.F) {
	f.Add(2024, 1, 31, 1, 60)
	f.Add(2027, 2, 29, 6, 10)
	f.Add(1999, 12, 1, 3, 20)
	f.Fuzz(func(t *testing.T, year, month, day, period, steps int) {
		year, month, day = 1970+abs(year)%8000, 1+abs(month)%12, 1+abs(day)%31
		period, steps = Periods[abs(period)%len(Periods)], abs(steps)%120
		date := BillingDate(year, time.Month(month), day)
		for range steps {
			next := NextBillingDate(date, period, day)
			if !next.After(date) {
				t.Fatalf("%s then %s: went backwards", FormatDate(date), FormatDate(next))
			}
			months := (next.Year()-date.Year())*12 + int(next.Month()) - int(date.Month())
			if months != period {
				t.Fatalf("%s then %s: %d months, want %d", FormatDate(date), FormatDate(next), months, period)
			}
			if next.Day() != min(day, DaysIn(next.Year(), next.Month())) {
				t.Fatalf("day %d: %s", day, FormatDate(next))
			}
			date = next
		}
		after := FirstBillingDateAfter(date, day)
		if !after.After(date) || after.Sub(date) > 62*24*time.Hour {
			t.Fatalf("first billing date after %s: %s", FormatDate(date), FormatDate(after))
		}
	})
}

func abs(n int) int {
	if n < 0 {
		if n == -n { // the smallest int
			return 0
		}
		return -n
	}
	return n
}

func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"2026-02-28", "2026-02-29", "2026-13-01", "26-01-01", "2026-1-1", "0000-01-01", "2026-01-01T00:00:00Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseDate(s)
		if err != nil {
			return
		}
		if FormatDate(got) != s {
			t.Fatalf("ParseDate(%q) = %s: not the same day", s, FormatDate(got))
		}
	})
}
