package handlers

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/jobs"
	"shop/store"
	"shop/store/rules"
	"shop/views"
	"shop/views/mail"
	"shop/web/paths"
)

// SubscriptionStore is what the subscription pages read and write.
type SubscriptionStore interface {
	Product(ctx context.Context, id string) (store.Product, error)
	Customer(ctx context.Context, id string) (store.Customer, error)
	Subscriptions(ctx context.Context, customerID string) ([]store.Subscription, error)
	Subscription(ctx context.Context, customerID, id string) (store.Subscription, error)
	PlanSubscribe(req store.SubscribeRequest) (store.PendingSubscribe, error)
	SubscribeCode(ctx context.Context, typed, currency string) (store.DiscountCode, error)
	PendingSubscribe(ctx context.Context, customerID, key string) (store.PendingSubscribe, error)
	SubscriptionConsistent(ctx context.Context, customerID, id string) (store.Subscription, error)
	CurrentReceipt(ctx context.Context, sub store.Subscription) (store.Receipt, error)
	ChangeSubscription(ctx context.Context, customerID, id string, version int, change store.SubscriptionChange) (store.Subscription, error)
	CancelSubscriptionNow(ctx context.Context, customerID, id string, version int, refunder store.Refunder, mail func(store.Receipt) *store.Mail) (store.CancelledNow, error)
	ProductPriceChange(ctx context.Context, productID string) (store.PriceChange, error)
	TrialTaken(ctx context.Context, customerID, productID string) (bool, error)
	Today() time.Time
	// Delivery of a product that ships, priced when subscribing
	// (subscribe_delivery.go): the zones as the table has them, and where
	// the customer's orders ship.
	ShippingZones(ctx context.Context) ([]store.ShippingZone, error)
	SubscriptionShipTo(ctx context.Context, customerID string) (store.Address, error)
	// A swap now (subscription_swap_now.go).
	QuoteSwapNowFor(ctx context.Context, cur, next store.Subscription) (store.SwapNowPlan, error)
	PlanSwapNow(ctx context.Context, customerID, id string, version int, p store.Product, quantity int, change *store.PriceChange) (store.SwapNowPlan, error)
	SwapNowFree(ctx context.Context, plan store.SwapNowPlan) (store.Subscription, error)
	SwapNowRefunding(ctx context.Context, plan store.SwapNowPlan, refunder store.Refunder, mail func(store.Receipt) *store.Mail) (store.SwappedNow, error)
}

// SubscribeWindow is what the subscribe form's preview reads through the
// shop window (a second old at most: a preview, not a charge): the product,
// its stock (whether it ships) and its scheduled price.
type SubscribeWindow interface {
	ProductWithStock(ctx context.Context, id string) (store.Product, []store.StockLevel, error)
	ProductPriceChange(ctx context.Context, id string) (store.PriceChange, error)
	// SubscribableProducts are what a subscription may swap to.
	SubscribableProducts(ctx context.Context) ([]store.Product, error)
	// ShippingZones price the preview's delivery, a minute old at most.
	ShippingZones(ctx context.Context) ([]store.ShippingZone, error)
}

// Subscriptions serves /subscriptions: subscribing from a product's page,
// and the customer's own subscriptions with everything they can change.
type Subscriptions struct {
	Store  SubscriptionStore
	Window SubscribeWindow
	// Refunder gives back the unused days when cancelling now refunds
	// them (staff's setting); Mail is the refund's mail.
	Refunder store.Refunder
	Mail     func(store.Receipt) *store.Mail
	// Payer takes cards through the card provider: a new card is typed
	// on the provider's page, never posted here.
	Payer SubscriptionPayer
	// Charger charges a swap now's difference to the kept card.
	Charger SwapCharger
}

