package demo

import (
	"context"
	"errors"
	"fmt"

	"shop/store"
)

const refundsMarker = "demo-refunds-v1"

// loadRefunds refunds one unit of Ada's newest delivered order paid by card
// alone, through the shop's own refund and the test provider that took
// the payment, so that her order page and the staff's show a refund.
// Nothing goes back into stock: the demo's stock stays what the history
// left.
func loadRefunds(ctx context.Context, st *store.Store) error {
	cred, err := st.CredentialsByEmail(ctx, CustomerEmail)
	if err != nil {
		return fmt.Errorf("demo customer: %w", err)
	}
	staff, err := demoStaff(ctx, st)
	if err != nil {
		return err
	}
	pays, err := newPayments(ctx, st)
	if err != nil {
		return err
	}
	orders, err := st.CustomerOrders(ctx, cred.CustomerID, 50, "")
	if err != nil {
		return err
	}
	for _, o := range orders.Items {
		if o.Status != store.OrderDelivered || o.Discount.Amount != 0 {
			continue
		}
		d, err := st.OrderDetails(ctx, o.ID)
		if err != nil {
			return err
		}
		inv, ok := d.Invoice()
		if !ok || len(inv.Payments) != 1 || inv.Payments[0].Type == "GiftCard" || len(d.Items) < 2 {
			continue
		}
		it := d.Items[0]
		_, err = st.RefundOrder(ctx, store.OrderRefundRequest{
			OrderID: o.ID, Key: "demo-refund-1", Reason: "Arrived chipped; kept by the customer", By: staff,
			Lines: []store.RefundLine{{ProductID: it.ProductID, DropID: it.DropID, Quantity: 1}},
		}, pays.refunds())
		if err != nil {
			return fmt.Errorf("demo refund of order %s: %w", o.Label(), err)
		}
		break
	}
	if err := pays.delivered(ctx); err != nil {
		return err
	}
	if err := st.Mark(ctx, refundsMarker); err != nil && !errors.Is(err, store.ErrConflict) {
		return err
	}
	return nil
}

// demoStaff is the demo's staff member, who ships and refunds its orders.
func demoStaff(ctx context.Context, st *store.Store) (store.Customer, error) {
	cred, err := st.CredentialsByEmail(ctx, StaffEmail)
	if err != nil {
		return store.Customer{}, fmt.Errorf("demo staff: %w", err)
	}
	staff, err := st.Customer(ctx, cred.CustomerID)
	if err != nil {
		return store.Customer{}, fmt.Errorf("demo staff: %w", err)
	}
	return staff, nil
}
