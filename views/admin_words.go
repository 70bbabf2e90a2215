package views

import (
	"context"
	"strings"

	"shop/store"
)

// statusBadge is a status as staff read it: in words, and marked by how
// it stands: waiting on someone ("mark"), done ("ins"), over ("del") or
// under way ("strong").
type statusBadge struct {
	Words string
	Tone  string
}

func orderBadge(ctx context.Context, s store.OrderStatus) statusBadge {
	switch s {
	case store.OrderPlaced:
		return statusBadge{t(ctx, "admin.common.order.placed"), "mark"}
	case store.OrderShipping:
		return statusBadge{t(ctx, "admin.common.order.shipping"), "strong"}
	case store.OrderShipped:
		return statusBadge{t(ctx, "admin.common.order.shipped"), "strong"}
	case store.OrderDelivered:
		return statusBadge{t(ctx, "admin.common.order.delivered"), "ins"}
	case store.OrderCancelled:
		return statusBadge{t(ctx, "admin.common.order.cancelled"), "del"}
	case store.OrderAwaitingStock:
		return statusBadge{t(ctx, "admin.common.order.awaiting_stock"), "mark"}
	case store.OrderAwaitingPayment:
		return statusBadge{t(ctx, "admin.common.order.awaiting_payment"), "mark"}
	case store.OrderExpired:
		return statusBadge{t(ctx, "admin.common.order.expired"), "del"}
	}
	return statusBadge{string(s), "strong"}
}

// adminOrderStatusWords names the statuses of the orders list's filter, by the
// value the filter sends.
var adminOrderStatusWords = map[string]string{
	string(store.OrderPlaced):          "admin.common.order.placed",
	string(store.OrderShipping):        "admin.common.order.shipping",
	string(store.OrderShipped):         "admin.common.order.shipped",
	string(store.OrderDelivered):       "admin.common.order.delivered",
	string(store.OrderCancelled):       "admin.common.order.cancelled",
	string(store.OrderAwaitingStock):   "admin.common.order.awaiting_stock",
	string(store.OrderAwaitingPayment): "admin.common.order.awaiting_payment",
}

// adminFilterStatus is a status of a date filter's list in words; the
// status as sent when it has none.
func adminFilterStatus(ctx context.Context, st string) string {
	if id, ok := adminOrderStatusWords[st]; ok {
		return t(ctx, id)
	}
	return st
}

func refundBadge(ctx context.Context, s store.RefundStatus) statusBadge {
	switch s {
	case store.RefundDone:
		return statusBadge{t(ctx, "admin.refunds.status.done"), "ins"}
	case store.RefundCardPending:
		return statusBadge{t(ctx, "admin.refunds.status.card_pending"), "mark"}
	}
	return statusBadge{string(s), "strong"}
}

// adminRefundedWords is refundedWords in the page's language (refundedWords
// stays for the customer's order page, which translates its own).
func adminRefundedWords(ctx context.Context, o store.Order) string {
	switch {
	case o.Refunded.Amount == 0:
		return ""
	case o.Refunded.Amount >= o.Total.Amount:
		return t(ctx, "admin.refunds.refunded_all")
	}
	return t(ctx, "admin.refunds.refunded_part")
}

func shipmentBadge(ctx context.Context, s store.ShipmentStatus) statusBadge {
	switch s {
	case store.ShipmentPending:
		return statusBadge{t(ctx, "admin.shipments.status.pending"), "mark"}
	case store.ShipmentShipped:
		return statusBadge{t(ctx, "admin.shipments.status.shipped"), "strong"}
	case store.ShipmentDelivered:
		return statusBadge{t(ctx, "admin.shipments.status.delivered"), "ins"}
	}
	return statusBadge{string(s), "strong"}
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	return strings.ToUpper(string(r[0])) + string(r[1:])
}

// adjustmentBy names who adjusted stock: their name then, or "staff" for
// an adjustment from before names were kept.
func adjustmentBy(ctx context.Context, a store.StockAdjustment) string {
	if a.StaffName != "" {
		return a.StaffName
	}
	return t(ctx, "admin.warehouses.by_staff")
}

// adminShippingTypes names the shipping types staff choose from; the type
// is kept as its English name.
var adminShippingTypes = map[string]string{
	"Standard": "admin.orders.shipping.standard",
	"Express":  "admin.orders.shipping.express",
}

// adminShippingType is a shipment's type in the page's language.
func adminShippingType(ctx context.Context, typ string) string {
	if id, ok := adminShippingTypes[typ]; ok {
		return t(ctx, id)
	}
	return typ
}

// adminPaymentLabel is store.Payment's Label in the page's language:
// "Visa ending in 4242", "Gift card ending FT20", "Refund to Visa ending
// in 4242".
func adminPaymentLabel(ctx context.Context, p store.Payment) string {
	gift := p.Type == "GiftCard"
	_, end, ok := strings.Cut(p.Reference, "••••")
	end = strings.TrimSpace(end)
	hasEnd := ok && end != ""
	switch {
	case gift && p.IsRefund() && hasEnd:
		return t(ctx, "admin.invoices.pay.gift_refund_ending", "End", end)
	case gift && p.IsRefund():
		return t(ctx, "admin.invoices.pay.gift_refund")
	case gift && hasEnd:
		return t(ctx, "admin.invoices.pay.gift_ending", "End", end)
	case gift:
		return t(ctx, "admin.invoices.pay.gift")
	case p.IsRefund() && hasEnd:
		return t(ctx, "admin.invoices.pay.card_refund_ending", "Card", p.Type, "End", end)
	case p.IsRefund():
		return t(ctx, "admin.invoices.pay.card_refund", "Card", p.Type)
	case hasEnd:
		return t(ctx, "admin.invoices.pay.card_ending", "Card", p.Type, "End", end)
	}
	return p.Type
}
