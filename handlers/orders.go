package handlers

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/web/paths"
)

// OrderStore is what the customer's order pages read.
type OrderStore interface {
	CustomerOrders(ctx context.Context, customerID string, limit int, cursor string) (store.Page[store.Order], error)
	OrderDetails(ctx context.Context, orderID string) (store.OrderDetails, error)
	Location() *time.Location
	ReturnStore
}

const ordersPageSize = 20

// Orders serves /orders: a customer's own orders only.
type Orders struct {
	Store OrderStore
}

// List is the customer's orders, newest first.
func (h *Orders) List(c *fiber.Ctx) error {
	v, err := signedInFor(c, paths.Orders)
	if err != nil || !v.SignedIn() {
		return err
	}
	orders, err := h.Store.CustomerOrders(c.UserContext(), v.ID, ordersPageSize, c.Query("after"))
	if err != nil {
		return err
	}
	data := views.OrdersPage{Orders: orders.Items, Loc: h.Store.Location()}
	data.NextURL = paths.More(paths.Orders, orders.Next)
	return page.List(c, "Your orders", views.OrdersView, views.OrderRows, data)
}

// Show is one order. Another customer's order is a 404, the same as one
// that does not exist, so ids cannot be probed.
func (h *Orders) Show(c *fiber.Ctx) error {
	v, err := signedInFor(c, c.OriginalURL())
	if err != nil || !v.SignedIn() {
		return err
	}
	id, err := pathID(c, "id", "That order")
	if err != nil {
		return err
	}
	d, err := h.Store.OrderDetails(c.UserContext(), id)
	if err != nil {
		return notFoundAs(err, "That order")
	}
	if d.Order.CustomerID != v.ID {
		return page.NotFound("That order")
	}
	return page.Render(c, fiber.StatusOK, page.View{Title: "Order " + d.Order.Label(), Page: page.Full(views.OrderView, views.OrderPage{Details: d, Loc: h.Store.Location(), Returns: returnsPart(c, h.Store, d, nil)})})
}

func signedInFor(c *fiber.Ctx, back string) (views.Viewer, error) {
	v := page.Viewer(c)
	if !v.SignedIn() {
		return v, page.Redirect(c, paths.LoginThen(back))
	}
	return v, nil
}
