package store_test

import (
	"testing"
	"time"

	"shop/store"
	"shop/store/rules"
)

// The amounts a discount code takes off a subscription: the first period's
// share (a share brought below the smallest charge is free days), each
// renewal while the code covers payments (never below the smallest
// charge), and how many covered payments are left after the first.
func TestSubscriptionCouponAmounts(t *testing.T) {
	t.Parallel()
	tea := store.Product{ID: "tea", Name: "Fika tea", Subscribable: true, MonthlyPrice: eur(1290)}
	pct := func(p, n int) *store.Coupon {
		c := store.CouponOf(store.DiscountCode{Code: "TEN", Kind: store.DiscountPercent, Percent: p, Payments: n})
		return &c
	}
	fixed := func(a int64, n int) *store.Coupon {
		c := store.CouponOf(store.DiscountCode{Code: "FIVE", Kind: store.DiscountFixed, Amount: eur(a), Payments: n})
		return &c
	}
	day := func(s string) time.Time { d, _ := rules.ParseDate(s); return d }
	for _, tc := range []struct {
		name             string
		today            string
		coupon           *store.Coupon
		charge, discount int64 // the first period
		free             bool
		then             int64 // the payment on the first payment date
		left             int   // covered payments left after the first period; -1 every one; 0 none (dropped)
	}{
		{"no code, prorated", "2026-11-28", nil, 129, 0, false, 1290, 0},
		{"10 % first payment only, prorated", "2026-11-28", pct(10, 1), 117, 12, false, 1290, 0},
		{"10 % first 3 payments, prorated", "2026-11-28", pct(10, 3), 117, 12, false, 1161, 2},
		{"10 % every payment, full period", "2026-12-01", pct(10, 0), 1161, 129, false, 1161, -1},
		{"fixed €5 first 2, full period", "2026-12-01", fixed(500, 2), 790, 500, false, 790, 1},
		{"fixed €5 every payment, prorated share below it", "2026-11-28", fixed(500, 0), 0, 129, true, 790, -1},
		{"50 % of €1.29 leaves €0.65, charged", "2026-11-28", pct(50, 1), 65, 64, false, 1290, 0},
		{"70 % brings €1.29 below the minimum: free days", "2026-11-28", pct(70, 2), 0, 90, true, 387, 1},
		{"free days without the code use no covered payment", "2026-11-30", pct(10, 2), 0, 0, true, 1161, 2},
		{"100 % every payment: renewals charge the smallest payment", "2026-12-01", pct(100, 0), 0, 1290, true, 50, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := store.QuoteSubscriptionWith(day(tc.today), tea, 1, 1, nil, tc.coupon)
			if q.First.Charge.Amount != tc.charge || q.First.Discount.Amount != tc.discount || q.First.Free != tc.free {
				t.Fatalf("first period charge %d, discount %d, free %v; want %d, %d, %v", q.First.Charge.Amount, q.First.Discount.Amount, q.First.Free,
					tc.charge, tc.discount, tc.free)
			}
			if q.Then.Amount != tc.then {
				t.Fatalf("then %d, want %d", q.Then.Amount, tc.then)
			}
			left := 0
			if q.Coupon != nil {
				left = q.Coupon.Left
				if q.Coupon.Every {
					left = -1
				}
			}
			if left != tc.left {
				t.Fatalf("%d covered payments left, want %d (%+v)", left, tc.left, q.Coupon)
			}
		})
	}
}

// An announced price's first payment takes the code's discount only if the
// code still covers it: the payments before it use covered payments up.
func TestSubscriptionCouponAtAnnouncedPrice(t *testing.T) {
	t.Parallel()
	tea := store.Product{ID: "tea", Name: "Fika tea", Subscribable: true, MonthlyPrice: eur(1190)}
	day := func(s string) time.Time { d, _ := rules.ParseDate(s); return d }
	// €12.90 from 12 January: subscribing on 1 December (a whole period),
	// day 1, monthly, the first payment at it is on 1 February, the third.
	change := &store.PriceChange{ProductID: "tea", New: eur(1290), EffectiveOn: day("2027-01-12")}
	pct := func(n int) *store.Coupon {
		c := store.CouponOf(store.DiscountCode{Code: "TEN", Kind: store.DiscountPercent, Percent: 10, Payments: n})
		return &c
	}
	for _, tc := range []struct {
		name   string
		coupon *store.Coupon
		months int
		want   int64
	}{
		{"no code", nil, 1, 1290},
		{"every payment", pct(0), 1, 1161},
		{"three payments: 1 Dec, 1 Jan, 1 Feb", pct(3), 1, 1161},
		{"two payments: used up before 1 Feb", pct(2), 1, 1290},
		{"every 2 months, two payments: 1 Dec, 1 Feb", pct(2), 2, 2322},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := store.QuoteSubscriptionWith(day("2026-12-01"), tea, 1, tc.months, change, tc.coupon)
			if q.NewAmount.Amount != tc.want {
				t.Fatalf("first payment at the new price %d, want %d", q.NewAmount.Amount, tc.want)
			}
		})
	}
}
