package store

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
)

// Delivery given back. What an order paid for delivery (Order.Shipping)
// is refunded once, whole, by the refund that gives it back:
//
//   - a cancellation, and a refund that takes every unit left (a whole
//     order refunded, or one not shipping yet whose units all go back):
//     always, nothing having been or going to be delivered for nothing;
//   - a return's refund, even of every unit: only when staff choose it
//     (the parcels went out and came back; the shop paid both ways);
//   - any other refund (some units, an amount, or delivery alone): when
//     staff tick "Refund delivery too".
//
// The refund sets the order's RefundedShipping in its transaction, on
// condition it is not set: two refunds of delivery at once give it back
// once, the second is told so (ErrShippingRefunded).

var (
	// ErrShippingRefunded: delivery was given back by an earlier refund.
	ErrShippingRefunded = errors.New("delivery was refunded already")
	// ErrNoShipping: the order paid nothing for delivery.
	ErrNoShipping = errors.New("this order paid nothing for delivery")
)

// ShippingRefundable is what a refund of delivery would give back: what it
// cost, until a refund gave it back, and never more than is left to refund.
func (o Order) ShippingRefundable() Money {
	if o.RefundedShipping.Amount > 0 || o.Shipping.Amount <= 0 {
		return Money{Currency: o.Total.Currency}
	}
	return Money{Amount: min(o.Shipping.Amount, max(refundable(o).Amount, 0)), Currency: o.Total.Currency}
}

// shippingBack is what of delivery a refund of o gives back: req asking
// for it, a cancellation, or every unit left (wholeUnits) outside a return.
func shippingBack(o Order, req OrderRefundRequest, cancel, wholeUnits bool) (int64, error) {
	left := o.ShippingRefundable().Amount
	switch {
	case req.Shipping && o.RefundedShipping.Amount > 0:
		return 0, ErrShippingRefunded
	case req.Shipping && o.Shipping.Amount <= 0:
		return 0, ErrNoShipping
	case req.Shipping && left <= 0:
		return 0, ErrRefundExceedsCharge
	case req.Shipping, cancel, wholeUnits && !req.fromReturn:
		return left, nil
	}
	return 0, nil
}

// refundAmount is what a refund of o gives back, and of it delivery's
// part: the units taken (`units` of them, worth linesValue; wholeUnits:
// every unit left, which give the rest of the goods, no cent lost to
// rounding), a cancellation's rest, or the amount asked; with delivery
// when shippingBack gives it. Never more than is left, nor nothing
// (but a cancellation of what cost nothing).
func refundAmount(o Order, req OrderRefundRequest, cancel bool, units int, linesValue int64, wholeUnits bool) (amount, ship int64, err error) {
	left := refundable(o)
	if ship, err = shippingBack(o, req, cancel, wholeUnits); err != nil {
		return 0, 0, err
	}
	switch {
	case wholeUnits:
		amount = max(left.Amount-o.ShippingRefundable().Amount, 0)
	case units > 0:
		amount = linesValue
	case cancel:
		amount = left.Amount - ship
	case req.Amount.Amount != 0 && req.Amount.Currency != o.Total.Currency:
		return 0, 0, fmt.Errorf("the order is in %s: %w", o.Total.Currency, ErrBadRefund)
	default:
		amount = req.Amount.Amount
	}
	amount += ship
	if amount > left.Amount {
		return 0, 0, fmt.Errorf("%w: %s is left to refund", ErrRefundExceedsCharge, left)
	}
	if amount <= 0 && !cancel {
		return 0, 0, errRefundNothing
	}
	return amount, ship, nil
}

// refundedShipping adds delivery given back (ship, above zero) to the
// order's update, on condition no refund gave it back before.
func refundedShipping(upd expression.UpdateBuilder, cond expression.ConditionBuilder, ship int64) (expression.UpdateBuilder, expression.ConditionBuilder) {
	if ship <= 0 {
		return upd, cond
	}
	return upd.Set(expression.Name("RefundedShipping"), expression.Value(ship)),
		cond.And(expression.AttributeNotExists(expression.Name("RefundedShipping")))
}
