package store

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"shop/store/rules"
)

// Shipping rates: staff put countries into zones, and each zone has one
// rate: a flat price per order, free from an order value, and how many
// days delivery takes. This file is the arithmetic (no DynamoDB);
// shipping_zones.go keeps the zones in the table.

// ShippingZone is the countries delivered to at one rate.
type ShippingZone struct {
	ID        string
	Name      string   // staff's name for it: "Rest of the EU"
	Countries []string // ISO 3166-1 alpha-2 codes, sorted
	Price     Money    // per order
	// FreeFrom makes delivery free for goods worth this much or more
	// (after the discount); zero: never free.
	FreeFrom         Money
	DaysMin, DaysMax int // the estimate of delivery, in days
	Version          int // 0 before it is saved
}

// MaxZoneDays bounds an estimate: a quarter of a year.
const MaxZoneDays = 90

var (
	// ErrNoShippingZone: no zone holds the address's country.
	ErrNoShippingZone = errors.New("we do not deliver to that country")
	ErrBadZone        = errors.New("a shipping zone needs a name, countries, a price and an estimate of days")
)

// Covers says whether the zone delivers to a country (by code).
func (z ShippingZone) Covers(country string) bool {
	_, ok := slices.BinarySearch(z.Countries, strings.ToUpper(country))
	return ok
}

// Rate is what delivery costs for goods worth goods: the zone's price,
// or nothing from its free threshold on.
func (z ShippingZone) Rate(goods Money) Money {
	if z.FreeFrom.Amount > 0 && goods.Amount >= z.FreeFrom.Amount {
		return Money{Currency: z.Price.Currency}
	}
	return z.Price
}

// ZoneFor is the zone that delivers to a country (by code or by name); of
// two holding it (staff's editing forbids it, but a race could leave it),
// the first by name and id, so every reader answers the same.
func ZoneFor(zones []ShippingZone, country string) (ShippingZone, bool) {
	code := rules.CountryCode(country)
	if code == "" {
		return ShippingZone{}, false
	}
	var found []ShippingZone
	for _, z := range zones {
		if z.Covers(code) {
			found = append(found, z)
		}
	}
	if len(found) == 0 {
		return ShippingZone{}, false
	}
	return slices.MinFunc(found, func(a, b ShippingZone) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID))
	}), true
}

// ShippingVAT apportions shipping over the rates of the goods it delivers,
// in proportion to their gross (goods as VATBreakdown gives them, after
// the discount): delivery is an ancillary supply, taxed as what it
// delivers. The shares add up to shipping exactly. Goods worth nothing
// (all given away by a discount) share it by count of rates; no goods:
// none.
func ShippingVAT(goods []VATLine, shipping Money) []rules.Taxed {
	if shipping.Amount <= 0 || len(goods) == 0 {
		return nil
	}
	weights := make([]int64, len(goods))
	var sum int64
	for i, l := range goods {
		weights[i] = max(l.Gross.Amount, 0)
		sum += weights[i]
	}
	if sum == 0 {
		for i := range weights {
			weights[i] = 1
		}
	}
	out := make([]rules.Taxed, 0, len(goods))
	for i, share := range rules.ShareOut(shipping.Amount, weights) {
		out = append(out, rules.Taxed{Rate: goods[i].Rate, Gross: Money{Amount: share, Currency: shipping.Currency}})
	}
	return out
}

// WithShipping is the VAT of goods (VATBreakdown's lines) with shipping
// apportioned over their rates (ShippingVAT), each rate's tax worked out
// again from its whole gross.
func WithShipping(goods []VATLine, shipping Money) []VATLine {
	parts := ShippingVAT(goods, shipping)
	if parts == nil {
		return goods
	}
	out := make([]VATLine, len(goods))
	for i, l := range goods {
		out[i] = rules.LineVAT(l.Rate, l.Gross.Add(parts[i].Gross))
	}
	return out
}

// quoteShipping finds the zone of country among zones and what it charges
// for the goods (subtotal less the discount off).
func (q *Quote) quoteShipping(zones []ShippingZone, country string, subtotal, off Money) (Money, error) {
	q.Zones = zones
	z, ok := ZoneFor(zones, country)
	if !ok {
		return Money{Currency: subtotal.Currency}, nil
	}
	if z.Price.Currency != subtotal.Currency {
		return Money{}, fmt.Errorf("shipping zone %s: %w", z.Name, ErrMixedCurrency)
	}
	q.Zone = &z
	goods := subtotal.Amount - min(max(off.Amount, 0), subtotal.Amount)
	return z.Rate(Money{Amount: goods, Currency: subtotal.Currency}), nil
}

// checkShipping refuses an order to a country no zone delivers to, once
// the shop has zones: said at the form's country (a zone changed since
// its summary was made), ErrNoShippingZone to errors.Is.
func (q Quote) checkShipping(req CheckoutRequest) error {
	if len(q.Zones) > 0 && q.Zone == nil {
		return &Refusal{Kind: Invalid, Message: "checkout.shipping.choose", Field: "country",
			Words: fmt.Sprintf("%q: %v", req.ShipTo.Country, ErrNoShippingZone), Err: ErrNoShippingZone}
	}
	return nil
}
