package handlers

import (
	"context"
	"errors"

	"shop/store"
	"shop/store/rules"
	"shop/views"
	"shop/views/lang"
)

// The subscribe form prices delivery of a product that ships to where the
// customer's orders go (store.SubscriptionShipTo), at its zone's rate: the
// preview from the shop window's zones (a minute old at most), the charge
// from the table's.

// shippingZones are the shop's zones: the window's or the table's.
type shippingZones interface {
	ShippingZones(ctx context.Context) ([]store.ShippingZone, error)
}

// subscriptionShipTo says where a customer's subscription orders ship.
type subscriptionShipTo interface {
	SubscriptionShipTo(ctx context.Context, customerID string) (store.Address, error)
}

// formDelivery sets the form's delivery for a product that ships (f.Ships):
// none while the shop has no zones (nothing is read of the customer then);
// a country no zone holds, or no address at all, is the form's
// DeliveryProblem, which refuses the subscribe.
func formDelivery(ctx context.Context, zones shippingZones, book subscriptionShipTo, customerID string, f *views.SubscribeForm) error {
	f.Delivery, f.DeliveryProblem = nil, ""
	if !f.Ships {
		return nil
	}
	zs, err := zones.ShippingZones(ctx)
	if err != nil || len(zs) == 0 {
		return err
	}
	to, err := book.SubscriptionShipTo(ctx, customerID)
	if err != nil {
		return err
	}
	d, err := store.QuoteDelivery(zs, to, f.Product.MonthlyPrice.Currency)
	switch {
	case errors.Is(err, store.ErrNoShipAddress):
		f.DeliveryProblem = lang.T(ctx, "subs.delivery.no_address")
	case errors.Is(err, store.ErrNoShippingZone), errors.Is(err, store.ErrMixedCurrency):
		f.DeliveryProblem = views.NotDelivered(ctx, rules.CountryCode(to.Country), zs) + " " + lang.T(ctx, "subs.delivery.change_address")
	case err != nil:
		return err
	default:
		f.Delivery = &d
	}
	return nil
}

// chargedDelivery prices the delivery a subscribe charges, from the
// table's zones: whether the product ships is the shop window's (a second
// old), and nothing more is read while the shop has no zones.
func (h *Subscriptions) chargedDelivery(ctx context.Context, customerID string, f *views.SubscribeForm) error {
	_, stock, err := h.Window.ProductWithStock(ctx, f.Product.ID)
	if err != nil {
		return err
	}
	f.Ships = len(stock) > 0
	return formDelivery(ctx, h.Store, h.Store, customerID, f)
}
