package demo

import (
	"context"
	"errors"

	"shop/store"
)

const shippingMarker = "demo-shipping-v1"

// euRest is the European Union but Sweden, by code.
var euRest = []string{"AT", "BE", "BG", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GR", "HR", "HU", "IE", "IT",
	"LT", "LU", "LV", "MT", "NL", "PL", "PT", "RO", "SI", "SK"}

// shippingZones are the demo's: Sweden, where it ships from, the rest of
// the EU, and the two countries of its other languages.
var shippingZones = []store.ShippingZone{
	{Name: "Sweden", Countries: []string{"SE"}, Price: eur(490), FreeFrom: eur(5000), DaysMin: 1, DaysMax: 3},
	{Name: "Rest of the EU", Countries: euRest, Price: eur(990), FreeFrom: eur(10000), DaysMin: 3, DaysMax: 6},
	{Name: "South Korea", Countries: []string{"KR"}, Price: eur(2490), DaysMin: 7, DaysMax: 12},
	{Name: "Indonesia", Countries: []string{"ID"}, Price: eur(2490), DaysMin: 8, DaysMax: 14},
}

func eur(cents int64) store.Money { return store.Money{Amount: cents, Currency: store.DefaultCurrency} }

// LoadShipping gives the demo shop its shipping zones, once per table.
// Apart from Load: the tests of other things run on the demo shop without
// them (delivery free to anywhere, as before zones), and a test of
// shipping loads them into its own table.
func LoadShipping(ctx context.Context, st *store.Store) error {
	done, err := st.Marked(ctx, shippingMarker)
	if err != nil || done {
		return err
	}
	for _, z := range shippingZones {
		if _, err := st.SaveShippingZone(ctx, z); err != nil {
			return err
		}
	}
	if err := st.Mark(ctx, shippingMarker); err != nil && !errors.Is(err, store.ErrConflict) {
		return err
	}
	return nil
}
