package store_test

import (
	"errors"
	"testing"

	"shop/store"
	"shop/store/storetest"
)

// Staff's zones: saved, read back by name, a country in one zone only, a
// change at the version seen, a removal.
func TestShippingZones(t *testing.T) {
	t.Parallel()
	st := storetest.New(t).Store
	ctx := ctxT(t)
	eu, err := st.SaveShippingZone(ctx, store.ShippingZone{Name: "Rest of the EU", Countries: []string{"fi", "Germany", "FI"},
		Price: eur(990), DaysMin: 3, DaysMax: 6})
	if err != nil {
		t.Fatal(err)
	}
	if eu.ID == "" || eu.Version != 1 || len(eu.Countries) != 2 || eu.Countries[0] != "DE" {
		t.Fatalf("saved %+v, want an id, version 1 and the countries DE, FI", eu)
	}
	se, err := st.SaveShippingZone(ctx, store.ShippingZone{Name: "Sweden", Countries: []string{"SE"}, Price: eur(490), FreeFrom: eur(5000), DaysMin: 1, DaysMax: 3})
	if err != nil {
		t.Fatal(err)
	}
	var overlap *store.ZoneOverlapError
	_, err = st.SaveShippingZone(ctx, store.ShippingZone{Name: "Nordics", Countries: []string{"NO", "FI"}, Price: eur(990), DaysMin: 2, DaysMax: 4})
	if !errors.As(err, &overlap) || overlap.Country != "FI" || overlap.Zone != "Rest of the EU" {
		t.Fatalf("a country of another zone: %v, want ZoneOverlapError", err)
	}
	for _, bad := range []store.ShippingZone{
		{Name: "", Countries: []string{"NO"}, Price: eur(1), DaysMin: 1, DaysMax: 1},
		{Name: "x", Price: eur(1), DaysMin: 1, DaysMax: 1},
		{Name: "x", Countries: []string{"Narnia"}, Price: eur(1), DaysMin: 1, DaysMax: 1},
		{Name: "x", Countries: []string{"NO"}, Price: eur(-1), DaysMin: 1, DaysMax: 1},
		{Name: "x", Countries: []string{"NO"}, Price: eur(1), DaysMin: 3, DaysMax: 2},
	} {
		if _, err := st.SaveShippingZone(ctx, bad); !errors.Is(err, store.ErrBadZone) {
			t.Errorf("%+v: %v, want ErrBadZone", bad, err)
		}
	}
	zones, err := st.ShippingZones(ctx)
	if err != nil || len(zones) != 2 || zones[0].Name != "Rest of the EU" || zones[1].FreeFrom != eur(5000) {
		t.Fatalf("zones %+v, %v", zones, err)
	}

	// A change at the version seen; the same version again is a conflict.
	se.Price = eur(590)
	if se, err = st.SaveShippingZone(ctx, se); err != nil || se.Version != 2 {
		t.Fatalf("change: %+v, %v", se, err)
	}
	stale := se
	stale.Version = 1
	if _, err := st.SaveShippingZone(ctx, stale); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a stale change: %v, want ErrConflict", err)
	}
	if err := st.DeleteShippingZone(ctx, se.ID, 1); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a stale removal: %v, want ErrConflict", err)
	}
	if err := st.DeleteShippingZone(ctx, se.ID, 2); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteShippingZone(ctx, se.ID, 2); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("removed twice: %v, want ErrNotFound", err)
	}
	if zones, _ := st.ShippingZones(ctx); len(zones) != 1 {
		t.Fatalf("%d zones after a removal, want 1", len(zones))
	}
}
