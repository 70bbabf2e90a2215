package views

import (
	"fmt"
	"time"

	"shop/store"
)

// OrdersPage lists a customer's orders.
type OrdersPage struct {
	Orders  []store.Order
	NextURL string
	Loc     *time.Location // the shop's time zone, in which times are shown
}

// OrderPage is one order, as its customer sees it.
type OrderPage struct {
	Details store.OrderDetails
	Loc     *time.Location
	Error   string // why the last action was refused
}

// OrderCancelPage asks to confirm cancelling an order.
type OrderCancelPage struct {
	Details store.OrderDetails
	Loc     *time.Location
	Key     string // the cancel's idempotency key
	CSRF    string
}

// RefundWhere says where a refund's money goes, for its customer.
func RefundWhere(r store.Refund) string {
	switch {
	case r.GiftCard.Amount > 0 && r.Card.Amount > 0:
		return r.GiftCard.String() + " to your gift card at once, " + r.Card.String() + " to your card within a few days."
	case r.GiftCard.Amount > 0:
		return r.GiftCard.String() + " to your gift card, at once."
	}
	return r.Card.String() + " to your card, within a few days."
}

func unitsWord(n int) string {
	if n == 1 {
		return "1 item"
	}
	return fmt.Sprintf("%d items", n)
}

func orderStatusLabel(s store.OrderStatus) string {
	switch s {
	case store.OrderPlaced:
		return "Placed, being packed"
	case store.OrderShipping:
		return "Packed, on its way out"
	case store.OrderShipped:
		return "Shipped"
	case store.OrderDelivered:
		return "Delivered"
	case store.OrderCancelled:
		return "Cancelled, as you asked"
	}
	return string(s)
}

// CanCancel says whether the customer may still cancel: nothing of it
// is being shipped yet.
func (p OrderPage) CanCancel() bool {
	return p.Details.Order.Status == store.OrderPlaced && len(p.Details.Shipments) == 0
}

func shipmentStatusLabel(s store.ShipmentStatus) string {
	switch s {
	case store.ShipmentPending:
		return "Being packed"
	case store.ShipmentShipped:
		return "Shipped"
	case store.ShipmentDelivered:
		return "Delivered"
	}
	return string(s)
}

// timeLabel is an instant in the shop's time zone, with the zone shown:
// "22 Nov 2026, 02:31 CET".
func timeLabel(t time.Time, loc *time.Location) string {
	return InZone(t, loc).Format("2 Jan 2006, 15:04 MST")
}
