package handlers

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/store/rules"
	"shop/views"
	"shop/views/lang"
	"shop/web/paths"
)

// refusal marks an error of the change itself (the subscription cannot be
// changed that way), as opposed to one of reading or writing it.
type refusal struct{ err error }

func (r *refusal) Error() string { return r.err.Error() }
func (r *refusal) Unwrap() error { return r.err }

// inLanguage makes a change the customer asks also move the subscription's
// mails to the language they asked in (the one they chose last), in the
// same write: a switch of language reaches a subscription's mails with
// its next change, at no extra request.
func inLanguage(change store.SubscriptionChange, l lang.Lang) store.SubscriptionChange {
	return func(s store.Subscription, today time.Time, lead int) (store.Subscription, error) {
		next, err := change(s, today, lead)
		if err == nil {
			next.Lang = string(l)
		}
		return next, err
	}
}

func refusable(change store.SubscriptionChange) store.SubscriptionChange {
	return func(s store.Subscription, today time.Time, lead int) (store.Subscription, error) {
		next, err := change(s, today, lead)
		if err != nil {
			return next, &refusal{err}
		}
		return next, nil
	}
}

// action is what one form asks of a subscription: the change and what to
// say when it is done. A problem with the input is set in card.Errors (and
// change left nil).
type action func(c *fiber.Ctx, card *views.SubscriptionCard) (change store.SubscriptionChange, done func(store.Subscription) string, err error)

// change runs one action on a subscription as the customer's page showed
// it (the form's version). htmx gets the subscription's card back; a plain
// form goes back to /subscriptions with a flash. A subscription changed in
// the meantime is a 409 with the card as it is now; a change it cannot take
// is a 422 with the reason in the card; another customer's is a 404.
func (h *Subscriptions) change(c *fiber.Ctx, open string, act action) error {
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
	card := views.SubscriptionCard{Errors: views.FieldErrors{}, Open: open}
	change, done, err := act(c, &card)
	if err != nil {
		return err
	}
	if change == nil {
		// Bad input: nothing to change. The form comes back with its errors
		// on the subscription as it is (or as it is now, if it changed).
		sub, err := h.Store.Subscription(ctx, v.ID, id)
		if err != nil {
			return notFoundAs(err, "error.not_found.subscription")
		}
		if sub.Version != version {
			return h.stale(c, v, &store.StaleError{Current: sub})
		}
		card.Sub = sub
		return h.answer(c, v, fiber.StatusUnprocessableEntity, card)
	}
	sub, err := h.Store.ChangeSubscription(ctx, v.ID, id, version, refusable(inLanguage(change, page.Lang(c))))
	var stale *store.StaleError
	var refused *refusal
	switch {
	case err == nil:
		card.Sub, card.Notice, card.Open, card.Until = sub, done(sub), "", ""
		if !page.IsHTMX(c) {
			page.Flash(c, views.FlashSuccess, page.T(c, "subs.flash.changed", "Product", sub.NameIn(string(page.Lang(c))), "Notice", card.Notice))
			return page.Redirect(c, paths.Subscriptions)
		}
		return h.answer(c, v, fiber.StatusOK, card)
	case errors.As(err, &stale):
		return h.stale(c, v, stale)
	case errors.As(err, &refused):
		card.Sub = sub
		if !card.Errors.Any() { // else said at its field
			card.Error = refusalText(c.UserContext(), refused.err)
		}
		return h.answer(c, v, fiber.StatusUnprocessableEntity, card)
	}
	return notFoundAs(err, "error.not_found.subscription")
}

func (h *Subscriptions) stale(c *fiber.Ctx, v views.Viewer, stale *store.StaleError) error {
	card := views.SubscriptionCard{Sub: stale.Current, Error: page.T(c, "subs.error.stale"), Errors: views.FieldErrors{}}
	return h.answer(c, v, fiber.StatusConflict, card)
}

