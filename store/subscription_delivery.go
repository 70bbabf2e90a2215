package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"shop/store/rules"
)

// Subscriptions that ship pay for delivery. Subscribing to a product the
// shop stocks prices delivery to the customer's address (the one its
// orders ship to, SubscriptionShipTo) at its zone's rate for a period's
// goods (free from the zone's threshold), and the subscription keeps that
// rate: every payment whose period sends a parcel charges price + delivery
// (AmountFor), its receipt and its order show delivery as a line. The rate
// is not prorated: a new subscriber's first days pay it in full when they
// ship a unit (half a month or more, Proration.Units), since the parcel
// costs the same to send whatever share of a period it carries, and pay
// none when they ship nothing (the first parcel then goes, and is paid
// for, with the first whole period). A shop without zones charges nothing,
// as checkout does; with zones, a country none covers (or no address at
// all) cannot subscribe to a product that ships.

var (
	// ErrNoShipAddress: the product ships, and the customer has no address
	// to price delivery to.
	ErrNoShipAddress = errors.New("this product ships: add an address to your account to subscribe")
)

// SubscribeDelivery is where a subscription to a product that ships goes
// and at which zone's rate.
type SubscribeDelivery struct {
	To   Address
	Zone *ShippingZone // nil: the shop has no zones, delivery costs nothing
}

// RateFor is delivery's price for a period's goods: the zone's rate (free
// from its threshold), nothing without a zone.
func (d *SubscribeDelivery) RateFor(goods Money) Money {
	if d == nil || d.Zone == nil {
		return Money{Currency: goods.Currency}
	}
	return d.Zone.Rate(goods)
}

// PeriodRate is delivery's price for a period of months at a monthly
// price (the goods the zone's free threshold looks at: a period's, before
// any code).
func (d *SubscribeDelivery) PeriodRate(monthly Money, months int) Money {
	return d.RateFor(Money{Amount: monthly.Amount * int64(months), Currency: monthly.Currency})
}

// Country is the code of the country it goes to.
func (d *SubscribeDelivery) Country() string {
	if d == nil {
		return ""
	}
	return rules.CountryCode(d.To.Country)
}

// QuoteDelivery is the delivery of a subscription in currency to an
// address among the shop's zones: none without zones; ErrNoShipAddress
// without a country; ErrNoShippingZone when no zone holds it.
func QuoteDelivery(zones []ShippingZone, to Address, currency string) (SubscribeDelivery, error) {
	d := SubscribeDelivery{To: to}
	if len(zones) == 0 {
		return d, nil
	}
	if strings.TrimSpace(to.Country) == "" {
		return d, ErrNoShipAddress
	}
	z, ok := ZoneFor(zones, to.Country)
	if !ok {
		return d, fmt.Errorf("%q: %w", to.Country, ErrNoShippingZone)
	}
	if z.Price.Currency != currency {
		return d, fmt.Errorf("shipping zone %s: %w", z.Name, ErrMixedCurrency)
	}
	d.Zone = &z
	return d, nil
}

// ShippingFor is the delivery the payment of the period starting on a
// payment date charges: the subscription's rate, but none for the share
// after a trial that ships nothing (under half a month).
func (s Subscription) ShippingFor(period time.Time) Money {
	none := Money{Currency: s.MonthlyPrice.Currency}
	if s.Shipping.Amount <= 0 {
		return none
	}
	if p, ok := s.trialShare(period); ok && p.Units() == 0 {
		return none
	}
	return s.Shipping
}

// Goods is what a receipt charged for the product: its amount less
// delivery.
func (r Receipt) Goods() Money { return r.Amount.Add(r.Shipping.Negated()) }

// SubscriptionShipTo is where a customer's subscription orders ship: the
// default address of their book, else its first; with an empty book,
// where their latest order went (one Query more); with none, an empty
// address (staff see an order without one). One GetItem of the book.
func (s *Store) SubscriptionShipTo(ctx context.Context, customerID string) (Address, error) {
	book, err := s.Addresses(ctx, customerID)
	if err != nil {
		return Address{}, err
	}
	if a, ok := book.Default(); ok {
		return a.Address, nil
	}
	if len(book.Addresses) > 0 {
		return book.Addresses[0].Address, nil
	}
	latest, err := s.CustomerOrders(ctx, customerID, 1, "")
	if err != nil {
		return Address{}, err
	}
	if len(latest.Items) > 0 {
		return latest.Items[0].ShipTo, nil
	}
	return Address{}, nil
}
