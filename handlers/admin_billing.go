package handlers

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
)

// AdminBillingStore is what the billing dashboard reads: the
// subscriptions' kept totals, never the subscriptions.
type AdminBillingStore interface {
	BillingTotals(ctx context.Context, t time.Time) (store.BillingTotals, error)
	Now() time.Time
}

// AdminBilling serves /admin/billing.
type AdminBilling struct {
	Store AdminBillingStore
}

// Show is the billing dashboard: MRR and the subscriptions by status now,
// and the last 12 months' new, cancelled, dunned and recovered.
func (h *AdminBilling) Show(c *fiber.Ctx) error {
	totals, err := h.Store.BillingTotals(c.UserContext(), h.Store.Now())
	if err != nil {
		return err
	}
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "admin.billing.title"),
		Page: page.Full(views.AdminBillingView, views.AdminBilling{Totals: totals})})
}
