package store_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"shop/store"
	"shop/store/storetest/paytest"
)

func TestParseOrderNumber(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"FF-7K3Q92", "FF-7K3Q92", true},
		{"ff-7k3q92", "FF-7K3Q92", true},
		{" 7K3 Q92 ", "FF-7K3Q92", true},
		{"7K3Q92", "FF-7K3Q92", true},
		{"FF-7K3Q9", "", false},   // short
		{"FF-7K3Q922", "", false}, // long
		{"FF-0K3Q92", "", false},  // 0 is not in the alphabet (O is taken for it)
		{"FF-IK3Q92", "", false},
		{"", "", false},
		{"FF-", "", false},
		{"FF-7K3Q9Ä", "", false},
	} {
		got, ok := store.ParseOrderNumber(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseOrderNumber(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// An order is named by its number; one from before numbers by a short
// reference its id holds, never the id (people do not read 20
// characters out); an imported order by its old shop's id.
func TestOrderLabel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		order store.Order
		want  string
	}{
		{store.Order{ID: "06h1zdxr7e1j4f0pdph0", Number: "FF-7K3Q92"}, "FF-7K3Q92"},
		{store.Order{ID: "06h1zdxr7e1j4f0pdph0"}, "#F0PDPH"},
		{store.Order{ID: "shopify-1042"}, "shopify-1042"},
		{store.Order{ID: "06H1ZDXR7E1J4F0PDPH0"}, "06H1ZDXR7E1J4F0PDPH0"}, // not one of ours
	} {
		if got := tc.order.Label(); got != tc.want {
			t.Errorf("%+v.Label() = %q, want %q", tc.order, got, tc.want)
		}
	}
	// Any id NewID makes gives a short reference in capitals.
	for range 100 {
		got := store.Order{ID: store.NewID()}.Label()
		if len(got) != 7 || got[0] != '#' || strings.ToUpper(got) != got {
			t.Fatalf("an order from before numbers is named %q", got)
		}
	}
}

func FuzzParseOrderNumber(f *testing.F) {
	for _, s := range []string{"FF-7K3Q92", "7k3q92", "FF-", "ÄÖ", "FF-7K3Q92\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := store.ParseOrderNumber(s)
		if !ok {
			return
		}
		// A parsed number parses to itself.
		if again, ok := store.ParseOrderNumber(n); !ok || again != n {
			t.Fatalf("%q parsed to %q, which parses to %q, %v", s, n, again, ok)
		}
	})
}

// Every order gets a number of its own, found again in one request; a
// number drawn twice is drawn again, and the order is placed.
func TestOrdersHaveNumbersOfTheirOwn(t *testing.T) {
	t.Parallel()
	draws := []string{"FF-222222", "FF-222222", "FF-333333"}
	next := 0
	f := newFixture(t, map[string][2]int{"p": {10, 0}}, 1000, store.WithOrderNumbers(func() string {
		n := draws[min(next, len(draws)-1)]
		next++
		return n
	}))
	ctx, st := ctxT(t), f.env.Store
	var placed []store.Order
	for i := range 2 {
		req := request(fmt.Sprintf("numbered-%d", i), "ada", store.CheckoutLine{ProductID: "p", Quantity: 1})
		o, err := paytest.New(t, st).Checkout(ctx, req)
		if err != nil {
			t.Fatalf("order %d: %v", i, err)
		}
		placed = append(placed, o)
	}
	if placed[0].Number != "FF-222222" || placed[1].Number != "FF-333333" {
		t.Fatalf("numbers %q and %q, want FF-222222 and, drawn again, FF-333333", placed[0].Number, placed[1].Number)
	}
	for _, o := range placed {
		var id string
		var err error
		f.env.Once(t, "order by number", func() { id, err = st.OrderIDByNumber(ctx, o.Number) })
		if err != nil || id != o.ID {
			t.Fatalf("order %s: found %q, %v", o.Number, id, err)
		}
		d, err := st.OrderDetails(ctx, o.ID)
		if err != nil || d.Order.Number != o.Number || d.Order.Label() != o.Number {
			t.Fatalf("order %s reads back as %+v, %v", o.Number, d.Order, err)
		}
	}
	if _, err := st.OrderIDByNumber(ctx, "FF-999999"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an unknown number: %v", err)
	}
	if _, err := st.OrderIDByNumber(ctx, "not a number"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("not a number: %v", err)
	}
}

func TestPaymentLabelSaysTheCardAndItsEnding(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p    store.Payment
		want string
	}{
		{store.Payment{Type: "Visa", Reference: "ch_123 · ••••4242"}, "Visa ending in 4242"},
		{store.Payment{Type: "GiftCard", Reference: "gift card ••••FT20"}, "Gift card ending FT20"},
		{store.Payment{Type: "GiftCard"}, "Gift card"},
		{store.Payment{Type: "PayPal", Reference: "pp-8812"}, "PayPal"}, // imported: no ending to say
	} {
		if got := tc.p.Label(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.p, got, tc.want)
		}
	}
}
