package handlers

import (
	"context"
	"errors"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/views/lang"
	"shop/web/paths"
)

// RetryCardRefund tries a refund's card part again now, whatever the
// job's backoff ("Retry now" on the order's page and the console's home):
// at the provider that took the payment, under the key of its first try,
// so it never refunds twice (one the provider answered pending is read
// there). Either way staff are sent back to the order's refunds, with what
// happened.
func (h *AdminOrders) RetryCardRefund(c *fiber.Ctx) error {
	if _, ok := page.StaffMember(c); !ok {
		return page.Forbidden(page.T(c, "admin.refunds.err.staff_only"))
	}
	id, err := pathID(c, "id", "error.not_found.order")
	if err != nil {
		return err
	}
	key := c.Params("key")
	if !store.ValidID(key) {
		return page.NotFound("error.not_found.refund")
	}
	ctx := c.UserContext()
	rf, err := h.Store.RetryCardRefund(ctx, id, key, h.Refunds)
	switch {
	case errors.Is(err, store.ErrRefundCard):
		page.Flash(c, views.FlashError, page.T(c, "admin.cardrefunds.still_failing", "Problem", views.CardRefundProblemText(ctx, rf.CardTries.Problem)))
	case errors.Is(err, store.ErrNotFound):
		return page.NotFound("error.not_found.refund")
	case err != nil:
		return err
	case rf.Status == store.RefundCardPending:
		page.Flash(c, views.FlashSuccess, page.T(c, "admin.cardrefunds.provider_pending", "Amount", lang.Money(ctx, rf.Card)))
	default:
		page.Written(c, "order", id, "refund", key)
		page.Flash(c, views.FlashSuccess, page.T(c, "admin.cardrefunds.done", "Amount", lang.Money(ctx, rf.Card)))
	}
	return page.Redirect(c, paths.AdminOrder(id)+"#refunds")
}

// cardRefunds lists the card refunds waiting for the gateway: one Query.
func (h *AdminDashboard) cardRefunds(ctx context.Context, csrf string) (templ.Component, error) {
	list, err := h.Store.PendingCardRefunds(ctx)
	if err != nil {
		return nil, err
	}
	return views.AdminCardRefundsBlock(views.AdminCardRefunds{Refunds: list, CSRF: csrf}), nil
}