// subscribeFormStore is what a product page needs for its subscribe form.
type subscribeFormStore interface {
	Subscriptions(ctx context.Context, customerID string) ([]store.Subscription, error)
	TrialTaken(ctx context.Context, customerID, productID string) (bool, error)
	Today() time.Time
	SubscriptionShipTo(ctx context.Context, customerID string) (store.Address, error)
}

// trialTaken notes on the form whether the customer had the product's free
// trial (one read, only for a product with a trial): the form says so and
// quotes as without one.
func trialTaken(ctx context.Context, st subscribeFormStore, customerID string, f *views.SubscribeForm) error {
	if f.Product.TrialDays <= 0 {
		return nil
	}
	taken, err := st.TrialTaken(ctx, customerID, f.Product.ID)
	f.TrialTaken = taken
	return err
}

// subscribeForm is a fresh subscribe form for a product, nil when it cannot
// be subscribed to: the payment day defaults to today's (in the shop's time
// zone), the period to a month, the card to the one kept most recently.
// Its preview quotes that day and period; the product's stock (whether it
// ships) and scheduled price (nil for none) are the page's, the zones
// its delivery is priced at the shop window's.
//
// provider is the card provider new cards go to: only its kept cards are
// offered (others it cannot charge), and a new card is typed on its page.
func subscribeForm(ctx context.Context, st subscribeFormStore, zones shippingZones, v views.Viewer, p store.Product, csrf string, ships bool, change *store.PriceChange, provider string) (*views.SubscribeForm, error) {
	if !p.Subscribable {
		return nil, nil
	}
	f := &views.SubscribeForm{Product: p, SignedIn: v.SignedIn(), Errors: views.FieldErrors{}, CSRF: csrf}
	if !v.SignedIn() {
		return f, nil
	}
	subs, err := st.Subscriptions(ctx, v.ID)
	if err != nil {
		return nil, err
	}
	if err := trialTaken(ctx, st, v.ID, f); err != nil {
		return nil, err
	}
	today := st.Today()
	f.Key, f.Day, f.Period, f.Card = store.NewID(), strconv.Itoa(today.Day()), "1", "new"
	if f.Cards = cardsOf(views.KeptCards(subs), provider); len(f.Cards) > 0 {
		f.Card = f.Cards[0].Token
	}
	f.Ships = ships
	if err := formDelivery(ctx, zones, st, v.ID, f); err != nil {
		return nil, err
	}
	quoteForm(f, today, today.Day(), 1, ships, change)
	return f, nil
}

// quoteForm sets the form's preview: what its day, period, discount code
// and delivery (f.Delivery, formDelivery's) come to when subscribing today
// (store.QuoteSubscriptionShipped, what Subscribe charges by).
func quoteForm(f *views.SubscribeForm, today time.Time, day, months int, ships bool, change *store.PriceChange) {
	var coupon *store.Coupon
	if f.Discount != nil {
		c := store.CouponOf(*f.Discount)
		coupon = &c
	}
	product := f.Product
	if f.TrialTaken {
		product.TrialDays = 0
	}
	shipping := f.Delivery.PeriodRate(product.MonthlyPrice, months)
	if coupon != nil {
		q := store.QuoteSubscriptionShipped(today, product, day, months, change, coupon, shipping)
		f.Quote, f.Ships = &q, ships
		return
	}
	k := quoteKey{today: today, price: product.MonthlyPrice, trialDays: product.TrialDays, day: day, months: months, shipping: shipping}
	if change != nil {
		k.change, k.changed = *change, true
	}
	q, ok := quotes.Get(k)
	if !ok {
		q = store.QuoteSubscriptionShipped(today, product, day, months, change, nil, shipping)
		quotes.Put(k, q)
	}
	f.Quote, f.Ships = &q, ships
}

// quoteKey is everything a quote without a discount code is made of
// (store.QuoteSubscriptionShipped is a function of these alone).
type quoteKey struct {
	today           time.Time
	price, shipping store.Money
	trialDays       int
	day, months     int
	change          store.PriceChange
	changed         bool
}

