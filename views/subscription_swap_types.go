package views

import (
	"context"
	"time"

	"shop/store"
)

// SwapForm is a subscription's "change product or quantity" form as
// typed: the product's id, the quantity and when ("next": from the next
// payment; "now"), and what they come to (Preview), shown before
// confirming.
type SwapForm struct {
	Product, Quantity, When string
	Preview                 *SwapPreview
}

// SwapPreview is what a swap from the next payment comes to: nothing now,
// then Amount on Date (Quantity × Product's monthly price × the period),
// and a price the product has scheduled, from its day.
type SwapPreview struct {
	Product      store.Product
	Quantity     int
	Date         time.Time
	Amount       store.Money
	NewPrice     store.Money // the period's amount from NewPriceFrom, if one is scheduled
	NewPriceFrom time.Time
	// Coupon is the subscription's code when it takes something off
	// Amount and covers only some payments: Gross is the price once it
	// has run out.
	Coupon *store.Coupon
	Gross  store.Money
	// Now is what a swap now comes to (the form's "Now"): the credit of
	// the unused days, the new line's share and what moves today; nil for
	// a swap from the next payment.
	Now *store.SwapQuote
}

// swapChoices are the products c may swap to: the subscribable ones in
// its currency, its own among them even if it is no longer offered.
func swapChoices(ctx context.Context, c SubscriptionCard) []store.Product {
	var out []store.Product
	own := false
	for _, p := range c.Products {
		if p.MonthlyPrice.Currency != c.Sub.MonthlyPrice.Currency {
			continue
		}
		own = own || p.ID == c.Sub.ProductID
		out = append(out, p)
	}
	if !own {
		out = append([]store.Product{{ID: c.Sub.ProductID, Name: c.Sub.NameIn(langOf(ctx)), MonthlyPrice: c.Sub.MonthlyPrice}}, out...)
	}
	return out
}

// swapProduct is the product the form shows chosen.
func swapProduct(c SubscriptionCard) string {
	if c.Swap.Product != "" {
		return c.Swap.Product
	}
	return c.Sub.ProductID
}

// swapQuantity is the quantity the form shows.
func swapQuantity(c SubscriptionCard) string {
	if c.Swap.Quantity != "" {
		return c.Swap.Quantity
	}
	return itoa(c.Sub.Units())
}

// swappable: the form is offered on an active subscription that goes on,
// whose next payment the preview names (the store says why not to
// anything else that asks).
func swappable(s store.Subscription) bool {
	return s.Status == store.SubscriptionActive && !s.Ending()
}

// swapLine is "2 × Green tea".
func swapLine(p *SwapPreview) string {
	return store.Subscription{ProductName: p.Product.Name, Quantity: p.Quantity}.LineName()
}
