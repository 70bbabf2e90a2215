package views

import (
	"context"
	"maps"
	"slices"

	"shop/store"
)

// AdminRefundConfirm is a refund staff asked for, planned and not made:
// the store's preview, and the form as sent, to send again confirmed.
type AdminRefundConfirm struct {
	Order  store.Order
	Refund store.Refund // the preview: nothing written
	// Payments are the invoice's, naming the gift card and the card the
	// refund goes back to.
	Payments []store.Payment
	// RestockName is the warehouse's name the units go back into ("":
	// none chosen).
	RestockName string
	// Action takes the confirmed form, its Fields the form as sent; Back
	// is "No, leave it". CanChange offers "Change it" (edit=1), which
	// brings the form back as typed.
	Action    string
	Fields    []FormField
	Back      string
	CanChange bool
	CSRF      string
}

// RefundTender is a part of a refund and where it goes.
type RefundTender struct {
	Label  string // "Gift card ending FT20", "Visa ending in 4242"
	Amount store.Money
}

// Tenders are the refund's parts, gift card first as the store gives
// back, each named by the payment it goes back to.
func (p AdminRefundConfirm) Tenders(ctx context.Context) []RefundTender {
	var gift, card store.Payment
	for _, pay := range p.Payments {
		switch {
		case pay.IsRefund():
		case pay.Type == "GiftCard":
			gift = pay
		default:
			card = pay
		}
	}
	var out []RefundTender
	if p.Refund.GiftCard.Amount > 0 {
		out = append(out, RefundTender{paymentLabel(ctx, store.Payment{Type: "GiftCard", Reference: gift.Reference}), p.Refund.GiftCard})
	}
	if p.Refund.Card.Amount > 0 {
		out = append(out, RefundTender{paymentLabel(ctx, card), p.Refund.Card})
	}
	return out
}

// StockWords says where refunded units go: back where they were
// allocated, into the chosen warehouse, or nowhere.
func (p AdminRefundConfirm) StockWords(ctx context.Context) string {
	switch {
	case len(p.Refund.Lines) == 0:
		return t(ctx, "admin.refunds.confirm_stock_amount")
	case p.Refund.BackWhereAllocated:
		return t(ctx, "admin.refunds.confirm_stock_where")
	case p.Refund.RestockWarehouse != "":
		return t(ctx, "admin.refunds.confirm_stock_at", "Warehouse", p.RestockName)
	}
	return t(ctx, "admin.refunds.confirm_stock_none")
}

// FormField is a field of a form sent again as a hidden input.
type FormField struct{ Name, Value string }

// Fields are the order refund form's fields as typed, in a steady order,
// for the confirmation's hidden inputs.
func (f RefundForm) Fields() []FormField {
	out := []FormField{{"key", f.Key}}
	for _, name := range slices.Sorted(maps.Keys(f.Units)) {
		if v := f.Units[name]; v != "" {
			out = append(out, FormField{name, v})
		}
	}
	out = append(out, FormField{"amount", f.Amount}, FormField{"reason", f.Reason}, FormField{"restock", f.Restock})
	if f.Shipping {
		out = append(out, FormField{"shipping", "1"})
	}
	if f.Placed {
		out = append(out, FormField{"placed", "1"})
	}
	return out
}

// AdminReceiptRefundConfirm is a receipt's refund as typed, checked and
// not made.
type AdminReceiptRefundConfirm struct {
	Receipt store.Receipt
	Amount  store.Money
	Form    AdminRefundForm
}
