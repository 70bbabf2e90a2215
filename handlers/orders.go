package handlers

import (
	"context"
	"errors"
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/views/lang"
	"shop/views/mail"
	"shop/web/paths"
)

// OrderStore is what the customer's order pages read.
type OrderStore interface {
	CustomerOrders(ctx context.Context, customerID string, limit int, cursor string) (store.Page[store.Order], error)
	OrderDetails(ctx context.Context, orderID string) (store.OrderDetails, error)
	Location() *time.Location
	Now() time.Time
	CancelOrder(ctx context.Context, orderID, customerID, key string, mail func(store.Refund, store.Order) *store.Mail, refunder store.Refunder) (store.Refund, error)
	ReturnStore
}

const ordersPageSize = 20

// Orders serves /orders: a customer's own orders only.
type Orders struct {
	Store OrderStore
	// Refunds gives a cancelled order's card part back through its provider.
	Refunds CardRefunds
	// Payment serves an order awaiting its card payment (nil: no card
	// provider; no order awaits one).
	Payment *OrderPayment
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
	return page.List(c, page.T(c, "orders.title"), views.OrdersView, views.OrderRows, data)
}

// Show is one order. Another customer's order is a 404, the same as one
// that does not exist, so ids cannot be probed.
func (h *Orders) Show(c *fiber.Ctx) error {
	v, err := orderViewerFor(c, c.OriginalURL())
	if err != nil || !v.SignedIn() {
		return err
	}
	d, err := h.ownOrder(c, v)
	if err != nil {
		return err
	}
	return h.render(c, fiber.StatusOK, d, "")
}

// InvoicePDF is the order's invoice as a PDF, for its customer only.
func (h *Orders) InvoicePDF(c *fiber.Ctx) error {
	v, err := orderViewerFor(c, c.OriginalURL())
	if err != nil || !v.SignedIn() {
		return err
	}
	d, err := h.ownOrder(c, v)
	if err != nil {
		return err
	}
	name, pdf, err := invoicePDF(c.UserContext(), h.Store, h.Store, d)
	return sendPDF(c, name, pdf, err)
}

// ownOrder reads the order of the path if it is the viewer's; another
// customer's order is a 404, the same as one that does not exist.
func (h *Orders) ownOrder(c *fiber.Ctx, v views.Viewer) (store.OrderDetails, error) {
	id, err := pathID(c, "id", "orders.not_found")
	if err != nil {
		return store.OrderDetails{}, err
	}
	d, err := h.Store.OrderDetails(c.UserContext(), id)
	if err != nil {
		return store.OrderDetails{}, notFoundAs(err, "orders.not_found")
	}
	if d.Order.CustomerID != v.ID || !page.Viewer(c).SignedIn() && !page.GuestSees(c, id) {
		return store.OrderDetails{}, page.NotFound("orders.not_found")
	}
	return d, nil
}

func (h *Orders) render(c *fiber.Ctx, status int, d store.OrderDetails, problem string) error {
	sel, err := h.Store.Seller(c.UserContext())
	if err != nil {
		return err
	}
	data := views.OrderPage{Details: d, Loc: h.Store.Location(), Error: problem, Returns: returnsPart(c, h.Store, d, nil), Guest: !page.Viewer(c).SignedIn(), Seller: sel}
	if data.Guest {
		data.Returns.Open = false // asked for signed in: a guest session has no account to follow it in
	}
	if d.Order.Status == store.OrderAwaitingPayment {
		data.CSRF = page.CSRFToken(c)
		data.PayURL, data.Paid = h.Payment.openPage(c.UserContext(), d.Order)
	}
	return page.Render(c, status, page.View{Title: page.T(c, "orders.order", "Number", d.Order.Label()), Page: page.Full(views.OrderView, data)})
}

// ConfirmCancel asks the customer to confirm cancelling an order that has
// not started shipping: a page of its own, so that it works without
// JavaScript. Its form carries a key made here, so that the cancel is
// made once however often it is sent.
func (h *Orders) ConfirmCancel(c *fiber.Ctx) error {
	v, err := orderViewerFor(c, c.OriginalURL())
	if err != nil || !v.SignedIn() {
		return err
	}
	d, err := h.ownOrder(c, v)
	if err != nil {
		return err
	}
	data := views.OrderCancelPage{Details: d, Loc: h.Store.Location(), Key: store.NewID(), CSRF: page.CSRFToken(c)}
	if !(views.OrderPage{Details: d}).CanCancel() {
		return h.render(c, fiber.StatusConflict, d, page.T(c, "orders.cancel.too_late"))
	}
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "orders.cancel.title", "Number", d.Order.Label()), Page: page.Full(views.OrderCancelView, data)})
}

// Cancel cancels the customer's order and refunds it at once (see
// store.CancelOrder). Staff shipping it at the same moment either win
// (409: the order as it is, shipping) or find it cancelled.
func (h *Orders) Cancel(c *fiber.Ctx) error {
	v, err := orderViewerFor(c, paths.Orders)
	if err != nil || !v.SignedIn() {
		return err
	}
	d, err := h.ownOrder(c, v)
	if err != nil {
		return err
	}
	if d.Order.Status == store.OrderAwaitingPayment && h.Payment != nil {
		return h.Payment.Cancel(c, d)
	}
	key := page.Field(c, "key")
	if !store.ValidID(key) || len(key) > 36 {
		return page.BadRequest(page.T(c, "orders.cancel.stale"))
	}
	rf, err := h.Store.CancelOrder(c.UserContext(), d.Order.ID, v.ID, key, mail.OrderRefund(c.BaseURL(), h.Store.Now), h.Refunds)
	switch {
	case errors.Is(err, store.ErrNotCancelable):
		now, rerr := h.Store.OrderDetails(c.UserContext(), d.Order.ID)
		if rerr != nil {
			return rerr
		}
		if now.Order.Status == store.OrderCancelled {
			return page.Redirect(c, paths.Order(d.Order.ID)) // cancelled already, by this form sent twice
		}
		return h.render(c, fiber.StatusConflict, now, page.T(c, "orders.cancel.too_late"))
	case errors.Is(err, store.ErrRefundCard):
		return h.render(c, fiber.StatusBadGateway, d, page.T(c, "orders.cancel.refund_pending"))
	case err != nil:
		return notFoundAs(err, "orders.not_found")
	}
	page.Written(c, "order", d.Order.ID, "refund", rf.ID)
	msg := page.T(c, "orders.cancel.done")
	if rf.Amount.Amount > 0 {
		msg = page.T(c, "orders.cancel.done_refund", "Amount", lang.Money(c.UserContext(), rf.Amount), "Where", views.RefundWhere(c.UserContext(), rf))
	}
	page.Flash(c, views.FlashSuccess, msg)
	return page.Redirect(c, paths.Order(d.Order.ID))
}

// orderViewerFor is signedInFor for the pages of one order, which a guest
// checkout's session sees too: the viewer is then the guest customer, and
// ownOrder shows only the orders that session held or placed.
func orderViewerFor(c *fiber.Ctx, back string) (views.Viewer, error) {
	if id := page.Guest(c); id != "" {
		return views.Viewer{ID: id}, nil
	}
	return signedInFor(c, back)
}
