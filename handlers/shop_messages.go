package handlers

import (
	"context"
	"errors"

	"shop/store"
	"shop/views/lang"
)

// shopMessage is what the cart and checkout say about a store error, in
// the request's language; an error it does not know is said as the store
// words it (English), so nothing is lost.
func shopMessage(ctx context.Context, err error) string {
	var short *store.StockShortError
	var ce *store.CodeError
	switch {
	case errors.As(err, &short):
		name := short.Names.In(string(lang.From(ctx)), short.ProductName)
		if short.Available == 0 {
			return lang.T(ctx, "cart.stock.out", "Product", name)
		}
		return lang.T(ctx, "cart.stock.short", "Product", name, "Available", short.Available, "Wanted", short.Wanted)
	case errors.As(err, &ce):
		return refusalText(ctx, ce)
	case errors.Is(err, store.ErrBadQty):
		return lang.T(ctx, "cart.bad_quantity")
	case errors.Is(err, store.ErrLineTooBig):
		return lang.T(ctx, "cart.line_too_big", "Max", store.MaxLineQty)
	case errors.Is(err, store.ErrCartFull):
		return lang.T(ctx, "cart.full", "Max", store.MaxCartLines)
	case errors.Is(err, store.ErrEmptyOrder):
		return lang.T(ctx, "checkout.empty")
	case errors.Is(err, store.ErrOrderTooLarge):
		return lang.T(ctx, "checkout.too_large")
	case errors.Is(err, store.ErrOneTicketPerOrder):
		return lang.T(ctx, "checkout.one_ticket")
	case errors.Is(err, store.ErrTicketNotRedeemable):
		return lang.T(ctx, "checkout.ticket_unusable")
	case errors.Is(err, store.ErrBadCode):
		return lang.T(ctx, "checkout.code.bad")
	}
	return sentence(err)
}
