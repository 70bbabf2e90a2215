package store

import (
	"context"
	"fmt"
)

// PreviewRefund is the refund RefundOrder would make of req now, written
// nowhere: what it gives back, delivery among it, and how much goes to the
// gift card and how much to the card, for staff to confirm before any
// money moves. The same key as a refund made already previews that refund
// (confirming it again makes nothing new). A plan refused here would be
// refused the same way by RefundOrder; one that passes may still be
// refused there if the order changes between the two.
//
// Cost: a consistent Query of the order's collection.
func (s *Store) PreviewRefund(ctx context.Context, req OrderRefundRequest) (Refund, error) {
	req, err := checkRefundRequest(req)
	if err != nil {
		return Refund{}, err
	}
	d, err := s.orderDetails(ctx, req.OrderID, true)
	if err != nil {
		return Refund{}, err
	}
	if done, ok := d.refund(req.Key); ok {
		return done, nil
	}
	if req.SawPlaced && len(req.Lines) > 0 && d.Order.Status != OrderPlaced && d.Order.Status != OrderCancelled {
		return Refund{}, ErrShippingStarted
	}
	plan, err := planRefund(d, req, false, s.now().UTC())
	if err != nil {
		return Refund{}, err
	}
	if plan.RestockWarehouse != "" && len(plan.takes) > 0 {
		if _, err := s.Warehouse(ctx, plan.RestockWarehouse); err != nil {
			return Refund{}, fmt.Errorf("warehouse %s: %w", plan.RestockWarehouse, err)
		}
	}
	return plan.Refund, nil
}

// PreviewReturnRefund is the refund RefundReturn would make of an
// inspected return at version now, written nowhere (see PreviewRefund).
//
// Cost: the return's GetItem, then PreviewRefund's.
func (s *Store) PreviewReturnRefund(ctx context.Context, orderID, returnID string, version int, how ReturnRefund) (Refund, error) {
	r, err := s.returnAt(ctx, orderID, returnID, ReturnInspected, version)
	if err != nil {
		return Refund{}, err
	}
	if !ValidID(how.Warehouse) {
		return Refund{}, fmt.Errorf("warehouse %q: %w", how.Warehouse, ErrNotFound)
	}
	return s.PreviewRefund(ctx, returnRefundRequest(r, how, Customer{}, nil))
}
