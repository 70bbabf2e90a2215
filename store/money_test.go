package store

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
		m, err := ParseMoney(s, "EUR")
		if err != nil {
			return
		}
		if m.Amount < 0 || m.Amount > maxMoney {
			t.Fatalf("ParseMoney(%q) = %d out of range", s, m.Amount)
		}
		back, err := ParseMoney(m.Decimal(), "EUR")
		if err != nil || back != m {
			t.Fatalf("round trip of %q: %v -> %q -> %v, %v", s, m, m.Decimal(), back, err)
		}
	})
}
