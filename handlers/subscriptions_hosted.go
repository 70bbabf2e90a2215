package handlers

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/jobs"
	"shop/store"
	"shop/store/payment"
	"shop/views"
	"shop/views/lang"
	"shop/web/paths"
)

// SubscriptionPayer moves subscriptions' card payments through the card
// provider (jobs.SubscriptionPayments): a new card is typed on the
// provider's page, a kept card pays in one step, a new card for a
// subscription is saved on the provider's page, and a period the bank
// asked about is paid there.
type SubscriptionPayer interface {
	ActiveProvider() string
	SubscribeWithNewCard(ctx context.Context, plan store.PendingSubscribe, c store.Customer) (jobs.Started, error)
	SubscribeWithKeptCard(ctx context.Context, plan store.PendingSubscribe, card store.Card) (jobs.Started, error)
	NewCard(ctx context.Context, sub store.Subscription, c store.Customer) (string, error)
	PayWaitingPeriod(ctx context.Context, sub store.Subscription) (string, error)
}

// keptCards are the cards a subscribe or a card change may choose: only
// those the active provider saved (others it cannot charge).
func (h *Subscriptions) keptCards(subs []store.Subscription) []store.Card {
	return cardsOf(views.KeptCards(subs), h.Payer.ActiveProvider())
}

// cardsOf are the kept cards provider saved.
func cardsOf(kept []store.Card, provider string) []store.Card {
	var out []store.Card
	for _, k := range kept {
		if k.Provider == provider {
			out = append(out, k)
		}
	}
	return out
}

// subscribeHosted subscribes through the card provider, the form's fields
// checked: a new card goes to the provider's page (a 303 there; the
// subscription starts when the page is paid), a kept card pays at once (or
// goes to its bank's page when the bank asks). A declined kept card brings
// the form back with the bank's word at the card.
func (h *Subscriptions) subscribeHosted(c *fiber.Ctx, f views.SubscribeForm, req store.SubscribeRequest, cust store.Customer) error {
	ctx := c.UserContext()
	var kept *store.Card
	if f.Card != "new" && f.Card != "" {
		for _, k := range f.Cards {
			if k.Token == f.Card {
				kept = &k
			}
		}
		if kept == nil {
			f.Errors["card"] = page.T(c, "subs.error.choose_card")
		}
	}
	if f.Errors.Any() {
		return h.subscribeAgain(c, f)
	}
	plan, err := h.Store.PlanSubscribe(req)
	if err != nil {
		return h.refused(c, f, err)
	}
	var st jobs.Started
	if kept != nil {
		st, err = h.Payer.SubscribeWithKeptCard(ctx, plan, *kept)
	} else {
		st, err = h.Payer.SubscribeWithNewCard(ctx, plan, cust)
	}
	var codeErr *store.CodeError
	bank, isBank := keptCardProblem(ctx, err)
	switch {
	case errors.As(err, &codeErr):
		// Its last use went to another subscribe meanwhile, or it
		// expired: nothing was written or taken.
		f.Errors["code"], f.Discount = refusalText(ctx, codeErr), nil
	case errors.Is(err, store.ErrTrialTaken):
		// Another tab took the trial a moment ago: nothing was written;
		// the form again, quoted without it.
		f.TrialTaken = true
		f.Errors[""] = page.T(c, "subs.trial.taken")
	case errors.Is(err, jobs.ErrCardElsewhere):
		f.Errors["card"] = page.T(c, "subs.error.card_elsewhere")
	case errors.Is(err, payment.ErrProviderUnavailable):
		// Nothing was taken: the form again, to try in a moment.
		f.Errors[""] = page.T(c, "subs.error.payment_page")
	case kept != nil && isBank:
		f.Errors["card"] = bank.Text
		if bank.Title != "" {
			f.Errors[""] = bank.Title
		}
	case err != nil:
		return err
	case st.Subscription != nil:
		page.Written(c, "subscription", st.Subscription.ID, "receipt", st.Receipt.Number)
		page.Flash(c, views.FlashSuccess, subscribedMessage(c, *st.Subscription, st.Receipt))
		return page.Redirect(c, paths.Subscriptions)
	case st.Redirect != "":
		return page.Redirect(c, st.Redirect)
	default:
		return page.Redirect(c, paths.WithQuery(paths.Subscriptions, "subscribe", plan.Key))
	}
	f.Key = store.NewID() // nothing was taken: trying again is a new attempt
	return h.subscribeAgain(c, f)
}

