package handlers

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/jobs"
	"shop/store"
	"shop/store/payment"
	"shop/views"
	"shop/views/lang"
	"shop/web/paths"
)

// SubscriptionStore is what the subscription pages read and write.
type SubscriptionStore interface {
	Product(ctx context.Context, id string) (store.Product, error)
	Customer(ctx context.Context, id string) (store.Customer, error)
	Subscriptions(ctx context.Context, customerID string) ([]store.Subscription, error)
	Subscription(ctx context.Context, customerID, id string) (store.Subscription, error)
	Subscribe(ctx context.Context, req store.SubscribeRequest, charger store.Charger) (store.Subscription, store.Receipt, error)
	PlanSubscribe(req store.SubscribeRequest) (store.PendingSubscribe, error)
	PendingSubscribe(ctx context.Context, customerID, key string) (store.PendingSubscribe, error)
	SubscriptionConsistent(ctx context.Context, customerID, id string) (store.Subscription, error)
	CurrentReceipt(ctx context.Context, sub store.Subscription) (store.Receipt, error)
	ChangeSubscription(ctx context.Context, customerID, id string, version int, change store.SubscriptionChange) (store.Subscription, error)
	CancelSubscriptionNow(ctx context.Context, customerID, id string, version int, refunder store.Refunder, mail func(store.Receipt) *store.Mail) (store.CancelledNow, error)
	ProductPriceChange(ctx context.Context, productID string) (store.PriceChange, error)
	Today() time.Time
}

// SubscribeWindow is what the subscribe form's preview reads through the
// shop window (a second old at most: a preview, not a charge): the product,
// its stock (whether it ships) and its scheduled price.
type SubscribeWindow interface {
	ProductWithStock(ctx context.Context, id string) (store.Product, []store.StockLevel, error)
	ProductPriceChange(ctx context.Context, id string) (store.PriceChange, error)
}

// Subscriptions serves /subscriptions: subscribing from a product's page,
// and the customer's own subscriptions with everything they can change.
type Subscriptions struct {
	Store   SubscriptionStore
	Window  SubscribeWindow
	Gateway payment.Gateway
	// Refunder gives back the unused days when cancelling now refunds
	// them (staff's setting); Mail is the refund's mail.
	Refunder store.Refunder
	Mail     func(store.Receipt) *store.Mail
	// Payer, when set, takes cards through the card provider: a new card
	// is typed on the provider's page, never posted here. Nil: the old
	// gateway tokenises the form's card (until every caller has moved).
	Payer SubscriptionPayer
}

// subscribeFormStore is what a product page needs for its subscribe form.
type subscribeFormStore interface {
	Subscriptions(ctx context.Context, customerID string) ([]store.Subscription, error)
	Today() time.Time
}

// subscribeForm is a fresh subscribe form for a product, nil when it cannot
// be subscribed to: the payment day defaults to today's (in the shop's time
// zone), the period to a month, the card to the one kept most recently.
// Its preview quotes that day and period; the product's stock (whether it
// ships) and scheduled price (nil for none) are the page's.
//
// provider is the card provider new cards go to ("": the old gateway's
// form): then only its kept cards are offered, and a new card is typed on
// its page.
func subscribeForm(ctx context.Context, st subscribeFormStore, v views.Viewer, p store.Product, csrf string, ships bool, change *store.PriceChange, provider string) (*views.SubscribeForm, error) {
	if !p.Subscribable {
		return nil, nil
	}
	f := &views.SubscribeForm{Product: p, SignedIn: v.SignedIn(), Errors: views.FieldErrors{}, CSRF: csrf, Hosted: provider != ""}
	if !v.SignedIn() {
		return f, nil
	}
	subs, err := st.Subscriptions(ctx, v.ID)
	if err != nil {
		return nil, err
	}
	today := st.Today()
	f.Key, f.Day, f.Period, f.Card = store.NewID(), strconv.Itoa(today.Day()), "1", "new"
	if f.Cards = cardsOf(views.KeptCards(subs), provider); len(f.Cards) > 0 {
		f.Card = f.Cards[0].Token
	}
	quoteForm(f, today, today.Day(), 1, ships, change)
	return f, nil
}

