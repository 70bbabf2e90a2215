package rules

import "testing"

func TestSplitTender(t *testing.T) {
	eur := func(c int64) Money { return Money{c, "EUR"} }
	for _, tc := range []struct {
		name                               string
		subtotal, discount, shipping, gift int64
		want                               Tender
	}{
		{"card only", 1000, 0, 0, 0, Tender{eur(1000), eur(0), eur(0), eur(1000), eur(0), eur(1000)}},
		{"gift card pays part", 1000, 0, 0, 300, Tender{eur(1000), eur(0), eur(0), eur(1000), eur(300), eur(700)}},
		{"gift card pays all", 1000, 0, 0, 5000, Tender{eur(1000), eur(0), eur(0), eur(1000), eur(1000), eur(0)}},
		{"discount then gift then card", 1000, 200, 0, 300, Tender{eur(1000), eur(200), eur(0), eur(800), eur(300), eur(500)}},
		{"discount larger than subtotal", 1000, 1500, 0, 300, Tender{eur(1000), eur(1000), eur(0), eur(0), eur(0), eur(0)}},
		{"negative inputs are zero", 1000, -5, -5, -5, Tender{eur(1000), eur(0), eur(0), eur(1000), eur(0), eur(1000)}},
		// Shipping is not discounted, and the gift card pays it too.
		{"shipping after the discount", 1000, 1500, 490, 0, Tender{eur(1000), eur(1000), eur(490), eur(490), eur(0), eur(490)}},
		{"gift card pays goods and shipping", 1000, 200, 490, 5000, Tender{eur(1000), eur(200), eur(490), eur(1290), eur(1290), eur(0)}},
		{"gift card pays part of shipping", 1000, 0, 490, 1200, Tender{eur(1000), eur(0), eur(490), eur(1490), eur(1200), eur(290)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := SplitTender(eur(tc.subtotal), eur(tc.discount), eur(tc.shipping), eur(tc.gift))
			if got != tc.want {
				t.Fatalf("SplitTender = %+v, want %+v", got, tc.want)
			}
			if got.GiftCard.Amount+got.Card.Amount != got.Total.Amount {
				t.Fatal("tenders do not add up to the total")
			}
		})
	}
}
