package views

import (
	"bytes"
	"strings"
	"testing"

	"shop/views/lang"
)

// The add-to-cart form's kept fields are what rendering them makes, in
// every language, opened, sold out, refused and after an add; and the kept
// ones hold nothing of the customer's: not their token, not what they
// typed or added.
func TestKeptAddToCartFieldsAreWhatRenderingMakes(t *testing.T) {
	opened := AddToCart{ProductID: "cf-light", Quantity: "1", CSRF: "the-customers-token", Available: 52}
	variants := map[string]AddToCart{
		"opened":   opened,
		"sold out": {ProductID: "cf-light", Quantity: "1", CSRF: "the-customers-token"},
		"refused":  {ProductID: "cf-light", Quantity: "1000 <b>", CSRF: "the-customers-token", Available: 52, Error: "A whole number from 1 to 99"},
		"added":    {ProductID: "cf-light", Quantity: "1", CSRF: "the-customers-token", Available: 52, Added: "2 × Hand Grinder", CartUnits: 3},
	}
	for _, l := range lang.All {
		for name, a := range variants {
			kept, rendered := renderBoth(t, l, AddToCartForm(a))
			if kept != rendered {
				t.Fatalf("%s, %s: the kept form differs from the rendered one:\n%s\n%s", l, name, kept, rendered)
			}
			if !strings.Contains(kept, a.CSRF) {
				t.Fatalf("%s, %s: the form lacks the customer's token:\n%s", l, name, kept)
			}
		}
	}
	parts := keptOf(addToCartFieldSets)
	if len(parts) == 0 {
		t.Fatal("no fields were kept")
	}
	for _, html := range parts {
		for _, own := range []string{opened.CSRF, "1000", "Hand Grinder"} {
			if bytes.Contains(html, []byte(own)) {
				t.Fatalf("kept fields hold %q:\n%s", own, html)
			}
		}
	}
}
