package carrier_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"shop/store/carrier"
)

func TestCheck(t *testing.T) {
	cases := []struct {
		name, carrier, typed, want string
		err                        error
	}{
		{"PostNord S10", "postnord", "rr 123 456 785 se", "RR123456785SE", nil},
		{"PostNord S10 bad check digit", "postnord", "RR123456784SE", "", carrier.ErrCheckDigit},
		{"PostNord SSCC", "postnord", "00370712345678901234", "00370712345678901234", nil},
		{"PostNord too short", "postnord", "12345", "", carrier.ErrWrongFormat},
		{"DHL Express waybill", "dhl", "1234567890", "1234567890", nil},
		{"DHL parcel JJD", "dhl", "jjd0123456789012", "JJD0123456789012", nil},
		{"DHL letters", "dhl", "ABCDEFGHIJ", "", carrier.ErrWrongFormat},
		{"UPS", "ups", "1Z 999 AA1 01 2345 6784", "1Z999AA10123456784", nil},
		{"UPS bad check digit", "ups", "1Z999AA10123456785", "", carrier.ErrCheckDigit},
		{"UPS not 1Z", "ups", "2Z999AA10123456784", "", carrier.ErrWrongFormat},
		{"DPD", "dpd", "0123-4567-8901-23", "01234567890123", nil},
		{"DPD with letter", "dpd", "01234567890123A", "01234567890123A", nil},
		{"DPD 13 digits", "dpd", "0123456789012", "", carrier.ErrWrongFormat},
		{"Bring S10", "bring", "CS123456785NO", "CS123456785NO", nil},
		{"Bring 17 digits", "bring", "70438101234567890", "70438101234567890", nil},
		{"GLS 11 digits", "gls", "12345678901", "12345678901", nil},
		{"GLS track id", "gls", "zb9xgp1k", "ZB9XGP1K", nil},
		{"Other keeps dashes", "other", " ab-1234 ", "AB-1234", nil},
		{"Other too short", "other", "ab", "", nil},
		{"Other odd characters", "other", "ab<script>", "", nil},
		{"empty", "ups", "   ", "", carrier.ErrNoNumber},
		{"unknown carrier", "pigeon", "1234", "", carrier.ErrNoCarrier},
		{"no carrier", "", "1234", "", carrier.ErrNoCarrier},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := carrier.Check(tc.carrier, tc.typed)
			if tc.want == "" {
				if err == nil {
					t.Fatalf("Check(%q, %q) = %q, want an error", tc.carrier, tc.typed, got)
				}
				if tc.err != nil && !errors.Is(err, tc.err) {
					t.Fatalf("Check(%q, %q) error %v, want %v", tc.carrier, tc.typed, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Check(%q, %q) = %q, %v; want %q", tc.carrier, tc.typed, got, err, tc.want)
			}
		})
	}
}

func TestTrackingURL(t *testing.T) {
	for _, c := range carrier.All() {
		u := carrier.TrackingURL(c.ID, "RR123456785SE")
		if c.ID == carrier.Other {
			if u != "" {
				t.Errorf("Other links to %q, want no link", u)
			}
			continue
		}
		p, err := url.Parse(u)
		if err != nil || p.Scheme != "https" || !strings.Contains(u, "RR123456785SE") {
			t.Errorf("%s: tracking URL %q is not an https link carrying the number", c.Name, u)
		}
	}
	if u := carrier.TrackingURL("ups", ""); u != "" {
		t.Errorf("no number links to %q", u)
	}
	if u := carrier.TrackingURL("pigeon", "1234"); u != "" {
		t.Errorf("an unknown carrier links to %q", u)
	}
}

// FuzzCheck: whatever is typed, Check never panics, and what it accepts is
// a clean number that checks again as itself and links safely.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"RR123456785SE", "1Z999AA10123456784", "00370712345678901234", "JJD0123456789012", "ab-12", "", "ä ö", "1Z\x00"} {
		for _, c := range carrier.All() {
			f.Add(c.ID, s)
		}
	}
	f.Fuzz(func(t *testing.T, id, typed string) {
		n, err := carrier.Check(id, typed)
		if err != nil {
			return
		}
		if n == "" || strings.ContainsAny(n, " <>\"'&?#/") {
			t.Fatalf("Check(%q, %q) accepted %q", id, typed, n)
		}
		again, err := carrier.Check(id, n)
		if err != nil || again != n {
			t.Fatalf("Check(%q, %q) = %q, but that checks as %q, %v", id, typed, n, again, err)
		}
		if u := carrier.TrackingURL(id, n); u != "" {
			p, err := url.Parse(u)
			if err != nil || p.Scheme != "https" || p.Host == "" {
				t.Fatalf("tracking URL %q for %q", u, n)
			}
		}
	})
}