// answer renders a subscription's card: alone for htmx, or the whole list
// with that card in it.
func (h *Subscriptions) answer(c *fiber.Ctx, v views.Viewer, status int, card views.SubscriptionCard) error {
	if page.IsHTMX(c) {
		subs, err := h.Store.Subscriptions(c.UserContext(), v.ID)
		if err != nil {
			return err
		}
		card.Cards, card.Today, card.CSRF = h.keptCards(subs), h.Store.Today(), page.CSRFToken(c)
		products, err := h.Window.SubscribableProducts(c.UserContext())
		if err != nil {
			return err
		}
		card.Products = productsIn(c.UserContext(), products)
		return page.Write(c, status, views.SubscriptionCardAnswer(card))
	}
	data, err := h.list(c, v, &card)
	if err != nil {
		return err
	}
	return page.Render(c, status, page.View{Title: page.T(c, "subs.list.title"), Page: page.Full(views.SubscriptionsView, data)})
}

// dayText is a billing date in the request's language.
func dayText(ctx context.Context, d time.Time) string { return lang.Date(ctx, d) }

// ChangeDay moves the payment day.
func (h *Subscriptions) ChangeDay(c *fiber.Ctx) error {
	return h.change(c, "day", func(c *fiber.Ctx, card *views.SubscriptionCard) (store.SubscriptionChange, func(store.Subscription) string, error) {
		card.Day = strings.TrimSpace(page.Field(c, "day"))
		day, msg := parsePaymentDay(c, card.Day)
		if msg != "" {
			card.Errors["day"] = msg
			return nil, nil, nil
		}
		return store.ChangeDay(day), func(s store.Subscription) string {
			next := s.NextPaymentDate
			if s.Status != store.SubscriptionActive || next.IsZero() || next.Day() == rules.BillingDate(next.Year(), next.Month(), day).Day() {
				return page.T(c, "subs.done.day", "Day", views.DayOfMonth(c.UserContext(), day))
			}
			return page.T(c, "subs.done.day_after", "Date", dayText(c.UserContext(), next), "Day", views.DayOfMonth(c.UserContext(), day))
		}, nil
	})
}

// ChangePeriod bills every n months from the next payment on.
func (h *Subscriptions) ChangePeriod(c *fiber.Ctx) error {
	return h.change(c, "period", func(c *fiber.Ctx, card *views.SubscriptionCard) (store.SubscriptionChange, func(store.Subscription) string, error) {
		months, msg := parsePeriod(c, strings.TrimSpace(page.Field(c, "period")))
		if msg != "" {
			card.Errors["period"] = msg
			return nil, nil, nil
		}
		return store.ChangePeriod(months), func(s store.Subscription) string {
			ctx := c.UserContext()
			return page.T(c, "subs.done.period", "Amount", lang.Money(ctx, s.Amount()), "Period", views.PeriodWord(ctx, months))
		}, nil
	})
}

// Skip lets the next payment pass.
func (h *Subscriptions) Skip(c *fiber.Ctx) error {
	return h.change(c, "", func(c *fiber.Ctx, _ *views.SubscriptionCard) (store.SubscriptionChange, func(store.Subscription) string, error) {
		return store.Skip(), func(s store.Subscription) string {
			return page.T(c, "subs.done.skipped", "Date", dayText(c.UserContext(), s.NextPaymentDate))
		}, nil
	})
}

// Pause stops payments until the customer resumes.
// With a day ("until", YYYY-MM-DD, the date input's value) it is active
// again on that day, which must come after today and within a year.
func (h *Subscriptions) Pause(c *fiber.Ctx) error {
	raw := strings.TrimSpace(page.Field(c, "until"))
	open := ""
	if raw != "" {
		open = "pause"
	}
	return h.change(c, open, func(c *fiber.Ctx, card *views.SubscriptionCard) (store.SubscriptionChange, func(store.Subscription) string, error) {
		if raw == "" {
			return store.Pause(), func(store.Subscription) string { return page.T(c, "subs.done.paused") }, nil
		}
		card.Until = raw
		until, err := rules.ParseDate(raw)
		if err != nil || !rules.ValidPauseEnd(until, h.Store.Today()) {
			card.Errors["until"] = page.T(c, "subs.error.until")
			return nil, nil, nil
		}
		return store.PauseUntil(until), func(store.Subscription) string {
			return page.T(c, "subs.done.paused_until", "Date", dayText(c.UserContext(), until))
		}, nil
	})
}

