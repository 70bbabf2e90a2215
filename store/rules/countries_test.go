package rules_test

import (
	"testing"

	"shop/store/rules"
)

// CountryCode reads a code in either case, a name as the list spells it
// in any case and with spaces around, and nothing else.
func TestCountryCode(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SE", "SE"},
		{"se", "SE"},
		{" de ", "DE"},
		{"Sweden", "SE"},
		{"sweden", "SE"},
		{"  SWEDEN ", "SE"},
		{"Åland Islands", "AX"},
		{"åland islands", "AX"},
		{"Virgin Islands, U.S.", "VI"},
		{"Zimbabwe", "ZW"},
		{"", ""},
		{"XX", ""},
		{"Swedenn", ""},
		{"Göteborg", ""},
	} {
		if got := rules.CountryCode(tc.in); got != tc.want {
			t.Errorf("CountryCode(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// Every country of the list, by its name and its code.
	for _, c := range rules.Countries {
		if got := rules.CountryCode(c.Name); got != c.Code {
			t.Errorf("CountryCode(%q) = %q, want %q", c.Name, got, c.Code)
		}
		if got := rules.CountryCode(c.Code); got != c.Code {
			t.Errorf("CountryCode(%q) = %q, want %q", c.Code, got, c.Code)
		}
	}
}
