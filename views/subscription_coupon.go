package views

import (
	"context"

	"shop/store"
)

// couponOff is what a coupon takes off a payment, in words: "10 %" or
// "€5.00".
func couponOff(ctx context.Context, c store.Coupon) string {
	if c.Kind == store.DiscountPercent {
		return t(ctx, "subs.coupon.percent", "Percent", c.Percent)
	}
	return money(ctx, c.Amount)
}

// couponWords is a subscription's coupon on its card: "Code XYZ: 10 % off,
// 2 more payments", or "… off every payment".
func couponWords(ctx context.Context, c store.Coupon) string {
	if c.Every {
		return t(ctx, "subs.coupon.every", "Code", c.Code, "Off", couponOff(ctx, c))
	}
	return tn(ctx, "subs.coupon.left", c.Left, "Code", c.Code, "Off", couponOff(ctx, c))
}

// discountPayments is the subscription payments a code covers, on staff's
// list: "every", or how many.
func discountPayments(ctx context.Context, d store.DiscountCode) string {
	if d.Payments <= 0 {
		return t(ctx, "admin.codes.payments_every")
	}
	return itoa(d.Payments)
}