// quotes keeps the quotes of subscribe forms without a code: every signed-in
// view of a subscribable product quotes the same day and period for
// everyone, and computing it was a twentieth of the view. Its key has the
// day in it, so a quote is never an old day's; the minute only bounds
// memory, as does the count.
var quotes = page.NewMoment[quoteKey, store.SubscribeQuote](time.Minute, 4_096, nil)

// quote sets the preview of a form whose day and period are valid, from
// the shop window, with its delivery to where the customer's orders ship;
// a form with either wrong keeps none (its errors say why).
func (h *Subscriptions) quote(ctx context.Context, customerID string, f *views.SubscribeForm) error {
	day, derr := strconv.Atoi(f.Day)
	months, perr := strconv.Atoi(f.Period)
	if derr != nil || perr != nil || !rules.ValidPaymentDay(day) || !rules.ValidPeriod(months) || !f.Product.OpenToSubscribers() {
		return nil
	}
	_, stock, err := h.Window.ProductWithStock(ctx, f.Product.ID)
	if err != nil {
		return err
	}
	if f.Ships = len(stock) > 0; f.Delivery == nil && f.DeliveryProblem == "" {
		if err := formDelivery(ctx, h.Window, h.Store, customerID, f); err != nil {
			return err
		}
	}
	change, err := scheduledPrice(ctx, h.Window, f.Product.ID)
	if err != nil {
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
		return page.NotFound("error.not_found.product")
	}
	ctx := c.UserContext()
	p, _, err := h.Window.ProductWithStock(ctx, productID)
	if err != nil {
		return notFoundAs(err, "error.not_found.product")
	}
	f := views.SubscribeForm{Product: p, SignedIn: true, Day: strings.TrimSpace(c.Query("day")), Period: strings.TrimSpace(c.Query("period")),
		Code: strings.TrimSpace(c.Query("code")), Errors: views.FieldErrors{}, CSRF: page.CSRFToken(c)}
	if !p.OpenToSubscribers() {
		f.Errors[""] = page.T(c, "subs.error.not_subscribable")
	}
	if _, msg := parsePaymentDay(c, f.Day); msg != "" {
		f.Errors["day"] = msg
	}
	if _, msg := parsePeriod(c, f.Period); msg != "" {
		f.Errors["period"] = msg
	}
	if err := h.formCode(c, &f); err != nil {
		return err
	}
	if err := trialTaken(ctx, h.Store, v.ID, &f); err != nil {
		return err
	}
	if err := h.quote(ctx, v.ID, &f); err != nil {
		return err
	}
	if page.IsHTMX(c) {
		return page.Write(c, fiber.StatusOK, views.SubscribePreview(&f))
	}
	// Without JavaScript: the whole form, with a key and the kept cards.
	subs, err := h.Store.Subscriptions(ctx, v.ID)
	if err != nil {
		return err
	}
	f.Key, f.Card = store.NewID(), "new"
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

// Subscribe takes the first payment and creates the subscription, through
// the card provider (subscribeHosted). The form is checked field by field
// first; any problem brings the form back with a message at its field and
// a 422, and nothing is written or charged. The form's key makes a double
// submit one subscription and one charge.
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
		SignedIn: true, Key: val("key"), Day: val("day"), Period: val("period"), Card: val("card"), Code: val("code"),
		Errors: views.FieldErrors{}, CSRF: page.CSRFToken(c),
	}
	if !store.ValidID(f.Key) || len(f.Key) > 36 {
		return page.BadRequest("error.form_broken")
	}
	if !store.ValidID(productID) {
		return page.NotFound("error.not_found.product")
	}
	p, err := h.Store.Product(ctx, productID)
	if err != nil {
		return notFoundAs(err, "error.not_found.product")
	}
	f.Product = p
	if !p.OpenToSubscribers() {
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
	if err := h.formCode(c, &f); err != nil {
		return err
	}
	if err := trialTaken(ctx, h.Store, v.ID, &f); err != nil {
		return err
	}
	if page.Field(c, "preview") != "" {
		// "Show what I pay" without JavaScript: the form comes back with
		// its preview; nothing is tokenised, charged or written.
		return h.showQuote(c, f)
	}
	if err := h.chargedDelivery(ctx, v.ID, &f); err != nil {
		return err
	}
	if f.DeliveryProblem != "" {
		f.Errors[""] = f.DeliveryProblem
		return h.subscribeAgain(c, f)
	}
	cust, change, err := h.subscriber(ctx, v.ID, p.ID)
	if err != nil {
		return err
	}
	return h.subscribeHosted(c, f, store.SubscribeRequest{Key: f.Key, CustomerID: v.ID, Email: cust.Email, Lang: mail.Lang(ctx, cust.Lang),
		Product: p, PaymentDay: day, PeriodMonths: period, PriceChange: change, Discount: f.Discount, TrialTaken: f.TrialTaken,
		Delivery: f.Delivery}, cust)
}

