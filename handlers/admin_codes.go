package handlers

import (
	"context"
	"crypto/rand"
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

// AdminCodeStore is what the gift card and discount code pages read and
// write.
type AdminCodeStore interface {
	// Currency is the ISO 4217 code the shop prices in.
	Currency() string
	// Now is the shop's clock (the store's, set in tests).
	Now() time.Time
	Location() *time.Location // the shop's time zone: a code's last day is its day
	GiftCards(ctx context.Context, limit int, cursor string) (store.Page[store.GiftCard], error)
	CreateGiftCard(ctx context.Context, g store.GiftCard) (store.GiftCard, error)
	DiscountCodes(ctx context.Context, limit int, cursor string) (store.Page[store.DiscountCode], error)
	CreateDiscountCode(ctx context.Context, d store.DiscountCode) (store.DiscountCode, error)
}

const (
	maxGiftCardCents = 10_000_00
	maxUsageLimit    = 1_000_000
)

// AdminCodes serves /admin/giftcards and /admin/discounts.
type AdminCodes struct {
	Store AdminCodeStore
}

// codeAlphabet has no 0/O or 1/I to misread; 32 letters, so a random byte
// modulo 32 is uniform.
const codeAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// newGiftCardCode makes a code like GIFT-7QK2-M9XD: 40 random bits.
func newGiftCardCode() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("handlers: crypto/rand failed: " + err.Error())
	}
	out := []byte("GIFT-XXXX-XXXX")
	for i, j := 0, 5; i < len(b); i, j = i+1, j+1 {
		if out[j] == '-' {
			j++
		}
		out[j] = codeAlphabet[int(b[i])%len(codeAlphabet)]
	}
	return string(out)
}

// GiftCards lists gift cards, newest first, with the issue form; htmx asks
// for the next page's rows only.
func (h *AdminCodes) GiftCards(c *fiber.Ctx) error {
	return h.renderGiftCards(c, fiber.StatusOK, views.AdminGiftCardForm{})
}

func (h *AdminCodes) renderGiftCards(c *fiber.Ctx, status int, f views.AdminGiftCardForm) error {
	f.CSRF = page.CSRFToken(c)
	if status != fiber.StatusOK && page.IsHTMX(c) {
		c.Vary("HX-Request")
		return page.Write(c, status, views.AdminGiftCardFormView(f))
	}
	cursor := c.Query("after")
	cards, err := h.Store.GiftCards(c.UserContext(), adminPageSize, cursor)
	if err != nil {
		return err
	}
	data := views.AdminGiftCards{Cards: cards.Items, Form: f}
	data.NextURL = paths.More(paths.AdminGiftCards, cards.Next)
	return page.Render(c, status, page.View{Title: page.T(c, "admin.giftcards.title"), Page: page.Full(views.AdminGiftCardsView, data), Partial: views.AdminGiftCardRows(data)})
}

// CreateGiftCard issues a gift card of the amount typed, under the code
// typed or a new one. Bad input and a code in use come back at their field
// with a 422.
func (h *AdminCodes) CreateGiftCard(c *fiber.Ctx) error {
	f := views.AdminGiftCardForm{Code: strings.TrimSpace(page.Field(c, "code")), Amount: strings.TrimSpace(page.Field(c, "amount")), Errors: views.FieldErrors{}}
	code, generated := f.Code, f.Code == ""
	if !generated {
		var err error
		if code, err = store.NormalizeCode(f.Code); err != nil {
			f.Errors["code"] = page.T(c, "admin.giftcards.err.code")
		}
	}
	cur := h.Store.Currency()
	amount, err := rules.ParseMoney(f.Amount, cur)
	switch {
	case f.Amount == "":
		f.Errors["amount"] = page.T(c, "admin.giftcards.err.amount_empty")
	case err != nil:
		f.Errors["amount"] = page.T(c, "admin.giftcards.err.amount_bad", "Currency", cur)
	case amount.Amount == 0:
		f.Errors["amount"] = page.T(c, "admin.codes.err.above_zero")
	case amount.Amount > maxGiftCardCents:
		f.Errors["amount"] = page.T(c, "admin.giftcards.err.too_much", "Max", lang.Money(c.UserContext(), store.Money{Amount: maxGiftCardCents, Currency: cur}))
	}
	if f.Errors.Any() {
		return h.renderGiftCards(c, fiber.StatusUnprocessableEntity, f)
	}
	for attempt := 0; ; attempt++ {
		if generated {
			code = newGiftCardCode()
		}
		card, err := h.Store.CreateGiftCard(c.UserContext(), store.GiftCard{Code: code, Balance: amount})
		switch {
		case errors.Is(err, store.ErrConflict) && generated && attempt < 3:
			continue // a new code met an old one: draw again
		case errors.Is(err, store.ErrConflict):
			f.Errors["code"] = page.T(c, "admin.giftcards.err.exists")
			return h.renderGiftCards(c, fiber.StatusUnprocessableEntity, f)
		case err != nil:
			return err
		}
		page.Flash(c, views.FlashSuccess, page.T(c, "admin.giftcards.issued", "Code", card.Code, "Amount", lang.Money(c.UserContext(), card.Balance)))
		return page.Redirect(c, paths.AdminGiftCards)
	}
}

// Discounts lists discount codes, newest first, with the create form; htmx
// asks for the next page's rows only.
func (h *AdminCodes) Discounts(c *fiber.Ctx) error {
	return h.renderDiscounts(c, fiber.StatusOK, views.AdminDiscountForm{Kind: string(store.DiscountPercent), Limit: "100"})
}

