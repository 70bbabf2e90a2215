package rules_test

import (
	"fmt"
	"strings"
	"testing"

	"shop/store/rules"
)

func eur(c int64) rules.Money { return rules.Money{Amount: c, Currency: "EUR"} }

func taxed(rate rules.VATRate, cents int64) rules.Taxed {
	return rules.Taxed{Rate: rate, Gross: eur(cents)}
}

func vatString(lines []rules.VATLine) string {
	var parts []string
	for _, l := range lines {
		parts = append(parts, fmt.Sprintf("%s: net %d tax %d gross %d", l.Rate, l.Net.Amount, l.Tax.Amount, l.Gross.Amount))
	}
	return strings.Join(parts, "; ")
}

func TestVATBreakdown(t *testing.T) {
	for _, tc := range []struct {
		name     string
		amounts  []rules.Taxed
		discount int64
		want     string
	}{
		{"nothing", nil, 0, ""},
		{"one line at 25 %", []rules.Taxed{taxed(2500, 12500)}, 0, "25 %: net 10000 tax 2500 gross 12500"},
		{"rounds half up", []rules.Taxed{taxed(2500, 1)}, 0, "25 %: net 1 tax 0 gross 1"},
		{"12 % of 12.90", []rules.Taxed{taxed(1200, 1290)}, 0, "12 %: net 1152 tax 138 gross 1290"},
		{"6 % of 19.90", []rules.Taxed{taxed(600, 1990)}, 0, "6 %: net 1877 tax 113 gross 1990"},
		{"lines of one rate are rounded together", []rules.Taxed{taxed(2500, 1), taxed(2500, 1), taxed(2500, 1)}, 0,
			"25 %: net 2 tax 1 gross 3"},
		{"three rates, highest first", []rules.Taxed{taxed(600, 1990), taxed(2500, 1890), taxed(1200, 2580)}, 0,
			"25 %: net 1512 tax 378 gross 1890; 12 %: net 2304 tax 276 gross 2580; 6 %: net 1877 tax 113 gross 1990"},
		{"a discount is shared in proportion", []rules.Taxed{taxed(2500, 3000), taxed(600, 1000)}, 400,
			"25 %: net 2160 tax 540 gross 2700; 6 %: net 849 tax 51 gross 900"},
		{"the discount's odd cent goes to the largest remainder", []rules.Taxed{taxed(2500, 200), taxed(1200, 100)}, 100,
			"25 %: net 106 tax 27 gross 133; 12 %: net 60 tax 7 gross 67"},
		{"on a tie, to the highest rate", []rules.Taxed{taxed(2500, 100), taxed(1200, 100), taxed(600, 100)}, 100,
			"25 %: net 53 tax 13 gross 66; 12 %: net 60 tax 7 gross 67; 6 %: net 63 tax 4 gross 67"},
		{"a discount of everything", []rules.Taxed{taxed(2500, 500), taxed(600, 500)}, 1000,
			"25 %: net 0 tax 0 gross 0; 6 %: net 0 tax 0 gross 0"},
		{"a discount above the total is the total", []rules.Taxed{taxed(2500, 500)}, 9999, "25 %: net 0 tax 0 gross 0"},
		{"zero rate", []rules.Taxed{taxed(0, 999)}, 0, "0 %: net 999 tax 0 gross 999"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := rules.VATBreakdown(tc.amounts, eur(tc.discount))
			if s := vatString(got); s != tc.want {
				t.Errorf("got  %s\nwant %s", s, tc.want)
			}
			// The gross of the rates is what was paid, to the cent.
			var paid, sum int64
			for _, a := range tc.amounts {
				paid += a.Gross.Amount
			}
			for _, l := range got {
				sum += l.Gross.Amount
				if l.Net.Amount+l.Tax.Amount != l.Gross.Amount || l.Tax.Amount < 0 {
					t.Errorf("%s: net %d + tax %d is not gross %d", l.Rate, l.Net.Amount, l.Tax.Amount, l.Gross.Amount)
				}
			}
			if want := max(paid-tc.discount, 0); len(tc.amounts) > 0 && sum != want {
				t.Errorf("the rates' gross adds up to %d, paid %d", sum, want)
			}
		})
	}
}

func TestVATRates(t *testing.T) {
	def := rules.DefaultVATRates()
	for cat, want := range map[string]rules.VATRate{"books": 600, "coffee": 1200, "kitchen": 2500, "": 2500} {
		if got := def.Of(cat); got != want {
			t.Errorf("default rate of %q: %s, want %s", cat, got, want)
		}
	}
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"25,coffee=12,books=6", "25,books=6,coffee=12", true},
		{" 25 , books = 6 ", "25,books=6", true},
		{"12.5", "12.5", true},
		{"0,export=0", "0,export=0", true},
		{"", "", false},
		{"abc", "", false},
		{"25,books", "", false},
		{"25,Books=6", "", false},
		{"25,books=6,books=12", "", false},
		{"101", "", false},
		{"25,books=-6", "", false},
		{"25,books=6.125", "", false},
	} {
		got, err := rules.ParseVATRates(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("ParseVATRates(%q): %v, want ok %v", tc.in, err, tc.ok)
			continue
		}
		if tc.ok && got.String() != tc.want {
			t.Errorf("ParseVATRates(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
	if got := rules.VATRate(1250).String(); got != "12.5 %" {
		t.Errorf("12.5 %% reads %q", got)
	}
}

// Whatever is typed, the parser answers without panicking, and what it
// accepts reads back the same.
func FuzzParseVATRates(f *testing.F) {
	for _, s := range []string{"25,coffee=12,books=6", "12.5", "", "25,,", "25,a=", "=6", "25,books=6,books=6", "1e3", "25,x=99.99"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := rules.ParseVATRates(s)
		if err != nil {
			return
		}
		if v.Standard < 0 || v.Standard > 10000 {
			t.Fatalf("%q: standard rate %d", s, v.Standard)
		}
		again, err := rules.ParseVATRates(v.String())
		if err != nil || again.String() != v.String() {
			t.Fatalf("%q reads as %s, which reads back as %s (%v)", s, v, again, err)
		}
	})
}
