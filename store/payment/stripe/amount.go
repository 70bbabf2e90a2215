package stripepay

import (
	"errors"
	"fmt"
	"strings"

	"github.com/stripe/stripe-go/v85"

	"shop/store"
	"shop/store/payment"
	"shop/store/rules"
)

// stripeCurrency is what Stripe needs to know of one of the shop's
// currencies. From https://docs.stripe.com/currencies ("Minor units in API
// amounts", "Zero-decimal currencies", "Special cases", "Minimum and maximum
// charge amounts"):
//
//   - JPY and KRW are zero-decimal: an amount is whole yen or won, as the
//     shop keeps them. EUR, GBP, SEK, USD and IDR are two-decimal ("currencies
//     are two-decimal unless otherwise specified"; IDR is in neither the
//     zero-decimal list nor the special cases, ISK, HUF, TWD and UGX), as the
//     shop keeps them too: a shop amount is Stripe's amount, unchanged.
//   - The minimum is set by the settlement currency: USD $0.50, EUR €0.50,
//     GBP £0.30, SEK 3.00 kr, JPY ¥50. KRW and IDR are not settlement
//     currencies in that table: a charge in them is converted to the
//     account's and must meet its minimum after conversion, which only
//     Stripe knows (it answers amount_too_small, ErrBelowMinimum too). A
//     charge in another currency than the account's settles converted as
//     well, so the table is the floor for an account that settles in the
//     shop's currency, which is the usual case. The table is the shop's
//     (store.MinimumCharge), which prorates a new subscriber's first days
//     with it: kept in one place, the shop never asks for less.
//   - At most 8 digits of minor units (999,999.99), 12 for IDR.
type stripeCurrency struct {
	digits  int // Stripe's minor units
	maximum int64
}

var currencies = map[string]stripeCurrency{
	"EUR": {digits: 2, maximum: 99_999_999},
	"USD": {digits: 2, maximum: 99_999_999},
	"GBP": {digits: 2, maximum: 99_999_999},
	"SEK": {digits: 2, maximum: 99_999_999},
	"JPY": {digits: 0, maximum: 99_999_999},
	"KRW": {digits: 0, maximum: 99_999_999},
	"IDR": {digits: 2, maximum: 999_999_999_999},
}

// minimum is the smallest charge in a currency, in minor units.
func minimum(currency string) int64 { return rules.MinimumCharge(currency).Amount }

// ErrAboveMaximum refuses an amount with more digits than Stripe takes.
var ErrAboveMaximum = errors.New("the amount is above the largest charge Stripe takes")

// errCurrency is a currency this adapter has not checked against Stripe's.
var errCurrency = errors.New("stripe: currency not supported by the Stripe adapter")

// toStripe is an amount as Stripe's API takes it: minor units and the
// lowercase code. The shop's minor units are Stripe's for every currency in
// the table (TestEveryShopCurrencyMatchesStripe keeps it so).
func toStripe(m store.Money) (int64, string, error) {
	c, ok := currencies[m.Currency]
	shop, known := rules.CurrencyOf(m.Currency)
	if !ok || !known || shop.Digits != c.digits {
		return 0, "", fmt.Errorf("%w: %q", errCurrency, m.Currency)
	}
	return m.Amount, strings.ToLower(m.Currency), nil
}

// chargeable is an amount Stripe will charge: positive, at least the
// currency's minimum, within its digits.
func chargeable(m store.Money) (int64, string, error) {
	amount, code, err := toStripe(m)
	if err != nil {
		return 0, "", err
	}
	c, least := currencies[m.Currency], minimum(m.Currency)
	switch {
	case amount < least:
		return 0, "", fmt.Errorf("%w: %d minor units of %s, Stripe's minimum is %d", payment.ErrBelowMinimum, amount, m.Currency, least)
	case amount > c.maximum:
		return 0, "", fmt.Errorf("%w: %d minor units of %s", ErrAboveMaximum, amount, m.Currency)
	}
	return amount, code, nil
}

// fromStripe is an amount Stripe reports, in the shop's terms. A currency
// the shop does not know keeps its amount and code (uppercase), so that an
// event about it still reads rather than fails.
func fromStripe(amount int64, currency stripe.Currency) store.Money {
	return store.Money{Amount: amount, Currency: strings.ToUpper(string(currency))}
}
