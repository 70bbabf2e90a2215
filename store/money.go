package store

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Money is an amount in minor units (cents) of a currency; never a float.
type Money struct {
	Amount   int64
	Currency string
}

// Currencies the shop prices in; each has two decimal places.
var currencySymbols = map[string]string{"EUR": "€", "USD": "$", "GBP": "£", "SEK": "kr"}

// DefaultCurrency prices the demo catalogue.
const DefaultCurrency = "EUR"

// maxMoney caps parsed amounts well inside int64 so sums cannot overflow.
const maxMoney = 1_000_000_000_00

var ErrBadMoney = errors.New("not an amount: use digits with at most two decimals, like 12.50")

// ParseMoney reads an amount typed by a person ("12", "12.5", "12.50").
func ParseMoney(s, currency string) (Money, error) {
	if _, ok := currencySymbols[currency]; !ok {
		return Money{}, fmt.Errorf("unknown currency %q", currency)
	}
	s = strings.TrimSpace(s)
	whole, frac, hasDot := strings.Cut(s, ".")
	if whole == "" || len(whole) > 12 || (hasDot && (len(frac) == 0 || len(frac) > 2)) {
		return Money{}, ErrBadMoney
	}
	for _, part := range []string{whole, frac} {
		for _, c := range part {
			if c < '0' || c > '9' {
				return Money{}, ErrBadMoney
			}
		}
	}
	units, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return Money{}, ErrBadMoney
	}
	cents := int64(0)
	if frac != "" {
		if len(frac) == 1 {
			frac += "0"
		}
		cents, _ = strconv.ParseInt(frac, 10, 64)
	}
	amount := units*100 + cents
	if amount > maxMoney {
		return Money{}, ErrBadMoney
	}
	return Money{Amount: amount, Currency: currency}, nil
}

// Decimal is the amount without symbol, "12.50", as a form field shows it.
func (m Money) Decimal() string {
	sign := ""
	a := m.Amount
	if a < 0 {
		sign, a = "-", -a
	}
	return fmt.Sprintf("%s%d.%02d", sign, a/100, a%100)
}

// String is the amount as a customer reads it, "€12.50"; a negative one
// reads "−€2.50", with a typographic minus (U+2212) before the currency
// sign, as people write it, not the hyphen of "€-2.50".
func (m Money) String() string {
	sign := ""
	if m.Amount < 0 {
		sign, m.Amount = "\u2212", -m.Amount
	}
	sym, ok := currencySymbols[m.Currency]
	if !ok {
		return sign + m.Decimal() + " " + m.Currency
	}
	if m.Currency == "SEK" {
		return sign + m.Decimal() + " " + sym
	}
	return sign + sym + m.Decimal()
}

// Negated is the amount taken off (a discount, what a gift card paid), to be
// shown as "−€2.50".
func (m Money) Negated() Money { return Money{Amount: -m.Amount, Currency: m.Currency} }

// Add sums two amounts of one currency.
func (m Money) Add(o Money) Money { return Money{Amount: m.Amount + o.Amount, Currency: m.Currency} }
