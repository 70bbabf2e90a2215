package store_test

import (
	"testing"

	"shop/store"
)

func TestValidVATNumber(t *testing.T) {
	for _, c := range []struct {
		typed string
		want  string // normalized
		ok    bool
	}{
		{"SE556677889901", "SE556677889901", true},
		{"se 5566-7788.9901", "SE556677889901", true},
		{"DE123456789", "DE123456789", true},
		{"ATU12345678", "ATU12345678", true},
		{"NL123456789B01", "NL123456789B01", true},
		{"", "", false},
		{"SE", "SE", false},
		{"556677889901", "556677889901", false},             // no country
		{"S3556677889901", "S3556677889901", false},         // a digit in the country
		{"SEABCDEFGH", "SEABCDEFGH", false},                 // no digit
		{"SE5566778899012345", "SE5566778899012345", false}, // too long
		{"SE55_66", "SE55_66", false},
		{"SE５５６６", "SE５５６６", false}, // wide digits are not digits here
	} {
		n := store.NormalizeVATNumber(c.typed)
		if n != c.want || store.ValidVATNumber(n) != c.ok {
			t.Errorf("%q: normalized %q valid %v, want %q %v", c.typed, n, store.ValidVATNumber(n), c.want, c.ok)
		}
	}
}

func TestSellerCheck(t *testing.T) {
	good := store.Seller{LegalName: "Fika & Field AB", Address: "Hamngatan 12\n\n411 11 Göteborg ", VATNumber: "SE556677889901"}
	if errs := good.Check(); errs != nil {
		t.Fatalf("good seller refused: %v", errs)
	}
	if got := good.AddressLines(); len(got) != 2 || got[1] != "411 11 Göteborg" {
		t.Fatalf("address lines %q", got)
	}
	errs := store.Seller{LegalName: " ", Address: "\n", VATNumber: "123"}.Check()
	if errs["name"] == nil || errs["address"] == nil || errs["vat"] == nil {
		t.Fatalf("empty seller: %v", errs)
	}
}
