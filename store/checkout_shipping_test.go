package store_test

import (
	"errors"
	"testing"

	"shop/store"
)

// A checkout charges its country's zone: the rate, nothing from the free
// threshold on, on the order, its total, its invoice (a line with the VAT
// of the goods' rates) and its card payment; a country no zone holds is
// refused with nothing taken.
func TestCheckoutChargesShipping(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string][2]int{"a": {20, 0}}, 1000)
	ctx := ctxT(t)
	for _, z := range testZones {
		if _, err := f.env.Store.SaveShippingZone(ctx, z); err != nil {
			t.Fatal(err)
		}
	}

	d := f.checkoutInOneTransaction(t, request("ship-se", "c", store.CheckoutLine{ProductID: "a", Quantity: 2}))
	o := d.Order
	if o.Shipping != eur(490) || o.Total != eur(2490) || o.Subtotal != eur(2000) {
		t.Fatalf("order to Sweden: subtotal %v shipping %v total %v, want 2000 + 490", o.Subtotal, o.Shipping, o.Total)
	}
	if o.ShippingDaysMin != 1 || o.ShippingDaysMax != 3 {
		t.Fatalf("the order keeps the estimate %d–%d days, want Sweden's 1–3", o.ShippingDaysMin, o.ShippingDaysMax)
	}
	inv, ok := d.Invoice()
	if !ok || inv.Shipping != eur(490) || inv.Amount != eur(2490) || inv.Paid() != eur(2490) {
		t.Fatalf("invoice %+v", inv)
	}
	if got := vatString(inv.VAT); got != "25 %: net 1992 tax 498 gross 2490" {
		t.Fatalf("invoice VAT %s, want shipping taxed as the goods", got)
	}

	d = f.checkoutInOneTransaction(t, request("ship-free", "c", store.CheckoutLine{ProductID: "a", Quantity: 5}))
	if d.Order.Shipping != eur(0) || d.Order.Total != eur(5000) {
		t.Fatalf("an order of 50.00 to Sweden: shipping %v total %v, want free", d.Order.Shipping, d.Order.Total)
	}

	req := request("ship-fi", "c", store.CheckoutLine{ProductID: "a", Quantity: 1})
	req.ShipTo.Country = "Finland"
	q, err := f.env.Store.QuoteCheckout(ctx, req)
	if err != nil || q.Zone == nil || q.Zone.ID != "eu" || q.Tender.Shipping != eur(990) || q.Tender.Total != eur(1990) {
		t.Fatalf("quote to Finland: %+v, %v", q.Tender, err)
	}

	before := f.stockOf(t, "a")
	for _, country := range []string{"Norway", ""} {
		req := request("ship-no"+country, "c", store.CheckoutLine{ProductID: "a", Quantity: 1})
		req.ShipTo.Country, req.HoldFor = country, store.MaxPaymentHold
		if _, err := f.env.Store.HoldCheckout(ctx, req); !errors.Is(err, store.ErrNoShippingZone) {
			t.Fatalf("an order to %q: %v, want ErrNoShippingZone", country, err)
		}
		if _, err := f.env.Store.OrderForKey(ctx, req.Key, "c"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a refused order to %q was written: %v", country, err)
		}
	}
	if after := f.stockOf(t, "a"); after != before {
		t.Fatalf("refused orders took stock: %d → %d", before, after)
	}
}