// subscribeAgain brings the form back with its errors: in place for htmx,
// on a page of its own for a plain form; with its preview when its day and
// period are right.
func (h *Subscriptions) subscribeAgain(c *fiber.Ctx, f views.SubscribeForm) error {
	page.CSRFToken(c)
	if err := h.quote(c.UserContext(), page.Viewer(c).ID, &f); err != nil {
		return err
	}
	return page.Render(c, fiber.StatusUnprocessableEntity, page.View{
		Title: page.T(c, "subs.page.title", "Product", f.Product.Name), Page: page.Full(views.SubscribeView, views.SubscribePage{Form: f}),
		Partial: views.SubscribePanel(&f),
	})
}

// showQuote brings a plain form back on a page of its own with what its day
// and period come to (a 422 with the errors when either is wrong).
func (h *Subscriptions) showQuote(c *fiber.Ctx, f views.SubscribeForm) error {
	if err := h.quote(c.UserContext(), page.Viewer(c).ID, &f); err != nil {
		return err
	}
	status := fiber.StatusOK
	if f.Errors.Any() {
		status = fiber.StatusUnprocessableEntity
	}
	return page.Render(c, status, page.View{
		Title: page.T(c, "subs.page.title", "Product", f.Product.Name), Page: page.Full(views.SubscribeView, views.SubscribePage{Form: f}),
		Partial: views.SubscribePanel(&f),
	})
}

func parsePaymentDay(c *fiber.Ctx, s string) (int, string) {
	if s == "" {
		return 0, page.T(c, "subs.error.choose_day")
	}
	n, err := strconv.Atoi(s)
	if err != nil || !rules.ValidPaymentDay(n) {
		return 0, page.T(c, "subs.error.bad_day")
	}
	return n, ""
}

func parsePeriod(c *fiber.Ctx, s string) (int, string) {
	n, err := strconv.Atoi(s)
	if err != nil || !rules.ValidPeriod(n) {
		return 0, page.T(c, "subs.error.choose_period")
	}
	return n, ""
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
	if c.Query(jobs.SwapReturnQuery) != "" {
		return h.swapReturned(c, v)
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
	offered, err := h.Window.SubscribableProducts(c.UserContext())
	if err != nil {
		return views.SubscriptionsPage{}, err
	}
	products := productsIn(c.UserContext(), offered)
	var data views.SubscriptionsPage
	for _, s := range subs {
		card := views.SubscriptionCard{Sub: s, Cards: kept, Today: today, CSRF: csrf, Products: products}
		if changed != nil && changed.Sub.ID == s.ID {
			card = *changed
			card.Cards, card.Today, card.CSRF, card.Products = kept, today, csrf, products
		}
		data.Cards = append(data.Cards, card)
	}
	return data, nil
}
