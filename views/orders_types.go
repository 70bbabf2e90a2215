package views

import (
	"context"
	"strings"
	"time"

	"shop/store"
	"shop/views/lang"
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
	Returns OrderReturns
	// An order awaiting its card payment: the provider's page while it is
	// open ("" when it could not be opened, or is no longer open), and the
	// token of the cancel and "try again" forms.
	PayURL string
	CSRF   string
	// Paid: the provider's page was paid and its event is on its way.
	Paid bool
	// ReadOnly is the page a guest's mailed link opens, without a
	// session: what the order is, and nothing to press.
	ReadOnly bool
	// Guest: a guest checkout's session, which has no list of orders.
	Guest bool
	// Seller is who sells, printed on the invoice.
	Seller store.Seller
}

// OrderCancelPage asks to confirm cancelling an order.
type OrderCancelPage struct {
	Details store.OrderDetails
	Loc     *time.Location
	Key     string // the cancel's idempotency key
	CSRF    string
}

// RefundWhere says where a refund's money goes, for its customer, in the
// language of ctx.
func RefundWhere(ctx context.Context, r store.Refund) string {
	switch {
	case r.GiftCard.Amount > 0 && r.Card.Amount > 0:
		return lang.T(ctx, "orders.refund.both", "GiftCard", lang.Money(ctx, r.GiftCard), "Card", lang.Money(ctx, r.Card))
	case r.GiftCard.Amount > 0:
		return lang.T(ctx, "orders.refund.gift_card", "Amount", lang.Money(ctx, r.GiftCard))
	}
	return lang.T(ctx, "orders.refund.card", "Amount", lang.Money(ctx, r.Card))
}

// unitsWordIn is unitsWord in the language of ctx ("3 items", "상품 3개");
// cart.templ still calls unitsWord.
func unitsWordIn(ctx context.Context, n int) string { return lang.N(ctx, "orders.units", n) }

// orderTime is an instant of an order in the shop's time zone, with the
// zone shown, as the page's language writes it: "22 Nov 2026, 02:31 CET".
func orderTime(ctx context.Context, t time.Time, loc *time.Location) string {
	return lang.DateTime(ctx, InZone(t, loc))
}

// orderTimeParts is orderTime as its day, what the language writes
// between, and its time: "22 Nov 2026", ", ", "02:31 CET".
func orderTimeParts(ctx context.Context, t time.Time, loc *time.Location) (day, sep, clock string) {
	t = InZone(t, loc)
	day = lang.Date(ctx, t)
	rest := strings.TrimPrefix(orderTime(ctx, t, loc), day)
	clock = strings.TrimLeft(rest, ", ")
	return day, strings.TrimSuffix(rest, clock), clock
}

// orderRefundedWords is refundedWords (the staff's) for the customer, in
// the language of ctx.
func orderRefundedWords(ctx context.Context, o store.Order) string {
	switch {
	case o.Refunded.Amount == 0:
		return ""
	case o.Refunded.Amount >= o.Total.Amount:
		return lang.T(ctx, "orders.refunded_full")
	}
	return lang.T(ctx, "orders.refunded_part")
}

// paymentLabel is store.Payment's Label in the language of ctx: "Visa
// ending in 4242", "Gift card ending FT20", "Refund to Visa ending in 4242".
func paymentLabel(ctx context.Context, p store.Payment) string {
	return PaymentLabelIn(lang.From(ctx), p)
}

// PaymentLabelIn is paymentLabel in language l, for a mail.
func PaymentLabelIn(l lang.Lang, p store.Payment) string {
	kind := p.Type
	if p.Type == "GiftCard" {
		kind = lang.In(l, "orders.payment.gift_card")
	}
	_, end, ok := strings.Cut(p.Reference, "••••")
	end = strings.TrimSpace(end)
	var label string
	switch {
	case !ok || end == "":
		label = kind
	case p.Type == "GiftCard":
		label = lang.In(l, "orders.payment.gift_card_ending", "Kind", kind, "End", end)
	default:
		label = lang.In(l, "orders.payment.card_ending", "Kind", kind, "End", end)
	}
	if p.IsRefund() {
		return lang.In(l, "orders.payment.refund_to", "Payment", label)
	}
	return label
}

var orderStatusIDs = map[store.OrderStatus]string{
	store.OrderPlaced:        "orders.status.placed",
	store.OrderShipping:      "orders.status.shipping",
	store.OrderShipped:       "orders.status.shipped",
	store.OrderDelivered:     "orders.status.delivered",
	store.OrderCancelled:     "orders.status.cancelled",
	store.OrderAwaitingStock: "orders.status.awaiting_stock",
	// A card checkout held for the provider's page, and one whose
	// payment never came.
	store.OrderAwaitingPayment: "orders.status.awaiting_payment",
	store.OrderExpired:         "orders.status.expired",
}

func orderStatusLabel(ctx context.Context, s store.OrderStatus) string {
	if id, ok := orderStatusIDs[s]; ok {
		return lang.T(ctx, id)
	}
	return string(s)
}

// CanCancel says whether the customer may still cancel: nothing of it
// is being shipped yet.
func (p OrderPage) CanCancel() bool {
	return !p.ReadOnly && p.Details.Order.Status == store.OrderPlaced && len(p.Details.Shipments) == 0
}

var shipmentStatusIDs = map[store.ShipmentStatus]string{
	store.ShipmentPending:   "orders.shipment.pending",
	store.ShipmentShipped:   "orders.shipment.shipped",
	store.ShipmentDelivered: "orders.shipment.delivered",
}

func shipmentStatusLabel(ctx context.Context, s store.ShipmentStatus) string {
	if id, ok := shipmentStatusIDs[s]; ok {
		return lang.T(ctx, id)
	}
	return string(s)
}

// timeLabel is an instant in the shop's time zone, with the zone shown:
// "22 Nov 2026, 02:31 CET".
func timeLabel(t time.Time, loc *time.Location) string {
	return InZone(t, loc).Format("2 Jan 2006, 15:04 MST")
}
