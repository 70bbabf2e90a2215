package store

import (
	"context"
	"fmt"
	"time"
)

// PreviewRefund is the refund RefundOrder would make of req on the order
// as d holds it, written nowhere: what it gives back, delivery among it,
// and how much goes to the gift card and how much to the card, for staff
// to confirm before any money moves. The same key as a refund made already
// previews that refund (confirming it again makes nothing new). A plan
// refused here would be refused the same way by RefundOrder; one that
// passes may still be refused there if the order changes between the two.
// It reads nothing: the page asking has read the order already, and
// RefundOrder reads it again, consistently, when staff confirm.
func (d OrderDetails) PreviewRefund(req OrderRefundRequest) (Refund, error) {
	req, err := checkRefundRequest(req)
	if err != nil {
		return Refund{}, err
	}
	if req.OrderID != d.Order.ID {
		return Refund{}, fmt.Errorf("a refund of order %s previewed on order %s: %w", req.OrderID, d.Order.ID, ErrBadRefund)
	}
	if done, ok := d.Refund(req.Key); ok {
		return done, nil
	}
	if req.SawPlaced && len(req.Lines) > 0 && d.Order.Status != OrderPlaced && d.Order.Status != OrderCancelled {
		return Refund{}, ErrShippingStarted
	}
	// The preview's At is not shown: the refund takes its time when made.
	plan, err := planRefund(d, req, false, time.Time{})
	if err != nil {
		return Refund{}, err
	}
	return plan.Refund, nil
}

// PreviewReturnRefund is the refund RefundReturn would make of an
// inspected return at version now, written nowhere (see PreviewRefund),
// with the order as read for the page that shows it. The warehouse is the
// caller's to check against the warehouses it lists.
//
// Cost: the return's consistent GetItem and a consistent Query of the
// order's collection.
func (s *Store) PreviewReturnRefund(ctx context.Context, orderID, returnID string, version int, how ReturnRefund) (Refund, OrderDetails, error) {
	r, err := s.returnAt(ctx, orderID, returnID, ReturnInspected, version)
	if err != nil {
		return Refund{}, OrderDetails{}, err
	}
	if !ValidID(how.Warehouse) {
		return Refund{}, OrderDetails{}, fmt.Errorf("warehouse %q: %w", how.Warehouse, ErrNotFound)
	}
	d, err := s.orderDetails(ctx, orderID, true)
	if err != nil {
		return Refund{}, OrderDetails{}, err
	}
	rf, err := d.PreviewRefund(returnRefundRequest(r, how, Customer{}, nil))
	return rf, d, err
}
