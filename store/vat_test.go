package store_test

import (
	"fmt"
	"strings"
	"testing"

	"shop/store"
	"shop/store/rules"
)

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

func TestParseBookSeries(t *testing.T) {
	for in, want := range map[string]string{"": "", "A,B": "A B", " A , BC ": "A BC"} {
		got, err := store.ParseBookSeries(in)
		if err != nil || strings.Join(got, " ") != want {
			t.Errorf("ParseBookSeries(%q) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{"a", "A,A", "ABCD", "A,", "A-1"} {
		if _, err := store.ParseBookSeries(in); err == nil {
			t.Errorf("ParseBookSeries(%q) took it", in)
		}
	}
}
