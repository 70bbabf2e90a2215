package views

import (
	"context"

	"shop/store"
	"shop/views/lang"
)

// What people call things: a shipment by its number, an order by its
// number, a customer by name and email; never by an id, which staff and
// customers cannot read out or remember.

// ShipmentName is how a shipment is named in a title or a sentence:
// "Shipment SH-7K3Q92". One from before numbers is named by the
// warehouse it leaves from, "Shipment from Stockholm", or just
// "Shipment" when that is not known either.
func ShipmentName(ctx context.Context, sh store.Shipment, warehouse string) string {
	switch {
	case sh.Number != "":
		return t(ctx, "admin.shipments.shipment", "Shipment", sh.Number)
	case warehouse != "":
		return t(ctx, "admin.shipments.shipment_from", "Warehouse", warehouse)
	}
	return t(ctx, "admin.shipments.th_shipment")
}

// shipmentNumber is a shipment's number in a list's cell, "no number" for
// one from before numbers.
func shipmentNumber(ctx context.Context, sh store.Shipment) string {
	if sh.Number != "" {
		return sh.Number
	}
	return t(ctx, "admin.shipments.no_number")
}

// shipmentOrder is the number of a shipment's order in a list's cell, as
// the shipment keeps it; "its order" for a shipment from before numbers.
func shipmentOrder(ctx context.Context, sh store.Shipment) string {
	if sh.OrderNumber != "" {
		return sh.OrderNumber
	}
	return t(ctx, "admin.shipments.its_order")
}

// customerShipmentName is a shipment on the customer's order page:
// "Shipment SH-7K3Q92", or for one from before numbers its place among
// the order's, "Shipment 1 of 2".
func customerShipmentName(ctx context.Context, sh store.Shipment, i, count int) string {
	if sh.Number != "" {
		return t(ctx, "orders.shipment", "ID", sh.Number)
	}
	return t(ctx, "orders.shipment_n", "N", i+1, "Count", count)
}

// nameAndEmail names a person to staff: "Ada Lindqvist (ada@example.com)",
// or whichever of the two is known.
func nameAndEmail(name, email string) string {
	switch {
	case name != "" && email != "":
		return name + " (" + email + ")"
	case name != "":
		return name
	}
	return email
}

// orderName is an order's number as staff read it in a list, from a map
// of the page's orders' numbers; "its order" for one without.
func orderName(ctx context.Context, numbers map[string]string, orderID string) string {
	if n := numbers[orderID]; n != "" {
		return n
	}
	return t(ctx, "admin.shipments.its_order")
}

// A product on the customer's pages is named in the page's language where
// staff gave a name in it when the line was made (the cart's line and the
// order's keep them); staff's pages keep the English, which they wrote.

// lineName is an order line's product as its buyer reads it.
func lineName(ctx context.Context, it store.OrderItem) string {
	return it.NameIn(langOf(ctx))
}

// cartLineName is a cart line's product as its owner reads it.
func cartLineName(ctx context.Context, l store.CartLine) string {
	return l.NameIn(langOf(ctx))
}

// langOf is the page's language as a code, for a line's NameIn.
func langOf(ctx context.Context) string { return string(lang.From(ctx)) }
