package handlers

import (
	"errors"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/jobs"
	"shop/store"
	"shop/views"
	"shop/views/lang"
	"shop/web/paths"
)

// swapReturned is the subscriptions page the bank's page returns to after
// a swap now's charge it asked about: the waiting swap is settled as the
// payment stands (written once, whether this or the provider's event comes
// first) and the page says what happened, on to the plain list (303); one
// paid after the swap stopped waiting is given back. A swap settled
// already (its event came first) or unknown is the list.
func (h *Subscriptions) swapReturned(c *fiber.Ctx, v views.Viewer) error {
	ctx := c.UserContext()
	st, err := h.Charger.SettleSwapNow(ctx, v.ID, c.Query(jobs.SwapReturnQuery))
	if errors.Is(err, store.ErrNotFound) {
		return page.Redirect(c, paths.Subscriptions)
	}
	if err != nil {
		return err
	}
	plan := st.Waiting.Plan
	args := []any{"Product", plan.Current.NameIn(string(page.Lang(c))), "Amount", lang.Money(ctx, plan.Quote.Charge)}
	switch st.Outcome {
	case jobs.SwapApplied:
		return h.swappedNow(c, v, st.Done, plan)
	case jobs.SwapNotPaid:
		page.Flash(c, views.FlashError, page.T(c, "subs.swap.bank_refused", args...))
	case jobs.SwapGivenBack:
		page.Flash(c, views.FlashError, page.T(c, "subs.swap.bank_given_back", args...))
	case jobs.SwapTooLate:
		page.Flash(c, views.FlashError, page.T(c, "subs.swap.bank_too_late", args...))
	default:
		page.Flash(c, views.FlashInfo, page.T(c, "subs.swap.bank_waiting", args...))
	}
	return page.Redirect(c, paths.Subscriptions)
}
