package store

import (
	"context"
	"errors"

	"shop/store/rules"
)

// A period paid with a discount code is credited at what was paid (the
// receipt's amount, net of the code); the new line's days are then priced
// with the same code's terms too, so a swap now neither charges the code
// away nor gives it back.

// periodCoupon is the terms of the code that discounted r: the
// subscription's copy while it keeps one of that code, else the code as
// it is now (it covered no more payments and the subscription dropped
// it); false when r had no discount or the code is gone.
func (s *Store) periodCoupon(ctx context.Context, r Receipt, sub Subscription) (Coupon, bool, error) {
	switch {
	case r.DiscountCode == "" || r.Discount.Amount <= 0:
		return Coupon{}, false, nil
	case sub.Coupon != nil && sub.Coupon.Code == r.DiscountCode:
		return *sub.Coupon, true, nil
	}
	d, err := s.DiscountCode(ctx, r.DiscountCode)
	switch {
	case errors.Is(err, ErrNotFound):
		return Coupon{}, false, nil
	case err != nil:
		return Coupon{}, false, err
	}
	return CouponOf(d), true, nil
}

// periodNetAt is what r's days cost at next's line, with the code that
// discounted r (rules.NetWithCoupon).
func (s *Store) periodNetAt(ctx context.Context, r Receipt, cur, next Subscription) (Money, error) {
	c, ok, err := s.periodCoupon(ctx, r, cur)
	if err != nil || !ok {
		return periodPriceAt(r, cur, next), err
	}
	return rules.NetWithCoupon(periodPriceAt(r, cur, next), r.FirstDays(), &c), nil
}
