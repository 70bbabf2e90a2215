package store

import (
	"time"

	"shop/store/rules"
)

// SwapQuote is what a swap of product or quantity "now" comes to for the
// rest of the period paid (rules.SwapQuote).
type SwapQuote = rules.SwapQuote

// QuoteSwapNow is the money of a swap today of a period paid [start, end)
// from oldAmount to newAmount (rules.QuoteSwapNow).
func QuoteSwapNow(oldAmount, newAmount Money, start, end, today time.Time) SwapQuote {
	return rules.QuoteSwapNow(oldAmount, newAmount, start, end, today)
}
