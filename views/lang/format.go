package lang

import (
	"context"
	"strconv"
	"strings"
	"time"

	"shop/store/rules"
)

// Each language writes numbers with its own marks: English and Korean
// group thousands with a comma and write a decimal point; Indonesian the
// other way round (12.900,50).
func marks(l Lang) (group, point string) {
	if l == Indonesian {
		return ".", ","
	}
	return ",", "."
}

// Number writes a whole number in the language of ctx: 12,900 or 12.900.
func Number(ctx context.Context, n int64) string { return number(From(ctx), n) }

func number(l Lang, n int64) string {
	group, _ := marks(l)
	neg := n < 0
	if neg {
		n = -n
	}
	digits := strconv.FormatInt(n, 10)
	var b strings.Builder
	if neg {
		b.WriteString("\u2212")
	}
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteString(group)
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Money writes an amount as people of the language of ctx write it in its
// currency: €12.90 (English), ₩12,900 (Korean), Rp12.900 (Indonesian);
// minor digits are shown as the currency is written (none for KRW, none
// for whole IDR), and a negative amount has a typographic minus before the
// sign: −€2.50.
func Money(ctx context.Context, m rules.Money) string { return MoneyIn(From(ctx), m) }

// MoneyIn is Money for a language given outright (a mail).
func MoneyIn(l Lang, m rules.Money) string {
	cur, ok := rules.CurrencyOf(m.Currency)
	if !ok {
		return m.String()
	}
	neg, whole, minor := m.Parts()
	_, point := marks(l)
	s := number(l, whole)
	if cur.Digits > 0 && (cur.Shown > 0 || minor != 0) {
		frac := strconv.FormatInt(minor, 10)
		s += point + strings.Repeat("0", cur.Digits-len(frac)) + frac
	}
	if cur.SymbolAfter {
		s += "\u00a0" + cur.Symbol
	} else {
		s = cur.Symbol + s
	}
	if neg {
		s = "\u2212" + s
	}
	return s
}

var monthsShort = map[Lang][12]string{
	English:    {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"},
	Indonesian: {"Jan", "Feb", "Mar", "Apr", "Mei", "Jun", "Jul", "Agu", "Sep", "Okt", "Nov", "Des"},
}

var monthsLong = map[Lang][12]string{
	English:    {"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"},
	Indonesian: {"Januari", "Februari", "Maret", "April", "Mei", "Juni", "Juli", "Agustus", "September", "Oktober", "November", "Desember"},
}

// Date writes a day in the language of ctx: "22 Nov 2026",
// "2026년 11월 22일", "22 Nov 2026"; "" for none. It writes t's own day:
// put an instant in the shop's zone first.
func Date(ctx context.Context, t time.Time) string { return DateIn(From(ctx), t) }

// DateIn is Date for a language given outright (a mail).
func DateIn(l Lang, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	if l == Korean {
		return t.Format("2006년 1월 2일")
	}
	return strconv.Itoa(t.Day()) + " " + monthsShort[l][t.Month()-1] + " " + strconv.Itoa(t.Year())
}

// DateRange writes the days from one to another, both included, saying
// no more than it must: "28–30 Nov 2026", "28 Nov – 2 Dec 2026",
// "28 Dec 2026 – 3 Jan 2027"; "2026년 11월 28일–30일", "2026년 11월
// 28일 – 12월 2일". One day is that day.
func DateRange(ctx context.Context, from, to time.Time) string {
	return DateRangeIn(From(ctx), from, to)
}

// DateRangeIn is DateRange for a language given outright (a mail).
func DateRangeIn(l Lang, from, to time.Time) string {
	switch {
	case from.IsZero() || to.IsZero():
		return DateIn(l, from) + DateIn(l, to)
	case !to.After(from):
		return DateIn(l, from)
	case from.Year() != to.Year():
		return DateIn(l, from) + " – " + DateIn(l, to)
	}
	sameMonth := from.Month() == to.Month()
	if l == Korean {
		if sameMonth {
			return from.Format("2006년 1월 2일") + "–" + to.Format("2일")
		}
		return from.Format("2006년 1월 2일") + " – " + to.Format("1월 2일")
	}
	if sameMonth {
		return strconv.Itoa(from.Day()) + "–" + DateIn(l, to)
	}
	return strconv.Itoa(from.Day()) + " " + monthsShort[l][from.Month()-1] + " – " + DateIn(l, to)
}

// DateTime writes an instant's day and time with its zone: "22 Nov 2026,
// 02:31 CET", "2026년 11월 22일 02:31 CET", "22 Nov 2026, 02.31 CET"
// (Indonesian writes the time with a dot).
func DateTime(ctx context.Context, t time.Time) string { return DateTimeIn(From(ctx), t) }

// DateTimeIn is DateTime for a language given outright (a mail).
func DateTimeIn(l Lang, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	switch l {
	case Korean:
		return DateIn(l, t) + " " + t.Format("15:04 MST")
	case Indonesian:
		return DateIn(l, t) + ", " + t.Format("15.04 MST")
	}
	return DateIn(l, t) + ", " + t.Format("15:04 MST")
}

// DayMonth writes a day without its year, for a chart's axis: "22 Nov",
// "11월 22일", "22 Nov".
func DayMonth(ctx context.Context, t time.Time) string {
	l := From(ctx)
	if l == Korean {
		return t.Format("1월 2일")
	}
	return strconv.Itoa(t.Day()) + " " + monthsShort[l][t.Month()-1]
}

// Month writes a calendar month: "November 2026", "2026년 11월",
// "November 2026".
func Month(ctx context.Context, t time.Time) string {
	l := From(ctx)
	if l == Korean {
		return t.Format("2006년 1월")
	}
	return monthsLong[l][t.Month()-1] + " " + strconv.Itoa(t.Year())
}