// refused brings the form back with the store's refusal at its field.
func (h *Subscriptions) refused(c *fiber.Ctx, f views.SubscribeForm, err error) error {
	if err := subscribeRefusedAt(c.UserContext(), &f, err); err != nil {
		return err
	}
	return h.subscribeAgain(c, f)
}

// subscribeRefusedAt puts why the store refused a subscribe at its field
// of f (a day, a period, a code, or a product no one may subscribe to at
// the top), a refused code no longer applied; an error that is no answer
// to the customer is returned, and so is a broken form (a 400).
func subscribeRefusedAt(ctx context.Context, f *views.SubscribeForm, err error) error {
	if !refusedAtField(ctx, f.Errors, err) {
		return err
	}
	if errors.As(err, new(*store.CodeError)) {
		f.Discount = nil
	}
	return nil
}

// subscribedMessage is the flash of a new subscription and its first
// receipt.
func subscribedMessage(c *fiber.Ctx, sub store.Subscription, receipt store.Receipt) string {
	ctx := c.UserContext()
	msg := page.T(c, "subs.flash.subscribed_again", "Product", sub.NameIn(string(page.Lang(c))))
	dates, next := lang.DateRange(ctx, receipt.PeriodStart, receipt.LastDay()), lang.Money(ctx, sub.AmountFor(sub.NextPaymentDate))
	switch {
	case receipt.Number == "":
	case receipt.Kind == store.ReceiptTrial:
		msg = page.T(c, "subs.flash.subscribed_trial", "Product", sub.NameIn(string(page.Lang(c))), "Until", dayText(ctx, receipt.LastDay()),
			"Receipt", receipt.NumberInBooks(), "Next", next, "Date", dayText(ctx, sub.NextPaymentDate))
	case receipt.Kind == store.ReceiptFirstDays:
		msg = page.T(c, "subs.flash.subscribed_part", "Product", sub.NameIn(string(page.Lang(c))), "Amount", lang.Money(ctx, receipt.Amount), "Dates", dates,
			"Receipt", receipt.NumberInBooks(), "Next", next, "Date", dayText(ctx, sub.NextPaymentDate))
	case receipt.Kind == store.ReceiptFreeDays:
		msg = page.T(c, "subs.flash.subscribed_free", "Product", sub.NameIn(string(page.Lang(c))), "Dates", dates,
			"Receipt", receipt.NumberInBooks(), "Next", next, "Date", dayText(ctx, sub.NextPaymentDate))
	default:
		msg = page.T(c, "subs.flash.subscribed", "Product", sub.NameIn(string(page.Lang(c))), "Amount", lang.Money(ctx, receipt.Amount),
			"Receipt", receipt.NumberInBooks(), "Date", dayText(ctx, sub.NextPaymentDate))
	}
	if !sub.NewPriceFrom.IsZero() {
		msg += " " + page.T(c, "subs.flash.new_price", "Price", lang.Money(ctx, sub.NewPrice), "Date", dayText(ctx, sub.NewPriceFrom),
			"Amount", lang.Money(ctx, sub.AmountFor(sub.NewPriceFrom)))
	}
	return msg
}

// confirming says, on the page the provider's page returns to, that the
// subscribe it paid is still being confirmed (its event has not come).
func (h *Subscriptions) confirming(c *fiber.Ctx, customerID string) error {
	key := c.Query("subscribe")
	if key == "" {
		return nil
	}
	p, err := h.Store.PendingSubscribe(c.UserContext(), customerID, key)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	switch p.Status {
	case store.SubscribePending:
		page.Flash(c, views.FlashInfo, page.T(c, "subs.flash.confirming", "Product", p.Names.In(string(page.Lang(c)), p.ProductName)))
	case store.SubscribeStarted:
		// Started by the provider's word: the page says so as the form's
		// answer did.
		sub, err := h.Store.SubscriptionConsistent(c.UserContext(), customerID, p.SubscriptionID)
		if err != nil {
			return notFoundAs(err, "error.not_found.subscription")
		}
		receipt, err := h.Store.CurrentReceipt(c.UserContext(), sub)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		page.Flash(c, views.FlashSuccess, subscribedMessage(c, sub, receipt))
	}
	return nil
}

