package views

import (
	"context"
	"fmt"
	"strings"

	"shop/store"
)

// AdminOrderList is the orders of a date range, newest first.
type AdminOrderList struct {
	Filter  AdminDateFilter
	Orders  []store.Order
	NextURL string
	CSVURL  string
	// Looked is how many orders of the range this screen read; Partial:
	// a status filter stopped short of a screen (see NextURL).
	Looked  int
	Partial bool
	// Customer: the orders are this customer's (any date).
	Customer *store.Customer
	// The find-by-number form.
	Number      string
	NumberError string
	// Held: the orders are those awaiting a card payment, whatever their
	// dates (the status "awaiting_payment"), soonest deadline first.
	Held bool
	// StripeDashboard is the Stripe Dashboard's address the links to a
	// payment start with.
	StripeDashboard string
}

// AdminOrderPage is one order with everything staff act on.
type AdminOrderPage struct {
	Details       store.OrderDetails
	Warehouses    map[string]string // id -> name
	WarehouseList []store.Warehouse // by name, to restock into
	ShippingTypes []string
	Refund        RefundForm
	Error         string // why the last action was refused
	CSRF          string
	// StripeDashboard: as AdminOrderList's, for the hold's links.
	StripeDashboard string
}

func allocationText(ctx context.Context, a store.Allocation, name string) string {
	return t(ctx, "admin.orders.allocation", "Quantity", a.Quantity, "Warehouse", name)
}

// RefundForm is the staff's refund form of an order: units per line or an
// amount, a reason and where the units go back. Key is made when the form
// first renders and kept when it comes back with errors.
type RefundForm struct {
	Key     string
	Units   map[string]string // RefundUnitsField -> as typed
	Amount  string
	Reason  string
	Restock string // a warehouse id, or "" for none
	// Shipping: "Refund delivery too" was ticked.
	Shipping bool
	// Placed: the form was made while the order was not shipping yet, so
	// its units go back where they were allocated.
	Placed bool
	Errors FieldErrors
}

// RefundUnitsField names a line's units field: "units-<product>", and
// "~<drop>" for a line bought with a drop's ticket ("~" is in no id).
func RefundUnitsField(it store.OrderItem) string {
	if it.DropID != "" {
		return "units-" + it.ProductID + "~" + it.DropID
	}
	return "units-" + it.ProductID
}

// Unshipped says whether the order is placed and not shipping yet: its
// refunded units go back where they were allocated and are not shipped.
func (p AdminOrderPage) Unshipped() bool { return p.Details.Order.Status == store.OrderPlaced }

// ShipsFrom is where a line leaves from: while the order is not shipping
// yet, what is still to ship of it (its refunded units left out).
func (p AdminOrderPage) ShipsFrom(it store.OrderItem) []store.Allocation {
	if p.Unshipped() {
		return it.ToShip()
	}
	return it.Allocations
}

// CanRefund says whether anything is left to refund.
func (p AdminOrderPage) CanRefund() bool {
	_, ok := p.Details.Invoice()
	return ok && p.Details.Order.Refundable().Amount > 0
}

// refundTo says where a refund went: "gift card €5.00 · card €15.00".
func refundTo(ctx context.Context, r store.Refund) string {
	var parts []string
	if r.GiftCard.Amount > 0 {
		parts = append(parts, t(ctx, "admin.refunds.to_gift_card", "Amount", money(ctx, r.GiftCard)))
	}
	if r.Card.Amount > 0 {
		parts = append(parts, t(ctx, "admin.refunds.to_card", "Amount", money(ctx, r.Card)))
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, " · ")
}

// refundLines is what units a refund took back: "2 × Mug, 1 × Kettle".
func refundLines(r store.Refund) string {
	if len(r.Lines) == 0 {
		return "an amount"
	}
	parts := make([]string, 0, len(r.Lines))
	for _, l := range r.Lines {
		parts = append(parts, fmt.Sprintf("%d × %s", l.Quantity, l.ProductName))
	}
	return strings.Join(parts, ", ")
}

// adminRefundLines is refundLines in the page's language (refundLines
// stays for the customer's order page, which translates its own).
func adminRefundLines(ctx context.Context, r store.Refund) string {
	var what []string
	switch {
	case len(r.Lines) > 0:
		what = append(what, refundLines(r))
	case r.Amount != r.Shipping:
		what = append(what, t(ctx, "admin.refunds.an_amount"))
	}
	if r.Shipping.Amount > 0 {
		what = append(what, t(ctx, "admin.refunds.delivery", "Amount", money(ctx, r.Shipping)))
	}
	return strings.Join(what, ", ")
}
