package rules

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Money is an amount in minor units (cents) of a currency; never a float.
type Money struct {
	Amount   int64
	Currency string
}

// Currency is one the shop can price in: its ISO 4217 code, its minor
// units (the digits after the point that amounts are kept in: none for
// KRW, two for EUR and IDR), the digits people write (an IDR price is
// written without its two minor digits) and its sign.
type Currency struct {
	Code   string
	Digits int
	// Shown is how many of the minor digits a page writes when they are
	// zero; a price with cents shows them all.
	Shown  int
	Symbol string
	// SymbolAfter writes the sign after the number ("12.50 kr").
	SymbolAfter bool
	// MinCharge is the smallest card payment the provider takes, in
	// minor units: Stripe's minimum charge amounts
	// (docs.stripe.com/currencies), set by the settlement currency: USD
	// and EUR 0.50, GBP 0.30, SEK 3.00, JPY 50. KRW and IDR are not
	// settlement currencies there: a charge in them must meet the
	// account's minimum after conversion, which only Stripe knows, so
	// the floor is one minor unit. Less than this is not charged (see
	// FirstPeriod); the Stripe adapter refuses it too.
	MinCharge int64
}

var currencies = map[string]Currency{
	"EUR": {Code: "EUR", Digits: 2, Shown: 2, Symbol: "€", MinCharge: 50},
	"USD": {Code: "USD", Digits: 2, Shown: 2, Symbol: "$", MinCharge: 50},
	"GBP": {Code: "GBP", Digits: 2, Shown: 2, Symbol: "£", MinCharge: 30},
	"SEK": {Code: "SEK", Digits: 2, Shown: 2, Symbol: "kr", SymbolAfter: true, MinCharge: 300},
	"KRW": {Code: "KRW", Digits: 0, Shown: 0, Symbol: "₩", MinCharge: 1},
	"IDR": {Code: "IDR", Digits: 2, Shown: 0, Symbol: "Rp", MinCharge: 1},
	"JPY": {Code: "JPY", Digits: 0, Shown: 0, Symbol: "¥", MinCharge: 50},
}

// CurrencyOf is the currency of an ISO 4217 code the shop knows.
func CurrencyOf(code string) (Currency, bool) {
	c, ok := currencies[code]
	return c, ok
}

// MinimumCharge is the smallest card payment in a currency (its
// MinCharge); one minor unit in a currency the shop does not know.
func MinimumCharge(currency string) Money {
	if c, ok := currencies[currency]; ok && c.MinCharge > 0 {
		return Money{Amount: c.MinCharge, Currency: currency}
	}
	return Money{Amount: 1, Currency: currency}
}

// Currencies are the codes the shop can price in, for a message that lists
// them.
func Currencies() []string {
	out := make([]string, 0, len(currencies))
	for code := range currencies {
		out = append(out, code)
	}
	sort.Strings(out)
	return out
}

// DefaultCurrency prices the demo catalogue.
const DefaultCurrency = "EUR"

// MaxMoney caps parsed amounts well inside int64 so sums cannot overflow.
const MaxMoney = 1_000_000_000_00

// ErrBadMoney refuses an amount ParseMoney cannot read.
var ErrBadMoney = errors.New("not an amount: use digits with at most the currency's decimals, like 12.50")

// ParseMoney reads an amount typed by a person ("12", "12.5", "12.50"),
// with at most the currency's minor digits (none for KRW).
func ParseMoney(s, currency string) (Money, error) {
	cur, ok := currencies[currency]
	if !ok {
		return Money{}, fmt.Errorf("unknown currency %q", currency)
	}
	s = strings.TrimSpace(s)
	whole, frac, hasDot := strings.Cut(s, ".")
	if whole == "" || len(whole) > 12 || (hasDot && (len(frac) == 0 || len(frac) > cur.Digits)) {
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
	minor := int64(0)
	if frac != "" {
		frac += strings.Repeat("0", cur.Digits-len(frac))
		minor, _ = strconv.ParseInt(frac, 10, 64)
	}
	amount := units*pow10(cur.Digits) + minor
	if amount > MaxMoney {
		return Money{}, ErrBadMoney
	}
	return Money{Amount: amount, Currency: currency}, nil
}

func pow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

// digits is the minor digits of the amount's currency (two for one the
// shop does not know, as every amount it ever kept had).
func (m Money) digits() int {
	if c, ok := currencies[m.Currency]; ok {
		return c.Digits
	}
	return 2
}

// Parts splits the amount into its sign, whole units and minor units, for
// a page that writes it in a language's own way.
func (m Money) Parts() (negative bool, whole, minor int64) {
	a := m.Amount
	if a < 0 {
		negative, a = true, -a
	}
	p := pow10(m.digits())
	return negative, a / p, a % p
}

// Decimal is the amount without symbol, "12.50", as a form field shows it.
func (m Money) Decimal() string {
	neg, whole, minor := m.Parts()
	sign := ""
	if neg {
		sign = "-"
	}
	if d := m.digits(); d > 0 {
		return fmt.Sprintf("%s%d.%0*d", sign, whole, d, minor)
	}
	return fmt.Sprintf("%s%d", sign, whole)
}

// String is the amount as a customer reads it, "€12.50"; a negative one
// reads "−€2.50", with a typographic minus (U+2212) before the currency
// sign, as people write it, not the hyphen of "€-2.50".
func (m Money) String() string {
	sign := ""
	if m.Amount < 0 {
		sign, m.Amount = "\u2212", -m.Amount
	}
	cur, ok := currencies[m.Currency]
	if !ok {
		return sign + m.Decimal() + " " + m.Currency
	}
	if cur.SymbolAfter {
		return sign + m.Decimal() + " " + cur.Symbol
	}
	return sign + cur.Symbol + m.Decimal()
}

// Negated is the amount taken off (a discount, what a gift card paid), to be
// shown as "−€2.50".
func (m Money) Negated() Money { return Money{Amount: -m.Amount, Currency: m.Currency} }

// Add sums two amounts of one currency.
func (m Money) Add(o Money) Money { return Money{Amount: m.Amount + o.Amount, Currency: m.Currency} }
