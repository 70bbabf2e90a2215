package handlers

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/web/paths"
)

// place holds the order for the provider's page (placed at once when the
// codes cover it).
func (h *Checkout) place(ctx context.Context, req store.CheckoutRequest) (store.Order, error) {
	req.HoldFor = h.Hold
	return h.Store.HoldCheckout(ctx, req)
}

// toPayment sends the customer of a held order to the provider's page.
// The hold is written: whatever fails now, the answer is the page or the
// order (which offers to open the page again, or to cancel; the reconcile
// step releases it at its deadline).
func (h *Checkout) toPayment(c *fiber.Ctx, order store.Order, f views.CheckoutForm) error {
	ctx := c.UserContext()
	page.Written(c, "order", order.ID)
	page.SetCartUnits(c, 0)
	if f.SaveAddress {
		page.Flash(c, views.FlashInfo, h.saveAddress(ctx, order.CustomerID, f))
	}
	url, err := h.Pages.Start(c, order)
	if err != nil {
		if h.Log != nil {
			h.Log.Warn("payment page did not open after the hold", "order", order.ID, "err", err)
		}
		page.Flash(c, views.FlashError, page.T(c, "orders.pay.not_started"))
		return page.Redirect(c, paths.Order(order.ID))
	}
	return page.Redirect(c, url)
}