// Resume starts a paused subscription again.
func (h *Subscriptions) Resume(c *fiber.Ctx) error {
	return h.change(c, "", func(c *fiber.Ctx, _ *views.SubscriptionCard) (store.SubscriptionChange, func(store.Subscription) string, error) {
		return store.Resume(), func(s store.Subscription) string {
			return page.T(c, "subs.done.resumed", "Date", dayText(c.UserContext(), s.NextPaymentDate))
		}, nil
	})
}

// Cancel ends the subscription now, or at the end of the paid period.
func (h *Subscriptions) Cancel(c *fiber.Ctx) error {
	if page.Field(c, "when") == "now" {
		return h.cancelNow(c)
	}
	return h.change(c, "cancel", func(c *fiber.Ctx, card *views.SubscriptionCard) (store.SubscriptionChange, func(store.Subscription) string, error) {
		switch page.Field(c, "when") {
		case "period_end":
			return store.CancelAtPeriodEnd(), func(s store.Subscription) string {
				return page.T(c, "subs.done.ends", "Date", dayText(c.UserContext(), s.EndsOn))
			}, nil
		}
		return nil, nil, page.BadRequest("error.form_broken")
	})
}

// Keep takes back "cancel at the end of the period".
func (h *Subscriptions) Keep(c *fiber.Ctx) error {
	return h.change(c, "", func(c *fiber.Ctx, _ *views.SubscriptionCard) (store.SubscriptionChange, func(store.Subscription) string, error) {
		return store.KeepOn(), func(s store.Subscription) string {
			return page.T(c, "subs.done.kept", "Date", dayText(c.UserContext(), s.NextPaymentDate))
		}, nil
	})
}

// cancelNow ends the subscription today and, when staff allow it, refunds
// the unused days of the period paid last (the store reserves the refund
// in the cancellation's own write).
func (h *Subscriptions) cancelNow(c *fiber.Ctx) error {
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
	res, err := h.Store.CancelSubscriptionNow(c.UserContext(), v.ID, id, version, h.Refunder, h.Mail)
	card := views.SubscriptionCard{Sub: res.Subscription, Errors: views.FieldErrors{}}
	var stale *store.StaleError
	switch {
	case errors.As(err, &stale):
		return h.stale(c, v, stale)
	case errors.Is(err, store.ErrSubscriptionCancelled):
		card.Error, card.Open = refusalText(c.UserContext(), err), "cancel"
		return h.answer(c, v, fiber.StatusUnprocessableEntity, card)
	case err != nil:
		return notFoundAs(err, "error.not_found.subscription")
	}
	page.Written(c, "subscription", id)
	card.Notice = page.T(c, "subs.done.cancelled")
	if r := res.Receipt; r != nil && r.Refund != nil {
		amount := lang.Money(c.UserContext(), res.Refunded)
		if !res.Pending {
			card.Notice += " " + page.N(c, "subs.done.refunded", res.UnusedDays, "Amount", amount, "Card", r.Card.Label())
		} else {
			card.Notice += " " + page.N(c, "subs.done.refund_pending", res.UnusedDays, "Amount", amount, "Card", r.Card.Label())
		}
	}
	if !page.IsHTMX(c) {
		page.Flash(c, views.FlashSuccess, page.T(c, "subs.flash.changed", "Product", res.Subscription.NameIn(string(page.Lang(c))), "Notice", card.Notice))
		return page.Redirect(c, paths.Subscriptions)
	}
	return h.answer(c, v, fiber.StatusOK, card)
}