// quoteForm sets the form's preview: what its day and period come to when
// subscribing today (store.QuoteSubscription, what Subscribe charges by).
func quoteForm(f *views.SubscribeForm, today time.Time, day, months int, ships bool, change *store.PriceChange) {
	q := store.QuoteSubscription(today, f.Product, day, months, change)
	f.Quote, f.Ships = &q, ships
}

// quote sets the preview of a form whose day and period are valid, from
// the shop window; a form with either wrong keeps none (its errors say
// why).
func (h *Subscriptions) quote(ctx context.Context, f *views.SubscribeForm) error {
	day, derr := strconv.Atoi(f.Day)
	months, perr := strconv.Atoi(f.Period)
	if derr != nil || perr != nil || !store.ValidPaymentDay(day) || !store.ValidPeriod(months) || !f.Product.Subscribable || f.Product.MonthlyPrice.Amount <= 0 {
		return nil
	}
	_, stock, err := h.Window.ProductWithStock(ctx, f.Product.ID)
	if err != nil {
		return err
	}
	var change *store.PriceChange
	if pc, err := h.Window.ProductPriceChange(ctx, f.Product.ID); err == nil {
		change = &pc
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	quoteForm(f, h.Store.Today(), day, months, len(stock) > 0, change)
	return nil
}

// Preview is what a subscribe form's day and period come to, before the
// customer confirms: the preview alone for htmx (the form asks as the day
// or period changes), else the form with it on a page of its own. It
// reads through the shop window and writes nothing.
func (h *Subscriptions) Preview(c *fiber.Ctx) error {
	productID := c.Query("product_id")
	back := paths.Subscriptions
	if store.ValidID(productID) {
		back = paths.Product(productID)
	}
	v, err := signedInFor(c, back)
	if err != nil || !v.SignedIn() {
		return err
	}
	if !store.ValidID(productID) {
		return page.NotFound("That product")
	}
	ctx := c.UserContext()
	p, _, err := h.Window.ProductWithStock(ctx, productID)
	if err != nil {
		return notFoundAs(err, "That product")
	}
	f := views.SubscribeForm{Product: p, SignedIn: true, Day: strings.TrimSpace(c.Query("day")), Period: strings.TrimSpace(c.Query("period")),
		Errors: views.FieldErrors{}, CSRF: page.CSRFToken(c)}
	if !p.Subscribable || p.MonthlyPrice.Amount <= 0 {
		f.Errors[""] = page.T(c, "subs.error.not_subscribable")
	}
	if _, msg := parsePaymentDay(c, f.Day); msg != "" {
		f.Errors["day"] = msg
	}
	if _, msg := parsePeriod(c, f.Period); msg != "" {
		f.Errors["period"] = msg
	}
	if err := h.quote(ctx, &f); err != nil {
		return err
	}
	if page.IsHTMX(c) {
		return page.Write(c, fiber.StatusOK, views.SubscribePreview(f))
	}
	// Without JavaScript: the whole form, with a key and the kept cards.
	subs, err := h.Store.Subscriptions(ctx, v.ID)
	if err != nil {
		return err
	}
	f.Key, f.Card, f.Hosted = store.NewID(), "new", h.hosted()
	if f.Cards = h.keptCards(subs); len(f.Cards) > 0 {
		f.Card = f.Cards[0].Token
	}
	status := fiber.StatusOK
	if f.Errors.Any() {
		status = fiber.StatusUnprocessableEntity
	}
	return page.Render(c, status, page.View{
		Title: page.T(c, "subs.page.title", "Product", p.Name), Page: page.Full(views.SubscribeView, views.SubscribePage{Form: f}),
		Path: paths.Product(p.ID),
	})
}

const formBroken = "This form is broken. Reload the page and try again."

// Subscribe takes the first payment and creates the subscription. The form
// is checked field by field and the card turned into a token first; any
// problem brings the form back with a message at its field and a 422, and
// nothing is written or charged. The form's key makes a double submit one
// subscription and one charge.
func (h *Subscriptions) Subscribe(c *fiber.Ctx) error {
	productID := page.Field(c, "product_id")
	if !page.Viewer(c).SignedIn() {
		page.Flash(c, views.FlashInfo, page.T(c, "subs.flash.sign_in"))
	}
	back := paths.Subscriptions
	if store.ValidID(productID) {
		back = paths.Product(productID)
	}
	v, err := signedInFor(c, back)
	if err != nil || !v.SignedIn() {
		return err
	}
	ctx := c.UserContext()
	val := func(k string) string { return strings.TrimSpace(page.Field(c, k)) }
	f := views.SubscribeForm{
		SignedIn: true, Key: val("key"), Day: val("day"), Period: val("period"), Card: val("card"), Expiry: val("expiry"),
		Errors: views.FieldErrors{}, CSRF: page.CSRFToken(c), Hosted: h.hosted(),
	}
	if !store.ValidID(f.Key) || len(f.Key) > 36 {
		return page.BadRequest(page.T(c, "subs.error.form_broken"))
	}
	if !store.ValidID(productID) {
		return page.NotFound("That product")
	}
	p, err := h.Store.Product(ctx, productID)
	if err != nil {
		return notFoundAs(err, "That product")
	}
	f.Product = p
	if !p.Subscribable || p.MonthlyPrice.Amount <= 0 {
		f.Errors[""] = page.T(c, "subs.error.not_subscribable")
		return h.subscribeAgain(c, f)
	}
	subs, err := h.Store.Subscriptions(ctx, v.ID)
	if err != nil {
		return err
	}
	f.Cards = h.keptCards(subs)

	day, dayErr := parsePaymentDay(c, f.Day)
	if dayErr != "" {
		f.Errors["day"] = dayErr
	}
	period, periodErr := parsePeriod(c, f.Period)
	if periodErr != "" {
		f.Errors["period"] = periodErr
	}
	if page.Field(c, "preview") != "" {
		// "Show what I pay" without JavaScript: the form comes back with
		// its preview; nothing is tokenised, charged or written.
		return h.showQuote(c, f)
	}
	if h.hosted() {
		cust, change, err := h.subscriber(ctx, v.ID, p.ID)
		if err != nil {
			return err
		}
		return h.subscribeHosted(c, f, store.SubscribeRequest{Key: f.Key, CustomerID: v.ID, Email: cust.Email, Lang: jobs.MailLang(ctx, cust.Lang),
			Product: p, PaymentDay: day, PeriodMonths: period, PriceChange: change}, cust)
	}
	card, ok := h.card(c, f.Card, f.Cards, f.Errors)
	if !ok {
		return h.subscribeAgain(c, f)
	}
	cust, change, err := h.subscriber(ctx, v.ID, p.ID)
	if err != nil {
		return err
	}
	sub, receipt, err := h.Store.Subscribe(ctx, store.SubscribeRequest{
		Key: f.Key, CustomerID: v.ID, Email: cust.Email, Lang: jobs.MailLang(ctx, cust.Lang), Product: p, PaymentDay: day, PeriodMonths: period, Card: card, PriceChange: change,
	}, h.Gateway)
	switch {
	case err == nil:
		page.Written(c, "subscription", sub.ID, "receipt", receipt.Number)
		page.Flash(c, views.FlashSuccess, subscribedMessage(c, sub, receipt))
		return page.Redirect(c, paths.Subscriptions)
	case errors.Is(err, store.ErrBadSubscribeKey):
		return page.BadRequest(page.T(c, "subs.error.form_broken"))
	case errors.Is(err, store.ErrNotSubscribable):
		f.Errors[""] = page.T(c, "subs.error.not_subscribable")
	case errors.Is(err, store.ErrBadPaymentDay):
		f.Errors["day"] = subsRefusal(c, err)
	case errors.Is(err, store.ErrBadPeriod):
		f.Errors["period"] = subsRefusal(c, err)
	default:
		field, msg, ok := cardProblemIn(c.UserContext(), err)
		if !ok {
			return err
		}
		if f.Card != "new" && f.Card != "" {
			field = "card"
		}
		f.Errors[field] = msg
	}
	// Nothing was written: a new key, so trying again is a new attempt.
	f.Key = store.NewID()
	return h.subscribeAgain(c, f)
}

// card is the card a form chose: a kept one (which must be among the
// customer's), or a new one tokenised by the gateway. Nothing is tokenised
// while other fields are wrong. ok is false when errs has a problem.
func (h *Subscriptions) card(c *fiber.Ctx, choice string, kept []store.Card, errs views.FieldErrors) (store.Card, bool) {
	number, expiry, cvc := page.Field(c, "card_number"), page.Field(c, "expiry"), page.Field(c, "cvc")
	if choice != "new" && choice != "" {
		for _, k := range kept {
			if k.Token == choice {
				if strings.TrimSpace(number) != "" {
					errs["card"] = page.T(c, "subs.error.typed_new_card", "Card", k.Label())
					return store.Card{}, false
				}
				return k, !errs.Any()
			}
		}
		errs["card"] = page.T(c, "subs.error.choose_card")
		return store.Card{}, false
	}
	if strings.TrimSpace(number) == "" {
		errs["card_number"] = page.T(c, "subs.error.enter_card")
		return store.Card{}, false
	}
	if errs.Any() {
		return store.Card{}, false
	}
	card, err := h.Gateway.Tokenize(c.UserContext(), number, expiry, cvc)
	if err != nil {
		field, msg, ok := cardProblemIn(c.UserContext(), err)
		if !ok {
			errs[""] = page.T(c, "subs.error.card_unchecked")
			return store.Card{}, false
		}
		errs[field] = msg
		return store.Card{}, false
	}
	return card, true
}

// subscribeAgain brings the form back with its errors: in place for htmx,
// on a page of its own for a plain form; with its preview when its day and
// period are right.
func (h *Subscriptions) subscribeAgain(c *fiber.Ctx, f views.SubscribeForm) error {
	page.CSRFToken(c)
	if err := h.quote(c.UserContext(), &f); err != nil {
		return err
	}
	return page.Render(c, fiber.StatusUnprocessableEntity, page.View{
		Title: page.T(c, "subs.page.title", "Product", f.Product.Name), Page: page.Full(views.SubscribeView, views.SubscribePage{Form: f}),
		Partial: views.SubscribePanel(f),
	})
}

// showQuote brings a plain form back on a page of its own with what its day
// and period come to (a 422 with the errors when either is wrong).
func (h *Subscriptions) showQuote(c *fiber.Ctx, f views.SubscribeForm) error {
	if err := h.quote(c.UserContext(), &f); err != nil {
		return err
	}
	status := fiber.StatusOK
	if f.Errors.Any() {
		status = fiber.StatusUnprocessableEntity
	}
	return page.Render(c, status, page.View{
		Title: page.T(c, "subs.page.title", "Product", f.Product.Name), Page: page.Full(views.SubscribeView, views.SubscribePage{Form: f}),
		Partial: views.SubscribePanel(f),
	})
}

func parsePaymentDay(c *fiber.Ctx, s string) (int, string) {
	if s == "" {
		return 0, page.T(c, "subs.error.choose_day")
	}
	n, err := strconv.Atoi(s)
	if err != nil || !store.ValidPaymentDay(n) {
		return 0, page.T(c, "subs.error.bad_day")
	}
	return n, ""
}

func parsePeriod(c *fiber.Ctx, s string) (int, string) {
	n, err := strconv.Atoi(s)
	if err != nil || !store.ValidPeriod(n) {
		return 0, page.T(c, "subs.error.choose_period")
	}
	return n, ""
}

// subsRefusal says in the request's language why a subscription cannot be
// changed that way; an error it does not know keeps its English words.
func subsRefusal(c *fiber.Ctx, err error) string {
	switch {
	case errors.Is(err, store.ErrBadPaymentDay):
		return page.T(c, "subs.error.bad_day")
	case errors.Is(err, store.ErrBadPeriod):
		return page.T(c, "subs.error.bad_period")
	case errors.Is(err, store.ErrSubscriptionCancelled):
		return page.T(c, "subs.error.cancelled")
	case errors.Is(err, store.ErrSubscriptionPaused):
		return page.T(c, "subs.error.paused")
	case errors.Is(err, store.ErrSubscriptionNotPaused):
		return page.T(c, "subs.error.not_paused")
	case errors.Is(err, store.ErrSubscriptionEnding):
		return page.T(c, "subs.error.ending")
	case errors.Is(err, store.ErrSubscriptionNotEnding):
		return page.T(c, "subs.error.not_ending")
	case errors.Is(err, store.ErrSameValue):
		return page.T(c, "subs.error.same")
	case errors.Is(err, store.ErrPaymentOutstanding):
		return page.T(c, "subs.error.outstanding")
	}
	return sentence(err)
}

// List is the customer's subscriptions, newest first.
func (h *Subscriptions) List(c *fiber.Ctx) error {
	v, err := signedInFor(c, paths.Subscriptions)
	if err != nil || !v.SignedIn() {
		return err
	}
	if err := h.confirming(c, v.ID); err != nil {
		return err
	}
	data, err := h.list(c, v, nil)
	if err != nil {
		return err
	}
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "subs.list.title"), Page: page.Full(views.SubscriptionsView, data)})
}

