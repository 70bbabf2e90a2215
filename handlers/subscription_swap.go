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

// Swap changes a subscription's product or quantity from the next payment,
// or now (swapNow) (POST /subscriptions/:id/swap): the form's "Preview"
// button (a plain form without JavaScript) shows what the choice comes to
// and writes nothing; "Confirm" writes it on condition of the version the
// page showed. Bad input is a 422 with the message at its field.
func (h *Subscriptions) Swap(c *fiber.Ctx) error {
	if page.Field(c, "preview") != "" {
		return h.swapPreviewPage(c)
	}
	if page.Field(c, "when") == "now" {
		return h.swapNow(c)
	}
	return h.change(c, "swap", func(c *fiber.Ctx, card *views.SubscriptionCard) (store.SubscriptionChange, func(store.Subscription) string, error) {
		p, qty, pc, err := h.swapInput(c, page.Field, card)
		if err != nil || card.Errors.Any() {
			return nil, nil, err
		}
		swap := store.SwapProduct(p, qty, pc)
		return func(s store.Subscription, today time.Time, lead int) (store.Subscription, error) {
				next, err := swap(s, today, lead)
				if field, msg, ok := fieldRefusal(c.UserContext(), err); ok {
					// Said at its field (the product's currency is the
					// subscription's, known only now).
					card.Errors[field] = msg
				}
				return next, err
			}, func(s store.Subscription) string {
				return page.T(c, "subs.swap.done", "Date", dayText(c.UserContext(), s.NextPaymentDate), "Line", s.LineName(),
					"Amount", lang.Money(c.UserContext(), s.AmountFor(s.NextPaymentDate)))
			}, nil
	})
}

// SwapPreview is what the swap form's choice comes to (GET, htmx asks as
// the choice changes): the preview alone; without htmx, the page with the
// card's form open and its preview.
func (h *Subscriptions) SwapPreview(c *fiber.Ctx) error {
	v, err := signedInFor(c, paths.Subscriptions)
	if err != nil || !v.SignedIn() {
		return err
	}
	id, err := pathID(c, "id", "error.not_found.subscription")
	if err != nil {
		return err
	}
	sub, err := h.Store.Subscription(c.UserContext(), v.ID, id)
	if err != nil {
		return notFoundAs(err, "error.not_found.subscription")
	}
	card, err := h.swapCard(c, sub, func(c *fiber.Ctx, name string) string { return c.Query(name) })
	if err != nil {
		return err
	}
	if page.IsHTMX(c) {
		return page.Write(c, fiber.StatusOK, views.SwapPreviewView(card))
	}
	return h.answer(c, v, swapStatus(card), card)
}

// swapPreviewPage answers the plain form's "Preview": the card with its
// form open and what the choice comes to; a stale page gets the card as it
// is now (409).
func (h *Subscriptions) swapPreviewPage(c *fiber.Ctx) error {
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
	sub, err := h.Store.Subscription(c.UserContext(), v.ID, id)
	if err != nil {
		return notFoundAs(err, "error.not_found.subscription")
	}
	if sub.Version != version {
		return h.stale(c, v, &store.StaleError{Current: sub})
	}
	card, err := h.swapCard(c, sub, page.Field)
	if err != nil {
		return err
	}
	return h.answer(c, v, swapStatus(card), card)
}

