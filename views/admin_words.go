package views

import (
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

func orderBadge(s store.OrderStatus) statusBadge {
	switch s {
	case store.OrderPlaced:
		return statusBadge{"Waiting to ship", "mark"}
	case store.OrderShipping:
		return statusBadge{"Partly shipped", "strong"}
	case store.OrderShipped:
		return statusBadge{"Shipped", "strong"}
	case store.OrderDelivered:
		return statusBadge{"Delivered", "ins"}
	case store.OrderCancelled:
		return statusBadge{"Cancelled", "del"}
	}
	return statusBadge{string(s), "strong"}
}

func refundBadge(s store.RefundStatus) statusBadge {
	switch s {
	case store.RefundDone:
		return statusBadge{"Refunded", "ins"}
	case store.RefundCardPending:
		return statusBadge{"Card refund pending", "mark"}
	}
	return statusBadge{string(s), "strong"}
}

// refundedWords says how much of an order was refunded, or "".
func refundedWords(o store.Order) string {
	switch {
	case o.Refunded.Amount == 0:
		return ""
	case o.Refunded.Amount >= o.Total.Amount:
		return "Refunded in full"
	}
	return "Partly refunded"
}

func shipmentBadge(s store.ShipmentStatus) statusBadge {
	switch s {
	case store.ShipmentPending:
		return statusBadge{"To pack", "mark"}
	case store.ShipmentShipped:
		return statusBadge{"Shipped", "strong"}
	case store.ShipmentDelivered:
		return statusBadge{"Delivered", "ins"}
	}
	return statusBadge{string(s), "strong"}
}

func mailBadge(s store.MailStatus) statusBadge {
	switch s {
	case store.MailPending:
		return statusBadge{"Waiting to send", "mark"}
	case store.MailSent:
		return statusBadge{"Sent", "ins"}
	case store.MailFailed:
		return statusBadge{"Refused, will retry", "mark"}
	case store.MailKept:
		return statusBadge{"Kept here (no mail server)", "strong"}
	}
	return statusBadge{string(s), "strong"}
}

// wordsBadge marks a status already in words (a discount's state, a
// subscription's label).
func wordsBadge(words string) statusBadge {
	b := statusBadge{Words: upperFirst(words), Tone: "strong"}
	switch strings.ToLower(words) {
	case "past due":
		b.Tone = "mark"
	case "active":
		b.Tone = "ins"
	case "expired", "used up", "cancelled":
		b.Tone = "del"
	}
	return b
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	return strings.ToUpper(string(r[0])) + string(r[1:])
}

// discountKind is a discount code's kind in words.
func discountKind(k store.DiscountKind) string {
	switch k {
	case store.DiscountPercent:
		return "Percent off"
	case store.DiscountFixed:
		return "Amount off"
	}
	return string(k)
}

// adjustmentBy names who adjusted stock: their name then, or "staff" for
// an adjustment from before names were kept.
func adjustmentBy(a store.StockAdjustment) string {
	if a.StaffName != "" {
		return a.StaffName
	}
	return "staff"
}
