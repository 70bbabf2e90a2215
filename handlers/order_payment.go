package handlers

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/store/payment"
	"shop/views"
	"shop/views/lang"
	"shop/web/paths"
)

// HeldOrders settles a held order the customer cancels (jobs.PaymentSettler).
type HeldOrders interface {
	// Cancel expires the order's page and releases its hold; a page paid
	// meanwhile places it instead (store.ErrOrderPaid).
	Cancel(ctx context.Context, o store.Order) (store.Order, error)
}

// PaymentPages opens the active provider's hosted page for a held order.
type PaymentPages struct {
	Payments payment.Providers
	Store    interface {
		AttachPaymentSession(ctx context.Context, held store.Order, provider, sessionID string) error
	}
	// BaseURL starts the links the provider sends the customer back to;
	// empty: the request's own.
	BaseURL string
	Log     *slog.Logger
}

// Active says whether a provider takes new card payments on its page (in
// Stripe mode, none may be configured yet: a held order cannot be paid).
func (p *PaymentPages) Active() bool { return p != nil && p.Payments.Active() != nil }

// Start opens (or, for the same order, finds again) the page that pays o's
// card part until its deadline, records it on the order, and returns its
// address. The key is the order's, so a double submit, or "try again",
// answers the one page.
func (p *PaymentPages) Start(c *fiber.Ctx, o store.Order) (string, error) {
	ctx := c.UserContext()
	base := p.BaseURL
	if base == "" {
		base = c.BaseURL()
	}
	back := strings.TrimRight(base, "/") + paths.Order(o.ID)
	pr := p.Payments.Active()
	cs, err := pr.StartCheckout(ctx, payment.CheckoutRequest{
		Mode: payment.ModePayment, Amount: o.Hold.Card, Description: lang.T(ctx, "orders.pay.description", "Number", o.Label()),
		ExpiresAt: o.Hold.Until, SuccessURL: back, CancelURL: back, Key: payment.CheckoutKey(o.ID),
		Metadata: map[string]string{payment.MetaOrder: o.ID},
	})
	if err != nil {
		return "", err
	}
	if err := p.Store.AttachPaymentSession(ctx, o, pr.Name(), cs.ID); err != nil {
		if errors.Is(err, store.ErrHoldReleased) {
			// Expired meanwhile: its page must not take money (a payment
			// that still comes is refunded).
			if _, xerr := pr.ExpireCheckout(context.WithoutCancel(ctx), cs.ID); xerr != nil && p.Log != nil {
				p.Log.Warn("expire the page of an order released meanwhile", "order", o.ID, "session", cs.ID, "err", xerr)
			}
		}
		return "", err
	}
	if cs.URL == "" {
		return "", errors.New("the provider's page is no longer open")
	}
	return cs.URL, nil
}

// OrderPaymentStore is what the order page's payment part reads.
type OrderPaymentStore interface {
	OrderDetails(ctx context.Context, orderID string) (store.OrderDetails, error)
	Location() *time.Location
}

// OrderPayment serves an order awaiting its card payment: the poll of its
// status, "pay now" again, and cancelling it.
type OrderPayment struct {
	Store OrderPaymentStore
	Pages *PaymentPages
	Held  HeldOrders
	Log   *slog.Logger
}

// pending reads the viewer's own order of the path.
func (h *OrderPayment) own(c *fiber.Ctx) (store.OrderDetails, bool, error) {
	v, err := orderViewerFor(c, c.OriginalURL())
	if err != nil || !v.SignedIn() {
		return store.OrderDetails{}, false, err
	}
	id, err := pathID(c, "id", "orders.not_found")
	if err != nil {
		return store.OrderDetails{}, false, err
	}
	d, err := h.Store.OrderDetails(c.UserContext(), id)
	if err != nil {
		return store.OrderDetails{}, false, notFoundAs(err, "orders.not_found")
	}
	if d.Order.CustomerID != v.ID || !page.Viewer(c).SignedIn() && !page.GuestSees(c, id) {
		return store.OrderDetails{}, false, page.NotFound("orders.not_found")
	}
	return d, true, nil
}

