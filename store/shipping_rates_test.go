package store_test

import (
	"testing"

	"shop/store"
	"shop/store/rules"
)

var testZones = []store.ShippingZone{
	{ID: "se", Name: "Sweden", Countries: []string{"SE"}, Price: eur(490), FreeFrom: eur(5000), DaysMin: 1, DaysMax: 3},
	{ID: "eu", Name: "Rest of the EU", Countries: []string{"DE", "FI", "FR"}, Price: eur(990), DaysMin: 3, DaysMax: 6},
}

func TestZoneFor(t *testing.T) {
	for _, tc := range []struct {
		country, want string
	}{
		{"SE", "se"}, {"Sweden", "se"}, {"sweden", "se"}, {"fi", "eu"}, {"Germany", "eu"},
		{"NO", ""}, {"Norway", ""}, {"", ""}, {"Narnia", ""},
	} {
		z, ok := store.ZoneFor(testZones, tc.country)
		if ok != (tc.want != "") || z.ID != tc.want {
			t.Errorf("ZoneFor(%q) = %q, %v; want %q", tc.country, z.ID, ok, tc.want)
		}
	}
	// A country in two zones (a race of two edits) answers the first by name.
	twice := append([]store.ShippingZone{{ID: "z", Name: "Zed", Countries: []string{"SE"}}}, testZones...)
	if z, _ := store.ZoneFor(twice, "SE"); z.ID != "se" {
		t.Errorf("a country in two zones went to %q, want the first by name", z.ID)
	}
}

func TestZoneRate(t *testing.T) {
	for _, tc := range []struct {
		zone        int
		goods, want int64
	}{
		{0, 100, 490}, {0, 4999, 490}, {0, 5000, 0}, {0, 9000, 0}, {1, 100, 990}, {1, 1_000_000, 990},
	} {
		if got := testZones[tc.zone].Rate(eur(tc.goods)); got != eur(tc.want) {
			t.Errorf("%s for goods %d: %v, want %d", testZones[tc.zone].Name, tc.goods, got, tc.want)
		}
	}
}

func TestShippingVAT(t *testing.T) {
	for _, tc := range []struct {
		name     string
		goods    []rules.Taxed
		discount int64
		shipping int64
		want     string
	}{
		{"no shipping", []rules.Taxed{taxed(2500, 1000)}, 0, 0, "25 %: net 800 tax 200 gross 1000"},
		{"one rate takes it all", []rules.Taxed{taxed(2500, 1000)}, 0, 500, "25 %: net 1200 tax 300 gross 1500"},
		// 3000 at 25 % and 1000 at 12 %: 490 shared 367.5 / 122.5, the odd
		// cent to the higher rate (ties go to the first).
		{"by value", []rules.Taxed{taxed(2500, 3000), taxed(1200, 1000)}, 0, 490,
			"25 %: net 2694 tax 674 gross 3368; 12 %: net 1002 tax 120 gross 1122"},
		// The discount lowers the goods' values first (2250 and 750 left),
		// and shipping is shared by what is left: 225 and 75.
		{"after the discount", []rules.Taxed{taxed(2500, 3000), taxed(1200, 1000)}, 1000, 300,
			"25 %: net 1980 tax 495 gross 2475; 12 %: net 737 tax 88 gross 825"},
		{"goods given away", []rules.Taxed{taxed(2500, 1000), taxed(600, 1000)}, 2000, 101,
			"25 %: net 41 tax 10 gross 51; 6 %: net 47 tax 3 gross 50"},
	} {
		got := store.WithShipping(rules.VATBreakdown(tc.goods, eur(tc.discount)), eur(tc.shipping))
		if s := vatString(got); s != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, s, tc.want)
		}
	}
}

// FuzzShippingVAT: whatever the goods, the shares of shipping add up to it
// exactly, none is negative, and the invoice's gross is goods + shipping.
func FuzzShippingVAT(f *testing.F) {
	f.Add(int64(3000), int64(1000), int64(7), int64(0), int64(490))
	f.Add(int64(1), int64(0), int64(0), int64(1), int64(99999))
	f.Add(int64(0), int64(0), int64(0), int64(0), int64(5))
	f.Fuzz(func(t *testing.T, a, b, c, discount, shipping int64) {
		clamp := func(v int64) int64 { return min(max(v, 0), 100_000_000) }
		a, b, c, discount, shipping = clamp(a), clamp(b), clamp(c), clamp(discount), clamp(shipping)
		goods := rules.VATBreakdown([]rules.Taxed{taxed(2500, a), taxed(1200, b), taxed(600, c)}, eur(discount))
		var goodsGross int64
		for _, l := range goods {
			goodsGross += l.Gross.Amount
		}
		var shared int64
		for _, p := range store.ShippingVAT(goods, eur(shipping)) {
			if p.Gross.Amount < 0 {
				t.Fatalf("a negative share %v", p)
			}
			shared += p.Gross.Amount
		}
		if shared != shipping {
			t.Fatalf("shares add up to %d, want %d", shared, shipping)
		}
		var gross int64
		for _, l := range store.WithShipping(goods, eur(shipping)) {
			if l.Net.Amount+l.Tax.Amount != l.Gross.Amount {
				t.Fatalf("net + tax is not gross: %+v", l)
			}
			gross += l.Gross.Amount
		}
		if gross != goodsGross+shipping {
			t.Fatalf("gross %d, want goods %d + shipping %d", gross, goodsGross, shipping)
		}
	})
}
