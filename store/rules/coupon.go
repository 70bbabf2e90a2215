package rules

// Discount codes, as far as they are arithmetic: what a code's terms take
// off an amount, and, on a subscription, which payments its copy of them
// (a Coupon) still discounts. Whether a code exists, is expired or used up
// is the store's (it counts uses in DynamoDB).

// DiscountKind says how a discount code takes money off.
type DiscountKind string

const (
	DiscountPercent DiscountKind = "percent"
	DiscountFixed   DiscountKind = "fixed"
)

// DiscountOff is what a discount of kind takes off subtotal: percent % of
// it (rounded down) or the fixed amount, never more than the subtotal.
func DiscountOff(kind DiscountKind, percent int, amount, subtotal Money) Money {
	var off int64
	switch kind {
	case DiscountPercent:
		off = subtotal.Amount * int64(percent) / 100
	case DiscountFixed:
		off = amount.Amount
	}
	return Money{Amount: min(off, subtotal.Amount), Currency: subtotal.Currency}
}

// Coupon is a discount code attached to a subscription: its terms as they
// were when attached, and how many payments it still covers.
type Coupon struct {
	Code    string
	Kind    DiscountKind
	Percent int
	Amount  Money // a fixed code's amount
	// Every: it discounts every payment; otherwise the next Left ones.
	Every bool
	Left  int
}

// Covers reports whether the coupon discounts the next payment.
func (c *Coupon) Covers() bool { return c != nil && (c.Every || c.Left > 0) }

// Off is what the code's terms take off gross (DiscountOff).
func (c Coupon) Off(gross Money) Money {
	return DiscountOff(c.Kind, c.Percent, c.Amount, gross)
}

// RenewalOff is what the coupon takes off a renewal of gross: nothing once
// it covers no more payments; otherwise its discount, but never below the
// smallest card payment of the currency (a renewal is always charged: the
// payments job has no free periods), unless gross is below it already.
func (c *Coupon) RenewalOff(gross Money) Money {
	if !c.Covers() {
		return Money{Currency: gross.Currency}
	}
	off := c.Off(gross)
	if floor := MinimumCharge(gross.Currency).Amount; gross.Amount-off.Amount < floor {
		off.Amount = max(gross.Amount-floor, 0)
	}
	return off
}

// Used is the coupon after it discounted one payment: one fewer left, and
// none once it covers no more (the subscription drops it).
func (c *Coupon) Used() *Coupon {
	if c == nil || c.Every {
		return c
	}
	n := *c
	n.Left--
	if n.Left <= 0 {
		return nil
	}
	return &n
}

// WithCoupon is a first period with the coupon's discount off its share
// (Proration.WithDiscount). Free days without the code take nothing off,
// and use none of the payments the code covers.
func WithCoupon(p Proration, c *Coupon) Proration {
	if !c.Covers() || p.Free {
		return p
	}
	return p.WithDiscount(c.Off(p.Share))
}

// NetWithCoupon is a period's price at a line (gross) with the code that
// discounted the period's payment: a renewal's rule (RenewalOff, never
// below the smallest card payment), a new subscriber's first days the
// code's discount off the share (as WithCoupon). terms nil: gross. A swap
// now prices the new line's days so: it neither charges the code away nor
// gives it back.
func NetWithCoupon(gross Money, firstDays bool, terms *Coupon) Money {
	if terms == nil {
		return gross
	}
	c := *terms
	c.Every = true // it covered the period's payment, so it covers these days
	off := c.RenewalOff(gross)
	if firstDays {
		off = c.Off(gross)
	}
	return Money{Amount: max(gross.Amount-off.Amount, 0), Currency: gross.Currency}
}
