package handlers

import (
	"context"
	"errors"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/jobs"
	"shop/store"
	"shop/store/payment"
	"shop/views"
	"shop/views/lang"
	"shop/web/paths"
)

// SwapCharger charges a swap now's difference to the kept card and
// records the swap, or settles one that waited on the bank's question
// (jobs.SubscriptionPayments).
type SwapCharger interface {
	ChargeSwapNow(ctx context.Context, plan store.SwapNowPlan) (store.SwappedNow, error)
	SettleSwapNow(ctx context.Context, customerID, key string) (jobs.SwapSettled, error)
}

// swapRefusals are the store's reasons a swap cannot be written, said to
// the customer (anything else is an error of reading or writing).
var swapRefusals = []error{store.ErrBadQuantity, store.ErrNotSubscribable, store.ErrOtherCurrency, store.ErrSubscriptionCancelled,
	store.ErrSubscriptionEnding, store.ErrPaymentOutstanding, store.ErrPaymentUnderway, store.ErrSameValue}

// swapNow swaps the product or quantity today (the form's "Now"): the
// page's version is checked before anything is charged (409 with the card
// as it is now), then the difference between the unused days' credit and
// the new line's share is refunded to the card, charged to the kept card,
// or, below the smallest charge, neither. A declined card changes nothing
// and says the bank's word; a bank that asks its holder to confirm sends
// them to its page (303, or HX-Redirect), the swap waiting on the payment
// (swapReturned).
func (h *Subscriptions) swapNow(c *fiber.Ctx) error {
	v, err := signedInFor(c, paths.Subscriptions)
	if err != nil || !v.SignedIn() {
		return err
	}
	id, err := pathID(c, "id", "error.not_found.subscription")
	if err != nil {
		return err
	}
	version, err := strconv.Atoi(page.Field(c, "version"))
	if err != nil || version < 1 {
		return page.BadRequest("error.form_broken")
	}
	ctx := c.UserContext()
	card := views.SubscriptionCard{Errors: views.FieldErrors{}, Open: "swap"}
	p, qty, pc, err := h.swapInput(c, page.Field, &card)
	if err != nil {
		return err
	}
	var plan store.SwapNowPlan
	if !card.Errors.Any() {
		plan, err = h.Store.PlanSwapNow(ctx, v.ID, id, version, p, qty, pc)
	} else if plan.Current, err = h.Store.Subscription(ctx, v.ID, id); err == nil && plan.Current.Version != version {
		err = &store.StaleError{Current: plan.Current}
	}
	if err == nil && !card.Errors.Any() {
		done, werr := h.applySwapNow(ctx, plan)
		if werr == nil {
			return h.swappedNow(c, v, done, plan)
		}
		var bank *jobs.ConfirmAtBank
		if errors.As(werr, &bank) {
			return page.Redirect(c, bank.URL)
		}
		err = werr
		if done.Subscription.ID != "" {
			plan.Current = done.Subscription
		}
	}
	return h.swapNowRefused(c, v, card, plan.Current, err)
}

// applySwapNow moves the plan's money: a refund, a charge, or none.
func (h *Subscriptions) applySwapNow(ctx context.Context, plan store.SwapNowPlan) (store.SwappedNow, error) {
	switch q := plan.Quote; {
	case q.Refund.Amount > 0:
		return h.Store.SwapNowRefunding(ctx, plan, h.Refunder, h.Mail)
	case q.Charge.Amount > 0:
		return h.Charger.ChargeSwapNow(ctx, plan)
	}
	sub, err := h.Store.SwapNowFree(ctx, plan)
	return store.SwappedNow{Subscription: sub}, err
}

// swapNowRefused answers a swap now that wrote nothing: 409 for a stale
// page, else 422 with the reason at its field or on the card.
func (h *Subscriptions) swapNowRefused(c *fiber.Ctx, v views.Viewer, card views.SubscriptionCard, sub store.Subscription, err error) error {
	var stale *store.StaleError
	field, msg, atField := fieldRefusal(c.UserContext(), err)
	bank, isBank := keptCardProblem(c.UserContext(), err)
	switch {
	case errors.As(err, &stale):
		return h.stale(c, v, stale)
	case err == nil: // bad input, said at its fields
	case isBank: // before atField: a card's refusal names a field of the card form, this card's is the card
		card.Error = bank.Text
	case atField: // the product chosen, or no period to credit now
		card.Errors[field] = msg
	case errors.Is(err, jobs.ErrCardElsewhere):
		card.Error = page.T(c, "subs.error.card_elsewhere")
	case errors.Is(err, payment.ErrProviderUnavailable):
		card.Error = page.T(c, "subs.error.payment_page")
	case isAny(err, swapRefusals...):
		card.Error = refusalText(c.UserContext(), err)
	default:
		return notFoundAs(err, "error.not_found.subscription")
	}
	card.Sub = sub
	return h.answer(c, v, fiber.StatusUnprocessableEntity, card)
}

func isAny(err error, targets ...error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}

// swappedNow answers a swap now written: the card (htmx) or the list with
// a flash, saying what moved and when the next payment comes.
func (h *Subscriptions) swappedNow(c *fiber.Ctx, v views.Viewer, done store.SwappedNow, plan store.SwapNowPlan) error {
	ctx := c.UserContext()
	sub, q := done.Subscription, plan.Quote
	args := []any{"Line", sub.LineNameIn(string(page.Lang(c))), "Card", sub.Card.Label(), "From", dayText(ctx, q.From)}
	var notice string
	switch {
	case q.Refund.Amount > 0 && done.Receipt != nil && done.Receipt.Refund != nil && done.Receipt.Refund.Status != store.ReceiptRefunded:
		notice = page.T(c, "subs.swap.done_now_refund_pending", append(args, "Amount", lang.Money(ctx, q.Refund))...)
	case q.Refund.Amount > 0:
		notice = page.T(c, "subs.swap.done_now_refunded", append(args, "Amount", lang.Money(ctx, q.Refund))...)
	case q.Charge.Amount > 0:
		notice = page.T(c, "subs.swap.done_now_charged", append(args, "Amount", lang.Money(ctx, q.Charge))...)
	default:
		notice = page.T(c, "subs.swap.done_now_free", args...)
	}
	notice += " " + page.T(c, "subs.swap.done_now_next", "Date", dayText(ctx, sub.NextPaymentDate), "Amount", lang.Money(ctx, sub.AmountFor(sub.NextPaymentDate)))
	if done.Receipt != nil {
		page.Written(c, "subscription", sub.ID, "receipt", done.Receipt.Number)
	} else {
		page.Written(c, "subscription", sub.ID)
	}
	if !page.IsHTMX(c) {
		page.Flash(c, views.FlashSuccess, page.T(c, "subs.flash.changed", "Product", sub.NameIn(string(page.Lang(c))), "Notice", notice))
		return page.Redirect(c, paths.Subscriptions)
	}
	card := views.SubscriptionCard{Sub: sub, Notice: notice, Errors: views.FieldErrors{}}
	return h.answer(c, v, fiber.StatusOK, card)
}
