package rules

import (
	"fmt"
	"testing"
)

func eur(c int64) Money { return Money{Amount: c, Currency: "EUR"} }

// What a code's terms take off: a share rounded down, a fixed amount, never
// more than the subtotal (DiscountOff).
func TestDiscountOff(t *testing.T) {
	for _, tc := range []struct {
		code Coupon
		sub  int64
		want int64
	}{
		{Coupon{Kind: DiscountPercent, Percent: 10}, 1999, 199},
		{Coupon{Kind: DiscountPercent, Percent: 100}, 1999, 1999},
		{Coupon{Kind: DiscountFixed, Amount: eur(500)}, 1999, 500},
		{Coupon{Kind: DiscountFixed, Amount: eur(5000)}, 1999, 1999},
	} {
		if got := tc.code.Off(eur(tc.sub)); got.Amount != tc.want {
			t.Errorf("%+v off %d = %d, want %d", tc.code, tc.sub, got.Amount, tc.want)
		}
	}
}

// A renewal takes the coupon's discount only while it covers payments.
func TestCouponRenewalOff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		c     *Coupon
		gross int64
		off   int64
	}{
		{"none", nil, 1290, 0},
		{"none left", &Coupon{Kind: DiscountPercent, Percent: 10}, 1290, 0},
		{"one left", &Coupon{Kind: DiscountPercent, Percent: 10, Left: 1}, 1290, 129},
		{"every", &Coupon{Kind: DiscountPercent, Percent: 10, Every: true}, 1290, 129},
		{"fixed above the price leaves the smallest charge", &Coupon{Kind: DiscountFixed, Amount: eur(2000), Every: true}, 1290, 1240},
		{"a price below the smallest charge takes nothing off", &Coupon{Kind: DiscountPercent, Percent: 10, Every: true}, 40, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.c.RenewalOff(eur(tc.gross)); got.Amount != tc.off {
				t.Fatalf("off %d, want %d", got.Amount, tc.off)
			}
		})
	}
}

// A coupon covers the next payment while it has payments left (or every
// one); each payment it discounts uses one, and it is gone after its last.
func TestCouponUsed(t *testing.T) {
	for _, tc := range []struct {
		name        string
		c           *Coupon
		covers      bool
		after       string // the coupon after one payment: "nil", "every" or the payments left
		coversAfter bool
	}{
		{"none", nil, false, "nil", false},
		{"none left", &Coupon{Code: "T"}, false, "nil", false},
		{"one left", &Coupon{Code: "T", Left: 1}, true, "nil", false},
		{"three left", &Coupon{Code: "T", Left: 3}, true, "2", true},
		{"every payment", &Coupon{Code: "T", Every: true}, true, "every", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before Coupon
			if tc.c != nil {
				before = *tc.c
			}
			after := tc.c.Used()
			got := "nil"
			switch {
			case after != nil && after.Every:
				got = "every"
			case after != nil:
				got = fmt.Sprint(after.Left)
			}
			if tc.c.Covers() != tc.covers || got != tc.after || after.Covers() != tc.coversAfter {
				t.Fatalf("covers %v, after %s (covers %v); want %v, %s (%v)", tc.c.Covers(), got, after.Covers(), tc.covers, tc.after, tc.coversAfter)
			}
			if tc.c != nil && *tc.c != before {
				t.Fatalf("Used changed the coupon it was called on: %+v", tc.c)
			}
		})
	}
}

// A first period's share less the code's discount; a share brought below
// the smallest charge is free days, and free days take nothing off.
func TestWithCoupon(t *testing.T) {
	pct := func(p, n int) *Coupon { return &Coupon{Code: "P", Kind: DiscountPercent, Percent: p, Left: n} }
	fixed := &Coupon{Code: "F", Kind: DiscountFixed, Amount: eur(500), Every: true}
	for _, tc := range []struct {
		name             string
		today            string
		c                *Coupon
		charge, discount int64
		free             bool
	}{
		{"no code, prorated", "2026-11-28", nil, 129, 0, false},
		{"a code covering no more payments", "2026-11-28", pct(10, 0), 129, 0, false},
		{"10 %, prorated", "2026-11-28", pct(10, 1), 117, 12, false},
		{"10 %, full period", "2026-12-01", pct(10, 1), 1161, 129, false},
		{"fixed €5, full period", "2026-12-01", fixed, 790, 500, false},
		{"fixed €5 above the share: free days", "2026-11-28", fixed, 0, 129, true},
		{"50 % of €1.29 leaves €0.65, charged", "2026-11-28", pct(50, 1), 65, 64, false},
		{"70 % brings €1.29 below the minimum: free days", "2026-11-28", pct(70, 2), 0, 90, true},
		{"free days without the code take nothing off", "2026-11-30", pct(10, 2), 0, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := WithCoupon(FirstPeriod(d(tc.today), 1, 1, eur(1290)), tc.c)
			if p.Charge.Amount != tc.charge || p.Discount.Amount != tc.discount || p.Free != tc.free {
				t.Fatalf("charge %d, discount %d, free %v; want %d, %d, %v", p.Charge.Amount, p.Discount.Amount, p.Free, tc.charge, tc.discount, tc.free)
			}
		})
	}
}

// A period paid with a code prices the new line's days with the same
// code: a renewal's rule (never below the smallest card payment), a first
// period's share the code's discount off it; no code, the full price.
func TestNetWithCouponPricesTheNewLineWithThePeriodsCode(t *testing.T) {
	pct := func(p, left int) *Coupon { return &Coupon{Code: "P", Kind: DiscountPercent, Percent: p, Left: left} }
	fixed := &Coupon{Code: "F", Kind: DiscountFixed, Amount: eur(300), Every: true}
	for _, tc := range []struct {
		name      string
		gross     int64
		firstDays bool
		terms     *Coupon
		want      int64
	}{
		{"no code", 1450, false, nil, 1450},
		{"10 % off", 1450, false, pct(10, 1), 1305},
		{"10 % off, its last payment used (the period's)", 1450, false, pct(10, 0), 1305},
		{"€3 off", 1450, false, fixed, 1150},
		{"€3 off a renewal, kept at the smallest payment", 320, false, fixed, 50},
		{"€3 off first days' share", 320, true, fixed, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NetWithCoupon(eur(tc.gross), tc.firstDays, tc.terms); got != eur(tc.want) {
				t.Fatalf("got %v, want %d", got, tc.want)
			}
		})
	}
}