func (h *AdminCodes) renderDiscounts(c *fiber.Ctx, status int, f views.AdminDiscountForm) error {
	f.CSRF = page.CSRFToken(c)
	if status != fiber.StatusOK && page.IsHTMX(c) {
		c.Vary("HX-Request")
		return page.Write(c, status, views.AdminDiscountFormView(f))
	}
	codes, err := h.Store.DiscountCodes(c.UserContext(), adminPageSize, c.Query("after"))
	if err != nil {
		return err
	}
	data := views.AdminDiscounts{Codes: codes.Items, Now: h.Store.Now(), Form: f}
	data.NextURL = paths.More(paths.AdminDiscounts, codes.Next)
	return page.Render(c, status, page.View{Title: page.T(c, "admin.codes.title"), Page: page.Full(views.AdminDiscountsView, data), Partial: views.AdminDiscountRows(data)})
}

// discountFromForm checks the discount form, its errors in the language
// of ctx; the code works through the
// last day typed, a day in the shop's time zone loc, and expires at the
// start of the next there.
func discountFromForm(ctx context.Context, f *views.AdminDiscountForm, currency string, now time.Time, loc *time.Location) store.DiscountCode {
	f.Errors = views.FieldErrors{}
	var d store.DiscountCode
	code, err := store.NormalizeCode(f.Code)
	if err != nil {
		f.Errors["code"] = lang.T(ctx, "admin.codes.err.code")
	}
	d.Code = code
	switch store.DiscountKind(f.Kind) {
	case store.DiscountPercent:
		d.Kind = store.DiscountPercent
		n, err := strconv.Atoi(f.Value)
		if err != nil || n < 1 || n > 100 {
			f.Errors["value"] = lang.T(ctx, "admin.codes.err.percent")
		}
		d.Percent = n
	case store.DiscountFixed:
		d.Kind = store.DiscountFixed
		m, err := rules.ParseMoney(f.Value, currency)
		switch {
		case err != nil:
			f.Errors["value"] = lang.T(ctx, "admin.codes.err.amount_bad", "Currency", currency)
		case m.Amount == 0:
			f.Errors["value"] = lang.T(ctx, "admin.codes.err.above_zero")
		}
		d.Amount = m
	default:
		f.Errors["kind"] = lang.T(ctx, "admin.codes.err.kind")
	}
	if f.Value == "" && f.Errors["kind"] == "" {
		f.Errors["value"] = lang.T(ctx, "admin.codes.err.value_empty")
	}
	day, ok := parseDay(f.Expires)
	y, m, dd := now.In(loc).Date()
	todayStart := time.Date(y, m, dd, 0, 0, 0, 0, time.UTC) // a calendar day, like day
	switch {
	case f.Expires == "":
		f.Errors["expires"] = lang.T(ctx, "admin.codes.err.expires_empty")
	case !ok:
		f.Errors["expires"] = lang.T(ctx, "admin.subrefunds.prices.date_bad")
	case day.Before(todayStart):
		f.Errors["expires"] = lang.T(ctx, "admin.codes.err.expires_past")
	case day.After(todayStart.AddDate(10, 0, 0)):
		f.Errors["expires"] = lang.T(ctx, "admin.codes.err.expires_far")
	}
	d.ExpiresAt = dayStart(day.AddDate(0, 0, 1), loc)
	limit, err := strconv.Atoi(f.Limit)
	switch {
	case f.Limit == "":
		f.Errors["limit"] = lang.T(ctx, "admin.codes.err.limit_empty")
	case err != nil || limit < 1 || limit > maxUsageLimit:
		f.Errors["limit"] = lang.T(ctx, "admin.codes.err.limit_bad")
	}
	d.UsageLimit = limit
	return d
}

// CreateDiscount creates a discount code. Bad input and a code in use come
// back at their field with a 422.
func (h *AdminCodes) CreateDiscount(c *fiber.Ctx) error {
	f := views.AdminDiscountForm{
		Code: strings.TrimSpace(page.Field(c, "code")), Kind: page.Field(c, "kind"), Value: strings.TrimSpace(page.Field(c, "value")),
		Expires: strings.TrimSpace(page.Field(c, "expires")), Limit: strings.TrimSpace(page.Field(c, "limit")),
		Payments: strings.TrimSpace(page.Field(c, "payments")),
	}
	d := discountFromForm(c.UserContext(), &f, h.Store.Currency(), h.Store.Now(), h.Store.Location())
	d.Payments = discountPaymentsFromForm(c.UserContext(), &f)
	if !f.Errors.Any() {
		created, err := h.Store.CreateDiscountCode(c.UserContext(), d)
		switch {
		case errors.Is(err, store.ErrConflict):
			f.Errors["code"] = page.T(c, "admin.codes.err.exists")
		case err != nil:
			return err
		default:
			page.Flash(c, views.FlashSuccess, page.T(c, "admin.codes.created", "Code", created.Code))
			return page.Redirect(c, paths.AdminDiscounts)
		}
	}
	return h.renderDiscounts(c, fiber.StatusUnprocessableEntity, f)
}

// maxCoveredPayments bounds the subscription payments a code covers (ten
// years of monthly payments); more is "every payment", which is 0.
const maxCoveredPayments = 120

// discountPaymentsFromForm is how many subscription payments the form's
// code covers: blank or 0 every payment, N the first N; a bad number is an
// error at its field (discountFromForm has cleared the errors).
func discountPaymentsFromForm(ctx context.Context, f *views.AdminDiscountForm) int {
	if f.Payments == "" {
		return 0
	}
	n, err := strconv.Atoi(f.Payments)
	if err != nil || n < 0 || n > maxCoveredPayments {
		f.Errors["payments"] = lang.T(ctx, "admin.codes.err.payments_bad")
		return 0
	}
	return n
}
