package stripepay

import (
	"errors"
	"testing"

	"shop/store"
	"shop/store/payment"
	"shop/store/rules"
)

// A currency added to the shop must be checked against Stripe's minor units
// and minimum before a card can pay in it.
func TestEveryShopCurrencyMatchesStripe(t *testing.T) {
	for _, code := range rules.Currencies() {
		shop, _ := rules.CurrencyOf(code)
		c, ok := currencies[code]
		if !ok {
			t.Errorf("%s: the shop prices in it, the Stripe adapter has no entry (docs.stripe.com/currencies: minor units, minimum)", code)
			continue
		}
		if c.digits != shop.Digits {
			t.Errorf("%s: the shop keeps %d minor digits, Stripe %d: amounts would need converting", code, shop.Digits, c.digits)
		}
		if least := minimum(code); least < 1 || least != shop.MinCharge || c.maximum < least {
			t.Errorf("%s: minimum %d (the shop's %d), maximum %d", code, least, shop.MinCharge, c.maximum)
		}
	}
}

func TestAmountToStripe(t *testing.T) {
	for _, tc := range []struct {
		in       store.Money
		amount   int64
		currency string
		ok       bool
	}{
		{store.Money{Amount: 1250, Currency: "EUR"}, 1250, "eur", true},
		{store.Money{Amount: 999, Currency: "USD"}, 999, "usd", true},
		{store.Money{Amount: 5000, Currency: "KRW"}, 5000, "krw", true},       // zero-decimal: whole won
		{store.Money{Amount: 500, Currency: "JPY"}, 500, "jpy", true},         // zero-decimal: whole yen
		{store.Money{Amount: 1500000, Currency: "IDR"}, 1500000, "idr", true}, // two-decimal at Stripe, as in the shop
		{store.Money{Amount: 1000, Currency: "ISK"}, 0, "", false},            // Stripe's special case, not the shop's
		{store.Money{Amount: 1000, Currency: "eur"}, 0, "", false},            // the shop's codes are uppercase
		{store.Money{Amount: 1000, Currency: ""}, 0, "", false},
	} {
		amount, currency, err := toStripe(tc.in)
		if (err == nil) != tc.ok || amount != tc.amount || currency != tc.currency {
			t.Errorf("toStripe(%+v) = %d, %q, %v", tc.in, amount, currency, err)
		}
		if tc.ok {
			if back := fromStripe(amount, stripeCode(currency)); back != tc.in {
				t.Errorf("fromStripe(%d, %q) = %+v, want %+v", amount, currency, back, tc.in)
			}
		}
	}
}

func TestChargeableMinimumsAndMaximums(t *testing.T) {
	for _, tc := range []struct {
		currency string
		amount   int64
		want     error
	}{
		{"USD", 49, payment.ErrBelowMinimum}, {"USD", 50, nil}, // $0.50
		{"EUR", 49, payment.ErrBelowMinimum}, {"EUR", 50, nil}, // €0.50
		{"GBP", 29, payment.ErrBelowMinimum}, {"GBP", 30, nil}, // £0.30
		{"SEK", 299, payment.ErrBelowMinimum}, {"SEK", 300, nil}, // 3.00 kr
		{"JPY", 49, payment.ErrBelowMinimum}, {"JPY", 50, nil}, // ¥50
		{"KRW", 0, payment.ErrBelowMinimum}, {"KRW", 1, nil}, // no table entry: Stripe decides
		{"IDR", 0, payment.ErrBelowMinimum}, {"IDR", 1, nil},
		{"EUR", -100, payment.ErrBelowMinimum},
		{"EUR", 99_999_999, nil}, {"EUR", 100_000_000, ErrAboveMaximum}, // 8 digits
		{"IDR", 999_999_999_999, nil}, {"IDR", 1_000_000_000_000, ErrAboveMaximum}, // 12 digits
	} {
		_, _, err := chargeable(store.Money{Amount: tc.amount, Currency: tc.currency})
		if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("chargeable(%d %s) = %v, want %v", tc.amount, tc.currency, err, tc.want)
		}
	}
}

// FuzzAmountConversion: every amount of every shop currency goes to Stripe
// and back unchanged, and chargeable refuses exactly what is outside
// Stripe's minimum and maximum.
func FuzzAmountConversion(f *testing.F) {
	f.Add(int64(50), uint8(0))
	f.Add(int64(-1), uint8(3))
	f.Add(int64(100_000_000), uint8(5))
	codes := rules.Currencies()
	f.Fuzz(func(t *testing.T, amount int64, pick uint8) {
		m := store.Money{Amount: amount, Currency: codes[int(pick)%len(codes)]}
		got, code, err := toStripe(m)
		if err != nil {
			t.Fatalf("toStripe(%+v): %v", m, err)
		}
		if back := fromStripe(got, stripeCode(code)); back != m {
			t.Fatalf("round trip of %+v gave %+v", m, back)
		}
		c := currencies[m.Currency]
		_, _, err = chargeable(m)
		switch {
		case amount < minimum(m.Currency):
			if !errors.Is(err, payment.ErrBelowMinimum) {
				t.Fatalf("chargeable(%+v) = %v, want ErrBelowMinimum", m, err)
			}
		case amount > c.maximum:
			if !errors.Is(err, ErrAboveMaximum) {
				t.Fatalf("chargeable(%+v) = %v, want ErrAboveMaximum", m, err)
			}
		case err != nil:
			t.Fatalf("chargeable(%+v) = %v", m, err)
		}
	})
}
