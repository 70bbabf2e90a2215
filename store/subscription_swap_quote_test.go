package store

import (
	"errors"
	"testing"
)

// A swap from the next payment: checked field by field, and the product's
// price, name and quantity taken whole; nothing else moves.
func TestSwapProductFromTheNextPayment(t *testing.T) {
	eur := func(c int64) Money { return Money{Amount: c, Currency: "EUR"} }
	today := d("2026-11-12")
	sub := Subscription{ID: "s1", ProductID: "beans", ProductName: "Fika beans", MonthlyPrice: eur(990), PeriodMonths: 1, PaymentDay: 1,
		Status: SubscriptionActive, NextPaymentDate: d("2026-12-01"), Version: 3}
	tea := Product{ID: "tea", Name: "Green tea", Category: "tea", Subscribable: true, MonthlyPrice: eur(1450)}
	for _, tc := range []struct {
		name   string
		sub    func(Subscription) Subscription
		p      Product
		qty    int
		change *PriceChange
		err    error
	}{
		{"quantity 0", nil, tea, 0, nil, ErrBadQuantity},
		{"quantity 11", nil, tea, 11, nil, ErrBadQuantity},
		{"not subscribable", nil, Product{ID: "mug", Name: "Mug", MonthlyPrice: eur(0)}, 1, nil, ErrNotSubscribable},
		{"another currency", nil, Product{ID: "kimchi", Subscribable: true, MonthlyPrice: Money{Amount: 9000, Currency: "KRW"}}, 1, nil, ErrOtherCurrency},
		{"the same", nil, Product{ID: "beans", Subscribable: true, MonthlyPrice: eur(990)}, 1, nil, ErrSameValue},
		{"cancelled", func(s Subscription) Subscription { s.Status = SubscriptionCancelled; return s }, tea, 1, nil, ErrSubscriptionCancelled},
		{"past due", func(s Subscription) Subscription { s.Status = SubscriptionPastDue; return s }, tea, 1, nil, ErrPaymentOutstanding},
		{"ending", func(s Subscription) Subscription { s.EndsOn = s.NextPaymentDate; return s }, tea, 1, nil, ErrSubscriptionEnding},
		{"a payment on its way", func(s Subscription) Subscription {
			s.Intent = &PaymentIntent{Period: s.NextPaymentDate, Attempt: 1}
			return s
		}, tea, 1, nil, ErrPaymentUnderway},
		{"another product, two", nil, tea, 2, nil, nil},
		{"another product with its scheduled price", nil, tea, 1, &PriceChange{ProductID: "tea", New: eur(1550), EffectiveOn: d("2027-01-01")}, nil},
		{"more of the same", nil, Product{ID: "beans", Subscribable: true, MonthlyPrice: eur(1100)}, 3, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			from := sub
			if tc.sub != nil {
				from = tc.sub(sub)
			}
			got, err := SwapProduct(tc.p, tc.qty, tc.change)(from, today, 7)
			if !errors.Is(err, tc.err) {
				t.Fatalf("err %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			if got.Units() != tc.qty || !got.NextPaymentDate.Equal(sub.NextPaymentDate) || got.Version != sub.Version {
				t.Fatalf("swapped: %+v", got)
			}
			switch {
			case tc.p.ID == sub.ProductID && (got.MonthlyPrice != sub.MonthlyPrice || got.Amount() != eur(990*int64(tc.qty))):
				t.Fatalf("more of the same keeps its price: %v, %v", got.MonthlyPrice, got.Amount())
			case tc.p.ID != sub.ProductID && (got.ProductID != tc.p.ID || got.ProductName != tc.p.Name || got.Category != tc.p.Category ||
				got.Amount() != eur(tc.p.MonthlyPrice.Amount*int64(tc.qty))):
				t.Fatalf("swapped to %s: %+v", tc.p.ID, got)
			case tc.change != nil && got.AmountFor(d("2027-01-01")) != eur(1550):
				t.Fatalf("scheduled price not taken: %v", got.AmountFor(d("2027-01-01")))
			}
		})
	}
}