// Poll is the payment part of the order page, polled by htmx every two
// seconds while the order awaits payment. It only reads: the order is
// placed or released by the provider's events. Once settled, the whole
// page is loaded again (HX-Refresh), so the customer sees the order as it
// now is; without htmx the answer is the order page.
func (h *OrderPayment) Poll(c *fiber.Ctx) error {
	d, ok, err := h.own(c)
	if err != nil || !ok {
		return err
	}
	if !page.IsHTMX(c) {
		return page.Redirect(c, paths.Order(d.Order.ID))
	}
	if d.Order.Status != store.OrderAwaitingPayment {
		c.Set("HX-Refresh", "true")
		return c.SendStatus(fiber.StatusNoContent)
	}
	return page.Write(c, fiber.StatusOK, views.OrderPaymentStatus(views.OrderPage{Details: d, Loc: h.Store.Location()}))
}

// Pay sends the customer to the order's page at the provider again (its
// first opening failed, or they came back before paying).
func (h *OrderPayment) Pay(c *fiber.Ctx) error {
	d, ok, err := h.own(c)
	if err != nil || !ok {
		return err
	}
	if d.Order.Status != store.OrderAwaitingPayment || !h.Pages.Active() {
		return page.Redirect(c, paths.Order(d.Order.ID))
	}
	url, err := h.Pages.Start(c, d.Order)
	if err != nil {
		h.Log.Warn("payment page did not open", "order", d.Order.ID, "err", err)
		page.Flash(c, views.FlashError, page.T(c, "orders.pay.not_started"))
		return page.Redirect(c, paths.Order(d.Order.ID))
	}
	return c.Redirect(url, fiber.StatusSeeOther)
}

// Cancel cancels an order awaiting payment: its page at the provider is
// expired, its goods, codes and gift card given back, its lines put back
// in the cart. A page paid meanwhile places the order instead, and the
// customer is told.
func (h *OrderPayment) Cancel(c *fiber.Ctx, d store.OrderDetails) error {
	o, err := h.Held.Cancel(c.UserContext(), d.Order)
	switch {
	case errors.Is(err, store.ErrOrderPaid):
		page.Flash(c, views.FlashInfo, page.T(c, "orders.pay.paid_meanwhile"))
	case err != nil:
		h.Log.Warn("cancel an order awaiting payment", "order", d.Order.ID, "err", err)
		page.Flash(c, views.FlashError, page.T(c, "orders.pay.cancel_failed"))
	case o.Status == store.OrderExpired:
		page.Written(c, "order", o.ID)
		units := page.CartUnits(c)
		for _, it := range d.Items {
			units += it.Quantity // back in the cart (the cart page puts the count right if some were there already)
		}
		page.SetCartUnits(c, units)
		page.Flash(c, views.FlashSuccess, page.T(c, "orders.pay.cancelled"))
	}
	return page.Redirect(c, paths.Order(d.Order.ID))
}

// openPage is the address of the order's page at its provider while it
// can be paid ("" when there is none, it is closed, or it cannot be read
// now: the order page then offers to open it again), and whether it was
// paid (its event is on its way: nothing to offer).
func (h *OrderPayment) openPage(ctx context.Context, o store.Order) (url string, paid bool) {
	if h == nil || h.Pages == nil || o.Hold == nil || o.Hold.SessionID == "" {
		return "", false
	}
	pr, err := h.Pages.Payments.For(o.Hold.Provider)
	if err != nil {
		return "", false
	}
	cs, err := pr.RetrieveCheckout(ctx, o.Hold.SessionID)
	if err != nil {
		h.Log.Warn("read the payment page of an order", "order", o.ID, "session", o.Hold.SessionID, "err", err)
		return "", false
	}
	if cs.Status != payment.SessionOpen {
		return "", cs.Status == payment.SessionComplete
	}
	return cs.URL, false
}
