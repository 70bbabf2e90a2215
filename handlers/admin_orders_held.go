package handlers

import (
	"cmp"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/web/paths"
)

// StripeDashboard is the Stripe Dashboard's live address, under which
// staff find a payment (/payments/<pi>) or a Checkout session
// (/checkout/sessions/<cs>); a test key's records are under its /test.
const StripeDashboard = "https://dashboard.stripe.com"

// statusAwaitingPayment is the orders list's "Awaiting payment": not a
// filter of a date range but the list of every held order (an order
// awaiting payment is in no month's list until paid).
var statusAwaitingPayment = string(store.OrderAwaitingPayment)

// stripeDashboard is where staff's links to Stripe go.
func (h *AdminOrders) stripeDashboard() string { return cmp.Or(h.StripeDashboard, StripeDashboard) }

// heldOrders is one screen of the orders awaiting a card payment, soonest
// deadline first, whatever their dates, each with its deadline, what the
// card is to pay, its provider and a link to the payment there.
func (h *AdminOrders) heldOrders(c *fiber.Ctx, data views.AdminOrderList) error {
	after := c.Query("after")
	p, err := h.Store.HeldOrders(c.UserContext(), adminPageSize, after)
	if err != nil {
		return err
	}
	data.Held, data.Orders, data.StripeDashboard = true, p.Items, h.stripeDashboard()
	data.NextURL = paths.More(paths.AdminOrders, p.Next, "status", statusAwaitingPayment)
	partial := views.AdminOrdersSection(data)
	if after != "" {
		partial = views.AdminOrderRows(data)
	}
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "admin.orders.held.title"), Page: page.Full(views.AdminOrdersView, data), Partial: partial})
}