// swapCard is sub's card with the swap form as typed and, when the choice
// is good, its preview.
func (h *Subscriptions) swapCard(c *fiber.Ctx, sub store.Subscription, field func(*fiber.Ctx, string) string) (views.SubscriptionCard, error) {
	card := views.SubscriptionCard{Sub: sub, Errors: views.FieldErrors{}, Open: "swap"}
	p, qty, pc, err := h.swapInput(c, field, &card)
	if err != nil || card.Errors.Any() {
		return card, err
	}
	next, err := store.SwapProduct(p, qty, pc)(sub, h.Store.Today(), 0)
	if field, msg, ok := fieldRefusal(c.UserContext(), err); ok { // the product chosen
		card.Errors[field] = msg
		return card, nil
	}
	if err != nil {
		// Nothing to preview (the same choice, or a subscription that
		// cannot swap): the card says why.
		card.Error = refusalText(c.UserContext(), err)
		return card, nil
	}
	preview := &views.SwapPreview{Product: p, Quantity: qty, Date: next.NextPaymentDate, Amount: next.AmountFor(next.NextPaymentDate)}
	if gross := next.GrossFor(next.NextPaymentDate); gross != preview.Amount && next.Coupon != nil && !next.Coupon.Every {
		// "€26.10 every month" would be wrong once the code runs out.
		preview.Coupon, preview.Gross = next.Coupon, gross
	}
	if !next.NewPriceFrom.IsZero() {
		preview.NewPrice, preview.NewPriceFrom = next.AmountFor(next.NewPriceFrom), next.NewPriceFrom
	}
	if card.Swap.When == "now" {
		plan, err := h.Store.QuoteSwapNowFor(c.UserContext(), sub, next)
		if field, msg, ok := fieldRefusal(c.UserContext(), err); ok { // no period to credit now
			card.Errors[field] = msg
			return card, nil
		}
		if err != nil {
			return card, err
		}
		preview.Now = &plan.Quote
	}
	card.Swap.Preview = preview
	return card, nil
}

func swapStatus(card views.SubscriptionCard) int {
	if card.Errors.Any() {
		return fiber.StatusUnprocessableEntity
	}
	return fiber.StatusOK
}

// swapInput reads the swap form's fields into card.Swap and checks them,
// each error at its field: the product (read from the table, as the write
// will take it), the quantity (1-10) and when ("next" or "now"). It returns the
// product, the quantity and the product's scheduled price, if any.
func (h *Subscriptions) swapInput(c *fiber.Ctx, field func(*fiber.Ctx, string) string, card *views.SubscriptionCard) (store.Product, int, *store.PriceChange, error) {
	f := views.SwapForm{Product: strings.TrimSpace(field(c, "product")), Quantity: strings.TrimSpace(field(c, "quantity")), When: field(c, "when")}
	card.Swap = f
	qty, err := strconv.Atoi(f.Quantity)
	if err != nil || !rules.ValidQuantity(qty) {
		card.Errors["quantity"] = page.T(c, "subs.error.bad_quantity")
	}
	if f.When != "next" && f.When != "now" {
		card.Errors["when"] = page.T(c, "subs.error.choose_when")
	}
	if f.Product == "" || !store.ValidID(f.Product) {
		card.Errors["product"] = page.T(c, "subs.error.choose_product")
		return store.Product{}, 0, nil, nil
	}
	ctx := c.UserContext()
	p, err := h.Store.Product(ctx, f.Product)
	switch {
	case errors.Is(err, store.ErrNotFound):
		card.Errors["product"] = page.T(c, "subs.error.product_not_subscribable")
		return store.Product{}, 0, nil, nil
	case err != nil:
		return store.Product{}, 0, nil, err
	case !p.OpenToSubscribers():
		card.Errors["product"] = page.T(c, "subs.error.product_not_subscribable")
	}
	pc, err := scheduledPrice(ctx, h.Store, p.ID)
	return p, qty, pc, err
}

// priceChangeReader reads a product's scheduled price: the table, or the
// shop window's copy for a preview.
type priceChangeReader interface {
	ProductPriceChange(ctx context.Context, productID string) (store.PriceChange, error)
}

// scheduledPrice is a product's scheduled price change; none scheduled is
// a nil change (the subscription keeps its price), not an error.
func scheduledPrice(ctx context.Context, r priceChangeReader, productID string) (*store.PriceChange, error) {
	pc, err := r.ProductPriceChange(ctx, productID)
	switch {
	case err == nil:
		return &pc, nil
	case errors.Is(err, store.ErrNotFound):
		return nil, nil
	}
	return nil, err
}