// ChangeCard pays from another card: a kept one (of the active provider)
// at once, a new one on the provider's page in setup mode (a 303 there;
// it replaces the subscription's card when saved).
func (h *Subscriptions) ChangeCard(c *fiber.Ctx) error {
	choice := strings.TrimSpace(page.Field(c, "card"))
	if choice != "new" && choice != "" {
		return h.change(c, "card", func(c *fiber.Ctx, card *views.SubscriptionCard) (store.SubscriptionChange, func(store.Subscription) string, error) {
			subs, err := h.Store.Subscriptions(c.UserContext(), page.Viewer(c).ID)
			if err != nil {
				return nil, nil, err
			}
			for _, k := range h.keptCards(subs) {
				if k.Token == choice {
					return store.ChangeCard(k), cardChanged(c, k), nil
				}
			}
			card.Errors["card"] = page.T(c, "subs.error.choose_card")
			return nil, nil, nil
		})
	}
	v, sub, err := h.ownSubscription(c)
	if err != nil || sub == nil {
		return err
	}
	if sub.Status == store.SubscriptionCancelled {
		// No provider's page for a card nothing will charge.
		card := views.SubscriptionCard{Sub: *sub, Error: refusalText(c.UserContext(), store.ErrSubscriptionCancelled), Errors: views.FieldErrors{}}
		return h.answer(c, v, fiber.StatusUnprocessableEntity, card)
	}
	cust, err := h.Store.Customer(c.UserContext(), v.ID)
	if err != nil {
		return err
	}
	url, err := h.Payer.NewCard(c.UserContext(), *sub, cust)
	if err != nil {
		return err
	}
	return page.Redirect(c, url)
}

func cardChanged(c *fiber.Ctx, chosen store.Card) func(store.Subscription) string {
	return func(s store.Subscription) string {
		if s.Status == store.SubscriptionPastDue {
			return page.T(c, "subs.done.card_retry", "Card", chosen.Label())
		}
		return page.T(c, "subs.done.card", "Card", chosen.Label())
	}
}

// ownSubscription is the signed-in customer's subscription the path
// names, at the version the form showed (a 409 with it as it is now when
// it moved); sub is nil when the answer was given already.
func (h *Subscriptions) ownSubscription(c *fiber.Ctx) (views.Viewer, *store.Subscription, error) {
	v, err := signedInFor(c, paths.Subscriptions)
	if err != nil || !v.SignedIn() {
		return v, nil, err
	}
	id, err := pathID(c, "id", "error.not_found.subscription")
	if err != nil {
		return v, nil, err
	}
	version, err := strconv.Atoi(page.Field(c, "version"))
	if err != nil || version < 1 {
		return v, nil, page.BadRequest("error.form_broken")
	}
	sub, err := h.Store.Subscription(c.UserContext(), v.ID, id)
	if err != nil {
		return v, nil, notFoundAs(err, "error.not_found.subscription")
	}
	if sub.Version != version {
		return v, nil, h.stale(c, v, &store.StaleError{Current: sub})
	}
	return v, &sub, nil
}

// Pay opens the provider's page to pay the period whose payment the bank
// asked the holder to confirm (the mailed link leads to the button): a
// 303 there. A period paid meanwhile goes back to the subscriptions.
func (h *Subscriptions) Pay(c *fiber.Ctx) error {
	_, sub, err := h.ownSubscription(c)
	if err != nil || sub == nil {
		return err
	}
	url, err := h.Payer.PayWaitingPeriod(c.UserContext(), *sub)
	if errors.Is(err, store.ErrIntentMoved) {
		return page.Redirect(c, paths.Subscriptions)
	}
	if err != nil {
		return err
	}
	return page.Redirect(c, url)
}

// subscriber is the customer subscribing and the product's scheduled price
// change (nil for none): it applies to a new subscriber on its day too, and
// the confirmation and the subscription's card say so.
func (h *Subscriptions) subscriber(ctx context.Context, customerID, productID string) (store.Customer, *store.PriceChange, error) {
	cust, err := h.Store.Customer(ctx, customerID)
	if err != nil {
		return store.Customer{}, nil, err
	}
	pc, err := scheduledPrice(ctx, h.Store, productID)
	if err != nil {
		return store.Customer{}, nil, err
	}
	return cust, pc, nil
}
