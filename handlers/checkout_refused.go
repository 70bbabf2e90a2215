package handlers

import (
	"context"
	"errors"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/views/lang"
)

// refusedAt puts why the order was refused at its field of f; an error
// that is no answer to the customer is returned.
func refusedAt(ctx context.Context, err error, f *views.CheckoutForm) error {
	var ce *store.CodeError
	var short *store.StockShortError
	switch {
	case errors.As(err, &short):
		f.Errors[""] = refusalText(ctx, short)
	case errors.As(err, &ce):
		f.Errors[ce.Field] = refusalText(ctx, ce)
	case errors.Is(err, store.ErrTotalChanged):
		f.Errors[""] = lang.T(ctx, "checkout.total_changed")
	case errors.Is(err, store.ErrTicketNotRedeemable):
		f.Errors[""] = lang.T(ctx, "checkout.ticket_refused", "Why", refusalText(ctx, err))
	case errors.Is(err, store.ErrCartChanged):
		f.Errors[""] = lang.T(ctx, "checkout.cart_changed")
	case errors.Is(err, store.ErrNoShippingZone):
		// A zone changed since the summary was made.
		f.Errors["country"] = lang.T(ctx, "checkout.shipping.choose")
	case errors.Is(err, store.ErrOrderTooLarge):
		f.Errors[""] = refusalText(ctx, err)
	case errors.Is(err, store.ErrBadCheckoutKey):
		return page.BadRequest("checkout.form_broken")
	case errors.Is(err, store.ErrConflict):
		f.Errors[""] = lang.T(ctx, "checkout.conflict")
	default:
		return err
	}
	return nil
}
