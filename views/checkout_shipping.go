package views

import (
	"context"
	"strings"

	"shop/store"
	"shop/views/lang"
)

// NotDelivered says that no zone delivers to a country (a code), naming
// the zones that the shop has: what the checkout shows at the country.
func NotDelivered(ctx context.Context, country string, zones []store.ShippingZone) string {
	names := make([]string, 0, len(zones))
	for _, z := range zones {
		names = append(names, z.Name)
	}
	return lang.T(ctx, "checkout.shipping.not_covered", "Country", countryNameIn(ctx, country), "Zones", strings.Join(names, ", "))
}

// shippingEstimate is a zone's estimate: "Arrives in 1–3 days".
func shippingEstimate(ctx context.Context, z store.ShippingZone) string {
	return lang.T(ctx, "checkout.shipping.estimate", "Days", DeliveryDays(ctx, z))
}

// shippingAmount is delivery's price as the summary shows it: "Free" for
// nothing.
func shippingAmount(ctx context.Context, m store.Money) string {
	if m.Amount == 0 {
		return lang.T(ctx, "checkout.shipping.free")
	}
	return lang.Money(ctx, m)
}

// zoneRate is a zone's rate in the list of rates: its price, and from
// what it is free.
func zoneRate(ctx context.Context, z store.ShippingZone) string {
	s := lang.Money(ctx, z.Price)
	if z.FreeFrom.Amount > 0 {
		s += " · " + lang.T(ctx, "checkout.shipping.free_from", "Amount", lang.Money(ctx, z.FreeFrom))
	}
	return s
}