// list is the page's data; the card of `changed` (if any) is shown as
// given, whatever the list read says.
func (h *Subscriptions) list(c *fiber.Ctx, v views.Viewer, changed *views.SubscriptionCard) (views.SubscriptionsPage, error) {
	subs, err := h.Store.Subscriptions(c.UserContext(), v.ID)
	if err != nil {
		return views.SubscriptionsPage{}, err
	}
	kept, today, csrf := h.keptCards(subs), h.Store.Today(), page.CSRFToken(c)
	var data views.SubscriptionsPage
	for _, s := range subs {
		card := views.SubscriptionCard{Sub: s, Cards: kept, Today: today, CSRF: csrf, Hosted: h.hosted()}
		if changed != nil && changed.Sub.ID == s.ID {
			card = *changed
			card.Cards, card.Today, card.CSRF, card.Hosted = kept, today, csrf, h.hosted()
		}
		data.Cards = append(data.Cards, card)
	}
	return data, nil
}

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
	id, err := pathID(c, "id", "That subscription")
	if err != nil {
		return err
	}
	version, err := strconv.Atoi(page.Field(c, "version"))
	if err != nil || version < 1 {
		return page.BadRequest(page.T(c, "subs.error.form_broken"))
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
			return notFoundAs(err, "That subscription")
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
		card.Sub, card.Notice, card.Open, card.Expiry = sub, done(sub), "", ""
		if !page.IsHTMX(c) {
			page.Flash(c, views.FlashSuccess, page.T(c, "subs.flash.changed", "Product", sub.ProductName, "Notice", card.Notice))
			return page.Redirect(c, paths.Subscriptions)
		}
		return h.answer(c, v, fiber.StatusOK, card)
	case errors.As(err, &stale):
		return h.stale(c, v, stale)
	case errors.As(err, &refused):
		card.Sub, card.Error = sub, subsRefusal(c, refused.err)
		return h.answer(c, v, fiber.StatusUnprocessableEntity, card)
	}
	return notFoundAs(err, "That subscription")
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
		card.Cards, card.Today, card.CSRF, card.Hosted = h.keptCards(subs), h.Store.Today(), page.CSRFToken(c), h.hosted()
		return page.Write(c, status, views.SubscriptionCardView(card))
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
			if s.Status != store.SubscriptionActive || next.IsZero() || next.Day() == store.BillingDate(next.Year(), next.Month(), day).Day() {
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

// ChangeCard pays from another card: a kept one or a new one.
func (h *Subscriptions) ChangeCard(c *fiber.Ctx) error {
	if h.hosted() {
		return h.changeCardHosted(c)
	}
	return h.change(c, "card", func(c *fiber.Ctx, card *views.SubscriptionCard) (store.SubscriptionChange, func(store.Subscription) string, error) {
		card.Expiry = strings.TrimSpace(page.Field(c, "expiry"))
		v := page.Viewer(c)
		subs, err := h.Store.Subscriptions(c.UserContext(), v.ID)
		if err != nil {
			return nil, nil, err
		}
		chosen, ok := h.card(c, strings.TrimSpace(page.Field(c, "card")), views.KeptCards(subs), card.Errors)
		if !ok {
			return nil, nil, nil
		}
		return store.ChangeCard(chosen), func(s store.Subscription) string {
			if s.Status == store.SubscriptionPastDue {
				return page.T(c, "subs.done.card_retry", "Card", chosen.Label())
			}
			return page.T(c, "subs.done.card", "Card", chosen.Label())
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
func (h *Subscriptions) Pause(c *fiber.Ctx) error {
	return h.change(c, "", func(c *fiber.Ctx, _ *views.SubscriptionCard) (store.SubscriptionChange, func(store.Subscription) string, error) {
		return store.Pause(), func(store.Subscription) string {
			return page.T(c, "subs.done.paused")
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
		return nil, nil, page.BadRequest(page.T(c, "subs.error.form_broken"))
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
	id, err := pathID(c, "id", "That subscription")
	if err != nil {
		return err
	}
	version, err := strconv.Atoi(page.Field(c, "version"))
	if err != nil || version < 1 {
		return page.BadRequest(page.T(c, "subs.error.form_broken"))
	}
	res, err := h.Store.CancelSubscriptionNow(c.UserContext(), v.ID, id, version, h.Refunder, h.Mail)
	card := views.SubscriptionCard{Sub: res.Subscription, Errors: views.FieldErrors{}}
	var stale *store.StaleError
	switch {
	case errors.As(err, &stale):
		return h.stale(c, v, stale)
	case errors.Is(err, store.ErrSubscriptionCancelled):
		card.Error, card.Open = subsRefusal(c, err), "cancel"
		return h.answer(c, v, fiber.StatusUnprocessableEntity, card)
	case err != nil:
		return notFoundAs(err, "That subscription")
	}
	page.Written(c, "subscription", id)
	card.Notice = page.T(c, "subs.done.cancelled")
	if r := res.Receipt; r != nil && r.Refund != nil {
		amount := lang.Money(c.UserContext(), r.Refund.Amount)
		if r.Refund.Status == store.ReceiptRefunded {
			card.Notice += " " + page.N(c, "subs.done.refunded", res.UnusedDays, "Amount", amount, "Card", r.Card.Label())
		} else {
			card.Notice += " " + page.N(c, "subs.done.refund_pending", res.UnusedDays, "Amount", amount, "Card", r.Card.Label())
		}
	}
	if !page.IsHTMX(c) {
		page.Flash(c, views.FlashSuccess, page.T(c, "subs.flash.changed", "Product", res.Subscription.ProductName, "Notice", card.Notice))
		return page.Redirect(c, paths.Subscriptions)
	}
	return h.answer(c, v, fiber.StatusOK, card)
}
