package rules

import (
	"testing"
)

func TestParseMoney(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"12", 1200, true}, {"12.5", 1250, true}, {"12.50", 1250, true}, {" 0.07 ", 7, true},
		{"0", 0, true}, {"1000000000", 100000000000, true},
		{"", 0, false}, {"-1", 0, false}, {"1.234", 0, false}, {"1.", 0, false}, {".5", 0, false},
		{"1,50", 0, false}, {"abc", 0, false}, {"1e3", 0, false}, {"+1", 0, false},
		{"1000000000.01", 0, false}, {"99999999999999999999", 0, false},
	} {
		got, err := ParseMoney(tc.in, "EUR")
		if (err == nil) != tc.ok || (tc.ok && got.Amount != tc.want) {
			t.Errorf("ParseMoney(%q) = %v, %v; want %d ok=%v", tc.in, got.Amount, err, tc.want, tc.ok)
		}
	}
	if _, err := ParseMoney("1", "XXX"); err == nil {
		t.Error("unknown currency accepted")
	}
}

// Amounts are kept in the currency's ISO minor units: none for KRW, two
// for IDR (whose prices are written whole).
func TestParseMoneyInMinorUnits(t *testing.T) {
	for _, tc := range []struct {
		in, cur string
		want    int64
		ok      bool
	}{
		{"12900", "KRW", 12900, true}, {"12900.5", "KRW", 0, false}, {"12900.", "KRW", 0, false},
		{"12900", "IDR", 1290000, true}, {"12900.5", "IDR", 1290050, true}, {"12900.505", "IDR", 0, false},
		{"7", "JPY", 7, true},
	} {
		got, err := ParseMoney(tc.in, tc.cur)
		if (err == nil) != tc.ok || (tc.ok && got.Amount != tc.want) {
			t.Errorf("ParseMoney(%q, %s) = %v, %v; want %d ok=%v", tc.in, tc.cur, got.Amount, err, tc.want, tc.ok)
		}
	}
	for _, tc := range []struct {
		m    Money
		want string
	}{{Money{12900, "KRW"}, "12900"}, {Money{1290050, "IDR"}, "12900.50"}, {Money{-5, "KRW"}, "-5"}} {
		if got := tc.m.Decimal(); got != tc.want {
			t.Errorf("%v.Decimal() = %q, want %q", tc.m, got, tc.want)
		}
	}
}

func TestMoneyString(t *testing.T) {
	for _, tc := range []struct {
		m    Money
		want string
	}{
		{Money{1250, "EUR"}, "€12.50"}, {Money{5, "USD"}, "$0.05"}, {Money{0, "EUR"}, "€0.00"},
		{Money{100000, "SEK"}, "1000.00 kr"}, {Money{42, "XYZ"}, "0.42 XYZ"},
		// Negative amounts: one minus sign (U+2212), before the currency sign.
		{Money{-1176, "EUR"}, "\u2212€11.76"}, {Money{-199, "GBP"}, "\u2212£1.99"}, {Money{-5, "USD"}, "\u2212$0.05"},
		{Money{-100000, "SEK"}, "\u22121000.00 kr"}, {Money{-42, "XYZ"}, "\u22120.42 XYZ"},
		{Money{1176, "EUR"}.Negated(), "\u2212€11.76"},
	} {
		if got := tc.m.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.m, got, tc.want)
		}
	}
}

func FuzzParseMoney(f *testing.F) {
	for _, s := range []string{"12", "12.50", "0.07", "", "1.234", "-5", "9999999999.99"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, cur := range []string{"EUR", "KRW", "IDR"} {
			m, err := ParseMoney(s, cur)
			if err != nil {
				continue
			}
			if m.Amount < 0 || m.Amount > MaxMoney {
				t.Fatalf("ParseMoney(%q, %s) = %d out of range", s, cur, m.Amount)
			}
			back, err := ParseMoney(m.Decimal(), cur)
			if err != nil || back != m {
				t.Fatalf("round trip of %q in %s: %v -> %q -> %v, %v", s, cur, m, m.Decimal(), back, err)
			}
		}
	})
}
