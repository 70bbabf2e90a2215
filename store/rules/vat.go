package rules

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// VAT: prices are gross (VAT included), as shops selling to consumers in
// the EU show them. Each product category has a rate; the default is
// Sweden's, where Fika & Field sells: 25 % standard, 12 % food (the coffee
// beans), 6 % books. An invoice and a receipt show per rate what was paid
// (gross), the tax in it and the rest (net).

// VATRate is a rate in hundredths of a percent: 2500 is 25 %.
type VATRate int

// maxVATRate bounds a rate: 100 %.
const maxVATRate = 10000

// String is the rate as people read it: "25 %", "12.5 %".
func (r VATRate) String() string {
	s := strconv.Itoa(int(r) / 100)
	if frac := int(r) % 100; frac != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%02d", frac), "0")
	}
	return s + " %"
}

// VATRates is the rate of each product category, and of any other.
type VATRates struct {
	Standard   VATRate
	ByCategory map[string]VATRate
}

// DefaultVATRates are Sweden's: 25 % standard, 12 % for food (the demo's
// coffee), 6 % for books. The demo's coffee category also holds grinders
// and drippers, which are 25 % in Sweden: a shop selling both gives them a
// category of their own.
func DefaultVATRates() VATRates {
	return VATRates{Standard: 2500, ByCategory: map[string]VATRate{"coffee": 1200, "books": 600}}
}

// Of is the rate of a category's products.
func (v VATRates) Of(category string) VATRate {
	if r, ok := v.ByCategory[category]; ok {
		return r
	}
	return v.Standard
}

// String is the rates as ParseVATRates reads them: "25,books=6,coffee=12".
func (v VATRates) String() string {
	parts := []string{percent(v.Standard)}
	for _, c := range slices.Sorted(maps.Keys(v.ByCategory)) {
		parts = append(parts, c+"="+percent(v.ByCategory[c]))
	}
	return strings.Join(parts, ",")
}

func percent(r VATRate) string { return strings.TrimSuffix(r.String(), " %") }

var ErrBadVATRates = errors.New(`VAT rates: the standard rate, then category=rate, in percent with at most two decimals, like "25,coffee=12,books=6"`)

// ParseVATRates reads SHOP_VAT_RATES: the standard rate first, then a rate
// per category slug ("25,coffee=12,books=6").
func ParseVATRates(s string) (VATRates, error) {
	parts := strings.Split(s, ",")
	std, err := parseVATRate(parts[0])
	if err != nil {
		return VATRates{}, err
	}
	v := VATRates{Standard: std, ByCategory: map[string]VATRate{}}
	for _, p := range parts[1:] {
		cat, rate, ok := strings.Cut(strings.TrimSpace(p), "=")
		cat = strings.TrimSpace(cat)
		if !ok || !validSlug(cat) {
			return VATRates{}, ErrBadVATRates
		}
		if _, dup := v.ByCategory[cat]; dup {
			return VATRates{}, fmt.Errorf("category %s named twice: %w", cat, ErrBadVATRates)
		}
		if v.ByCategory[cat], err = parseVATRate(rate); err != nil {
			return VATRates{}, err
		}
	}
	return v, nil
}

func validSlug(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}

// parseVATRate reads a percentage ("25", "12.5") as ParseMoney reads cents.
func parseVATRate(s string) (VATRate, error) {
	m, err := ParseMoney(s, DefaultCurrency)
	if err != nil || m.Amount > maxVATRate {
		return 0, ErrBadVATRates
	}
	return VATRate(m.Amount), nil
}

// Taxed is a gross amount sold at a rate: an order line, a subscription's
// payment.
type Taxed struct {
	Rate  VATRate
	Gross Money
}

// VATLine is what a document's lines at one rate come to.
type VATLine struct {
	Rate            VATRate
	Net, Tax, Gross Money
}

// VATBreakdown is the VAT of gross amounts less a discount off their sum,
// per rate, highest rate first. The discount is shared among the rates in
// proportion to their gross (the cents left over go to the largest
// remainders, so the shares add up to it exactly), since a discount lowers
// the price, and so the taxable amount, of every line. A gift card is a
// payment, not a discount: it is not given here.
//
// It rounds once per rate, not per line: the tax of a rate is worked out
// from the gross of its lines together (net = gross ÷ (1 + rate), to the
// nearest cent, half up; tax = gross − net). So the gross of the rates adds
// up to what was paid to the cent, and each rate's tax is the one of its
// whole amount, as the books and the tax return total it; per line, half a
// cent a line can pile up and disagree with the rate's total.
func VATBreakdown(amounts []Taxed, discount Money) []VATLine {
	if len(amounts) == 0 {
		return nil
	}
	cur := amounts[0].Gross.Currency
	gross := map[VATRate]int64{}
	var total int64
	for _, a := range amounts {
		gross[a.Rate] += a.Gross.Amount
		total += a.Gross.Amount
	}
	rates := slices.SortedFunc(maps.Keys(gross), func(a, b VATRate) int { return cmp.Compare(b, a) })
	off := min(max(discount.Amount, 0), total)
	if off > 0 {
		weights := make([]int64, len(rates))
		for i, r := range rates {
			weights[i] = gross[r]
		}
		for i, share := range ShareOut(off, weights) {
			gross[rates[i]] -= share
		}
	}
	out := make([]VATLine, 0, len(rates))
	for _, r := range rates {
		out = append(out, vatLineOf(r, Money{gross[r], cur}))
	}
	return out
}

// vatLineOf is the VAT in a gross amount at one rate: net = gross ÷ (1 +
// rate), to the nearest cent, half up; tax = gross − net.
func vatLineOf(r VATRate, g Money) VATLine {
	net := (g.Amount*10000*2 + int64(10000+r)) / (2 * int64(10000+r))
	return VATLine{Rate: r, Gross: g, Net: Money{net, g.Currency}, Tax: Money{g.Amount - net, g.Currency}}
}

// ShareOut shares total among weights in proportion (largest remainder:
// floor shares, then a cent each to the weights whose share lost most to
// the floor, ties to the earlier), so the shares add up to total exactly.
// The weights are not negative and add up to more than zero.
func ShareOut(total int64, weights []int64) []int64 {
	var sum int64
	for _, w := range weights {
		sum += w
	}
	shares := make([]int64, len(weights))
	rems := make([]int64, len(weights))
	var given int64
	for i, w := range weights {
		shares[i], rems[i] = total*w/sum, total*w%sum
		given += shares[i]
	}
	order := make([]int, len(weights))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(rems[b], rems[a]) })
	for k := int64(0); k < total-given; k++ {
		shares[order[k]]++
	}
	return shares
}

// LineVAT is the VAT in one line's gross amount at its rate (rounded as a
// rate's total is): what an invoice shows against each line. The
// document's totals per rate are VATBreakdown's, after any discount.
func LineVAT(r VATRate, gross Money) VATLine { return vatLineOf(r, gross) }
