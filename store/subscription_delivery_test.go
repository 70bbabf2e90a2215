package store_test

import (
	"errors"
	"testing"
	"time"

	"shop/store"
	"shop/store/storetest/paytest"
)

// Delivery of a subscription is priced to its address among the zones: no
// zones, nothing; no country, or one no zone holds, refused.
func TestQuoteDelivery(t *testing.T) {
	se := store.Address{Street: "Storgatan", City: "Borås", Country: "SE"}
	for _, tc := range []struct {
		name  string
		zones []store.ShippingZone
		to    store.Address
		zone  string
		err   error
	}{
		{"no zones", nil, store.Address{}, "", nil},
		{"Sweden", testZones, se, "se", nil},
		{"Finland by name", testZones, store.Address{Country: "Finland"}, "eu", nil},
		{"no address", testZones, store.Address{}, "", store.ErrNoShipAddress},
		{"Norway", testZones, store.Address{Country: "NO"}, "", store.ErrNoShippingZone},
	} {
		d, err := store.QuoteDelivery(tc.zones, tc.to, "EUR")
		got := ""
		if d.Zone != nil {
			got = d.Zone.ID
		}
		if got != tc.zone || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
			t.Errorf("%s: zone %q, %v; want %q, %v", tc.name, got, err, tc.zone, tc.err)
		}
	}
	if _, err := store.QuoteDelivery(testZones, se, "SEK"); !errors.Is(err, store.ErrMixedCurrency) {
		t.Errorf("a zone in euros for a price in crowns: %v", err)
	}
	d, _ := store.QuoteDelivery(testZones, se, "EUR")
	for months, want := range map[int]int64{1: 490, 3: 490, 4: 0} { // €12.99 a month; free from €50.00
		if got := d.PeriodRate(eur(1299), months); got.Amount != want {
			t.Errorf("%d months: delivery %v, want %d", months, got, want)
		}
	}
}

// Delivery is charged in full with every payment whose period sends a
// parcel, a new subscriber's first days included when they ship a unit
// (half a month or more); first days that ship nothing pay none, and the
// first whole period pays it.
func TestSubscribeQuoteChargesDeliveryWithEachParcel(t *testing.T) {
	beans := store.Product{ID: "beans", Subscribable: true, MonthlyPrice: eur(1299)}
	today := time.Date(2026, 5, 18, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name              string
		day               int
		charge, shipping  int64
		then, thenSending int64
	}{
		{"a whole period today", 18, 1299 + 490, 490, 1789, 490},
		{"18 of 31 days: ships one", 5, 754 + 490, 490, 1789, 490},
		{"10 of 30 days: ships nothing", 28, 433, 0, 1789, 490},
	} {
		q := store.QuoteSubscriptionShipped(today, beans, tc.day, 1, nil, nil, eur(490))
		if q.First.Charge.Amount != tc.charge || q.First.Shipping.Amount != tc.shipping || q.Then.Amount != tc.then || q.Shipping.Amount != tc.thenSending {
			t.Errorf("%s: today %v (delivery %v), then %v (delivery %v); want %d (%d), %d (%d)",
				tc.name, q.First.Charge, q.First.Shipping, q.Then, q.Shipping, tc.charge, tc.shipping, tc.then, tc.thenSending)
		}
	}
	// A code takes nothing off delivery.
	code := store.Coupon{Code: "HALF", Kind: store.DiscountPercent, Percent: 50, Left: 2}
	q := store.QuoteSubscriptionShipped(today, beans, 18, 1, nil, &code, eur(490))
	if q.First.Charge.Amount != 650+490 || q.Then.Amount != 650+490 {
		t.Errorf("with half off: today %v, then %v; want 11.40 each", q.First.Charge, q.Then)
	}
}

// A subscription to a stocked product with zones pays its zone's rate on
// each payment: the first receipt and its order show delivery, the
// provider took price + delivery, a renewal charges the same, and
// cancelling now gives back unused days of the goods, not delivery.
func TestSubscriptionThatShipsPaysDeliveryEachPeriod(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 5, 18, 9, 0, 0, 0, time.UTC))
	ctx, st := ctxT(t), f.env.Store
	f.stock(t, map[string]int{"gbg": 10})
	for _, z := range testZones {
		if _, err := st.SaveShippingZone(ctx, z); err != nil {
			t.Fatal(err)
		}
	}
	home := store.Address{Name: "Ada Lindqvist", Street: "Hamngatan", Number: "1", ZipCode: "41111", City: "Göteborg", Country: "SE"}
	if _, err := st.AddAddress(ctx, "ada", home, true); err != nil {
		t.Fatal(err)
	}
	zones, err := st.ShippingZones(ctx)
	if err != nil {
		t.Fatal(err)
	}
	to, err := st.SubscriptionShipTo(ctx, "ada")
	if err != nil || to.City != "Göteborg" {
		t.Fatalf("ships to %+v (%v)", to, err)
	}
	delivery, err := store.QuoteDelivery(zones, to, "EUR")
	if err != nil {
		t.Fatal(err)
	}
	sub, rec, err := f.pay.Subscribe(ctx, store.SubscribeRequest{Key: store.NewID(), CustomerID: "ada", Email: "ada@example.com",
		Product: f.product, PaymentDay: 18, PeriodMonths: 1, Delivery: &delivery})
	if err != nil {
		t.Fatal(err)
	}
	if sub.Shipping != eur(490) || sub.ShipTo != "SE" || rec.Amount != eur(1789) || rec.Shipping != eur(490) || rec.Goods() != eur(1299) {
		t.Fatalf("subscribed: delivery %v to %q; receipt %v with delivery %v", sub.Shipping, sub.ShipTo, rec.Amount, rec.Shipping)
	}
	if got, err := st.Receipt(ctx, "ada", rec.Number); err != nil || got.Shipping != eur(490) {
		t.Fatalf("the receipt read back: delivery %v (%v)", got.Shipping, err)
	}
	d := f.details(t, sub.Orders[0].OrderID)
	if d.Order.Shipping != eur(490) || d.Order.Subtotal != eur(1299) || d.Order.Total != eur(1789) || d.Items[0].Price != eur(1299) {
		t.Fatalf("the period's order: subtotal %v delivery %v total %v", d.Order.Subtotal, d.Order.Shipping, d.Order.Total)
	}
	if _, net := paytest.Payments(t, f.env); net != 1789 {
		t.Fatalf("the provider took %d, want price + delivery 1789", net)
	}

	next, renewal := f.renew(t, sub, sub.NextPaymentDate)
	if renewal.Amount != eur(1789) || renewal.Shipping != eur(490) || next.AmountFor(next.NextPaymentDate) != eur(1789) {
		t.Fatalf("renewal: %v with delivery %v; next %v", renewal.Amount, renewal.Shipping, next.AmountFor(next.NextPaymentDate))
	}
	if _, net := paytest.Payments(t, f.env); net != 2*1789 {
		t.Fatalf("the provider took %d after the renewal, want %d", net, 2*1789)
	}
}
