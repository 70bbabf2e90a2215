package handlers

import (
	"errors"

	"github.com/gofiber/fiber/v2"

	"shop/store"
	"shop/views"
)

// formCode checks the subscribe form's discount code, if one was typed:
// known, usable, and a fixed code in the product's currency. A refused
// code is a message at its field (the form comes back with a 422); a good
// one is the form's Discount, which its preview and its subscribe take.
func (h *Subscriptions) formCode(c *fiber.Ctx, f *views.SubscribeForm) error {
	f.Discount = nil
	if f.Code == "" {
		return nil
	}
	d, err := h.Store.SubscribeCode(c.UserContext(), f.Code, f.Product.MonthlyPrice.Currency)
	var ce *store.CodeError
	switch {
	case errors.As(err, &ce):
		f.Errors["code"] = refusalText(c.UserContext(), ce)
		return nil
	case err != nil:
		return err
	}
	f.Discount = &d
	return nil
}
