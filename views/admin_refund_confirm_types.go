package views

import (
	"context"
	"maps"
	"slices"

	"shop/store"
)

// AdminRefundConfirm is a refund staff asked for, planned and not made:
// the store's preview, and the form as typed to send again.
type AdminRefundConfirm struct {
	Order  store.Order
	Refund store.Refund // the preview: nothing written
	// Payments are the invoice's, naming the gift card and the card the
	// refund goes back to.
	Payments []store.Payment
	// RestockName is the warehouse's name the units go back into ("":
	// none chosen).
	RestockName string
	Form        RefundForm
	CSRF        string
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

// UnitField is a units field of the refund form, as typed.
type UnitField struct{ Name, Value string }

// UnitFields are the form's units fields in a steady order, for hidden
// inputs.
func (f RefundForm) UnitFields() []UnitField {
	out := make([]UnitField, 0, len(f.Units))
	for _, name := range slices.Sorted(maps.Keys(f.Units)) {
		if v := f.Units[name]; v != "" {
			out = append(out, UnitField{name, v})
		}
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
