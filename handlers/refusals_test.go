package handlers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/store/payment"
	"shop/views"
	"shop/views/lang"
)

// languages are the shop's three, each as a request's context.
var languages = []context.Context{
	lang.With(context.Background(), lang.English),
	lang.With(context.Background(), lang.Korean),
	lang.With(context.Background(), lang.Indonesian),
}

// refusalCase is a store error and how every page says it: its status,
// its field, and its sentence (id and values as name, value pairs, the
// values already as the reader sees them).
type refusalCase struct {
	err    error
	status int
	field  string
	id     string
	args   []any
}

// checkRefusals holds each case's answer from page.RefusalOf in the three
// languages: the status, the field and the catalogue's sentence, never a
// missing one.
func checkRefusals(t *testing.T, cases []refusalCase) {
	t.Helper()
	for _, tc := range cases {
		for _, ctx := range languages {
			l := lang.From(ctx)
			want := page.Refused{Status: tc.status, Field: tc.field, Text: lang.In(l, tc.id, tc.args...)}
			got, ok := page.RefusalOf(ctx, fmt.Errorf("wrapped: %w", tc.err))
			got.Title = "" // TestCardRefusedTitles holds the headings
			if !ok || got != want {
				t.Errorf("%v in %s: %+v, %v; want %+v", tc.err, l, got, ok, want)
			}
			if strings.Contains(got.Text, lang.Missing(tc.id)) || strings.Contains(got.Text, "{{") {
				t.Errorf("%v in %s: %q is not a whole sentence", tc.err, l, got.Text)
			}
		}
	}
}

// A bad field of a new drop is said at its field, each kind in its own
// words, its limit among them.
func TestDropErrorsSayThemselves(t *testing.T) {
	bad := func(field, kind string, args ...any) *store.DropError {
		return &store.DropError{Field: field, Kind: kind, Args: args, Msg: "English words"}
	}
	invalid := fiber.StatusUnprocessableEntity
	checkRefusals(t, []refusalCase{
		{bad("title", "title"), invalid, "title", "admin.dropsx.err.title", nil},
		{bad("description", "description", "Max", 1000), invalid, "description", "admin.dropsx.err.description", []any{"Max", 1000}},
		{bad("quantity", "quantity", "Max", 100000), invalid, "quantity", "admin.dropsx.err.quantity", []any{"Max", 100000}},
		{bad("opens", "opens_missing"), invalid, "opens", "admin.dropsx.err.opens_missing", nil},
		{bad("opens", "opens_past"), invalid, "opens", "admin.dropsx.err.opens_past", nil},
		{bad("closes", "closes"), invalid, "closes", "admin.dropsx.err.closes", nil},
		{bad("closes", "closes_too_late", "Days", 30), invalid, "closes", "admin.dropsx.err.closes_too_late", []any{"Days", 30}},
		{bad("product", "product"), invalid, "product", "admin.dropsx.err.product", nil},
		{bad("price", "price"), invalid, "price", "admin.dropsx.err.price", nil},
		{bad("price", "price_currency", "Currency", "EUR"), invalid, "price", "admin.dropsx.err.price_currency", []any{"Currency", "EUR"}},
		{bad("redeem", "redeem"), invalid, "redeem", "admin.dropsx.err.redeem", nil},
		{bad("quantity", "quantity_short", "Available", 3, "Product", "Tea"), invalid, "quantity", "admin.dropsx.err.quantity_short", []any{"Available", 3, "Product", "Tea"}},
		{bad("audience", "audience"), invalid, "audience", "admin.dropsx.err.audience", nil},
		{bad("audience", "audience_published"), invalid, "audience", "admin.dropsx.err.audience_published", nil},
		{bad("audience", "audience_product"), invalid, "audience", "admin.dropsx.err.audience_product", nil},
		{bad("audience", "audience_unknown"), invalid, "audience", "admin.dropsx.err.audience_unknown", nil},
	})
}

// A refused discount code or gift card is said at its field, in the same
// words at checkout and on the subscribe form.
func TestCodeErrorsSayThemselves(t *testing.T) {
	at := func(field string, err error) error { return &store.CodeError{Field: field, Err: err} }
	invalid, conflict := fiber.StatusUnprocessableEntity, fiber.StatusConflict
	checkRefusals(t, []refusalCase{
		{at("discount", store.ErrUnknownDiscount), invalid, "discount", "checkout.discount.unknown", nil},
		{at("code", store.ErrUnknownDiscount), invalid, "code", "checkout.discount.unknown", nil},
		{at("giftcard", store.ErrUnknownGiftCard), invalid, "giftcard", "checkout.giftcard.unknown", nil},
		{at("discount", store.ErrCodeExpired), conflict, "discount", "checkout.code.expired", nil},
		{at("code", store.ErrCodeExpired), conflict, "code", "checkout.code.expired", nil},
		{at("discount", store.ErrCodeUsedUp), conflict, "discount", "checkout.code.used_up", nil},
		{at("giftcard", store.ErrGiftCardUsed), conflict, "giftcard", "checkout.giftcard.empty", nil},
		{at("giftcard", store.ErrCodeMixesCurrency), invalid, "giftcard", "checkout.code.currency", nil},
		{at("code", store.ErrCodeCurrency), invalid, "code", "subs.code.currency", nil},
		{at("code", store.ErrBadCode), invalid, "code", "checkout.code.bad", nil},
		{at("giftcard", store.ErrGiftCardChanged), conflict, "giftcard", "checkout.giftcard.changed", nil},
		{store.ErrBadCode, invalid, "", "checkout.code.bad", nil},
	})
	// What the store's callers test for still holds.
	for _, tc := range []struct{ err, is error }{
		{at("discount", store.ErrUnknownDiscount), store.ErrNotFound},
		{at("giftcard", store.ErrUnknownGiftCard), store.ErrNotFound},
		{at("discount", store.ErrCodeMixesCurrency), store.ErrMixedCurrency},
		{at("discount", store.ErrCodeUsedUp), store.ErrCodeUsedUp},
	} {
		if !errors.Is(tc.err, tc.is) {
			t.Errorf("%v is not %v", tc.err, tc.is)
		}
	}
	if r, ok := store.RefusalOf(at("discount", errors.New("disk on fire"))); ok {
		t.Errorf("a code's error that is no refusal says %+v", r)
	}
}

// What the cart and checkout refuse is said with its limits and the
// product's name in the reader's language.
func TestCartAndCheckoutRefusalsSayThemselves(t *testing.T) {
	invalid, conflict := fiber.StatusUnprocessableEntity, fiber.StatusConflict
	tea := store.ProductNames{"ko": "차", "id": "Teh"}
	names := func(l lang.Lang) string { return tea.In(string(l), "Tea") }
	cases := []refusalCase{
		{store.ErrBadQty, invalid, "", "cart.bad_quantity", nil},
		{store.ErrLineTooBig, invalid, "", "cart.line_too_big", []any{"Max", store.MaxLineQty}},
		{store.ErrCartFull, conflict, "", "cart.full", []any{"Max", store.MaxCartLines}},
		{store.ErrEmptyOrder, conflict, "", "checkout.empty", nil},
		{store.ErrOrderTooLarge, invalid, "", "checkout.too_large", nil},
		{store.ErrOneTicketPerOrder, conflict, "", "checkout.one_ticket", nil},
		{fmt.Errorf("your ticket for “Jazz night” expired: %w", store.ErrTicketNotRedeemable), conflict, "", "checkout.ticket_unusable", nil},
	}
	checkRefusals(t, cases)
	for _, ctx := range languages {
		l := lang.From(ctx)
		for _, short := range []*store.StockShortError{{ProductName: "Tea", Names: tea, Wanted: 3}, {ProductName: "Tea", Names: tea, Wanted: 3, Available: 2}} {
			want := lang.In(l, "cart.stock.out", "Product", names(l))
			if short.Available > 0 {
				want = lang.In(l, "cart.stock.short", "Product", names(l), "Available", 2, "Wanted", 3)
			}
			got, ok := page.RefusalOf(ctx, short)
			if !ok || got != (page.Refused{Status: conflict, Text: want}) || strings.Contains(got.Text, "Tea") != (l == lang.English) {
				t.Errorf("%v in %s: %+v, want %q", short, l, got, want)
			}
		}
	}
}

// A swap's product the store refuses is said at the product field, a
// period a swap now cannot credit at the "when" field; the
// form's own fieldRefusal tells it from a refusal of the whole card.
func TestSwapRefusalsSayTheirField(t *testing.T) {
	invalid := fiber.StatusUnprocessableEntity
	checkRefusals(t, []refusalCase{
		{store.ErrOtherCurrency, invalid, "product", "subs.error.other_currency", nil},
		{store.ErrSwapNotSubscribable, invalid, "product", "subs.error.product_not_subscribable", nil},
		{store.ErrNoPaidPeriod, fiber.StatusConflict, "when", "subs.error.swap_now_unpaid", nil},
		{store.ErrChangedNowAlready, fiber.StatusConflict, "when", "subs.error.swap_now_again", nil},
		{store.ErrPeriodEndsToday, fiber.StatusConflict, "when", "subs.error.swap_now_last_day", nil},
	})
	if !errors.Is(store.ErrSwapNotSubscribable, store.ErrNotSubscribable) {
		t.Error("a product no one may subscribe to is no longer ErrNotSubscribable")
	}
	for _, err := range []error{store.ErrSameValue, store.ErrBadQuantity, errors.New("disk on fire"), nil} {
		if field, msg, ok := fieldRefusal(languages[0], err); ok {
			t.Errorf("%v is said at %q: %q", err, field, msg)
		}
	}
}

// A card typed wrong is said at its field of the test payment page, the
// bank's no at the card number; a voided payment is said as one that
// could not be processed. A kept card says each at the card (no field of
// its own), a bank that asks its holder as a decline, and nothing else:
// a key reused is the shop's bug, left to the error page's 500, and a
// voided payment is left to the reconcile.
func TestCardRefusalsSayThemselves(t *testing.T) {
	invalid := fiber.StatusUnprocessableEntity
	checkRefusals(t, []refusalCase{
		{payment.ErrInvalidNumber, invalid, "card_number", "checkout.card.invalid_number", nil},
		{payment.ErrInvalidExpiry, invalid, "expiry", "checkout.card.invalid_expiry", nil},
		{payment.ErrExpired, invalid, "expiry", "checkout.card.expired", nil},
		{payment.ErrInvalidCVC, invalid, "cvc", "checkout.card.invalid_cvc", nil},
		{payment.ErrDeclined, invalid, "card_number", "checkout.card.declined", nil},
		{payment.ErrInsufficientFunds, invalid, "card_number", "checkout.card.insufficient", nil},
		{payment.ErrProcessing, invalid, "card_number", "checkout.card.processing", nil},
		{payment.ErrVoided, invalid, "card_number", "checkout.card.processing", nil},
	})
	if _, ok := page.RefusalOf(languages[0], payment.ErrKeyReused); ok {
		t.Error("a key reused says itself as a refusal: it must stay a 500")
	}
	for err, words := range map[error]string{payment.ErrDeclined: "card was declined", payment.ErrExpired: "card has expired",
		payment.ErrVoided: "this payment was cancelled; start the payment again"} {
		if got := fmt.Errorf("charge: %w", err); !errors.Is(got, err) || err.Error() != words {
			t.Errorf("%v: errors.Is %v, words %q, want %q", got, errors.Is(got, err), err.Error(), words)
		}
	}
	for _, ctx := range languages {
		l := lang.From(ctx)
		for err, id := range map[error]string{
			payment.ErrDeclined: "checkout.card.declined",
			fmt.Errorf("confirm: %w", payment.ErrInsufficientFunds): "checkout.card.insufficient",
			payment.ErrExpired:                "checkout.card.expired",
			payment.ErrProcessing:             "checkout.card.processing",
			payment.ErrAuthenticationRequired: "checkout.card.declined",
			payment.ErrKeyReused:              "",
			payment.ErrProviderUnavailable:    "",
			store.ErrOtherCurrency:            "",
			errors.New("disk on fire"):        "",
			nil:                               "",
		} {
			want := ""
			if id != "" {
				want = lang.In(l, id)
			}
			if got, ok := keptCardProblem(ctx, err); got.Text != want || ok != (want != "") {
				t.Errorf("kept card, %v in %s: %q %v, want %q", err, l, got.Text, ok, want)
			}
		}
	}
}

// A form the bank refused is headed by what happened ("Your card was
// declined", "The payment did not go through"); a card typed wrong, or an
// error that is not the bank's, has no heading.
func TestCardRefusedTitles(t *testing.T) {
	declined, notCharged := "checkout.card.declined_title", "checkout.card.not_charged_title"
	for _, ctx := range languages {
		l := lang.From(ctx)
		for err, id := range map[error]string{
			payment.ErrDeclined: declined,
			fmt.Errorf("charge: %w", payment.ErrInsufficientFunds): declined,
			payment.ErrAuthenticationRequired:                      declined, // a kept card's bank that asks: declined off-session
			payment.ErrProcessing:                                  notCharged,
			payment.ErrVoided:                                      notCharged,
			payment.ErrKeyReused:                                   notCharged, // the test payment page says it as processing
			payment.ErrExpired:                                     "",
			payment.ErrInvalidNumber:                               "",
			payment.ErrInvalidCVC:                                  "",
			store.ErrOtherCurrency:                                 "",
			errors.New("disk on fire"):                             "",
		} {
			want := ""
			if id != "" {
				want = lang.In(l, id)
			}
			if got := titleOf(ctx, err); got != want {
				t.Errorf("%v in %s: title %q, want %q", err, l, got, want)
			}
		}
	}
}

// claimCases are a drop claim's refusals as the drop's page says them:
// the status of the claim area and its sentence.
var claimCases = []refusalCase{
	{store.ErrAlreadyClaimed, fiber.StatusConflict, "", "drops.refused.already", nil},
	{store.ErrSoldOut, fiber.StatusConflict, "", "drops.refused.sold_out", nil},
	{store.ErrCounterFull, fiber.StatusConflict, "", "drops.refused.sold_out", nil},
	{store.ErrDropNotOpen, fiber.StatusUnprocessableEntity, "", "drops.refused.not_open", nil},
	{store.ErrDropClosed, fiber.StatusUnprocessableEntity, "", "drops.refused.closed", nil},
	{store.ErrDropCancelled, fiber.StatusUnprocessableEntity, "", "drops.claim.cancelled", nil},
	{store.ErrClaimContended, fiber.StatusConflict, "", "drops.refused.busy", nil},
	{&store.HeldError{}, fiber.StatusConflict, "", "drops.refused.already", nil},
}

// A refused claim is said with its status in the reader's language; a
// drop not found is no refusal (the error page's).
func TestClaimRefusalsSayThemselves(t *testing.T) {
	checkRefusals(t, claimCases)
	for _, err := range []error{store.ErrNotFound, errors.New("disk on fire")} {
		if r, ok := page.RefusalOf(languages[0], err); ok {
			t.Errorf("%v is a refused claim: %+v", err, r)
		}
	}
	if !errors.Is(store.ErrCounterFull, store.ErrSoldOut) || store.ClaimReason(&store.HeldError{}) != "already_claimed" {
		t.Error("a claim's refusals no longer read as before")
	}
}

// formCase is a store error and where a form says it: the field and the
// sentence in language l ("" field for the form's top); broken is the
// error page's message id of a form not the shop's, and pass an error
// that is no answer to the person (returned as it is).
type formCase struct {
	err    error
	field  string
	text   func(l lang.Lang) string
	broken string
	pass   bool
}

// in is the sentence id with args, in each language.
func in(id string, args ...any) func(lang.Lang) string {
	return func(l lang.Lang) string { return lang.In(l, id, args...) }
}

// checkForm holds, in each language, where say puts each case's error
// on a form of errs and what it returns.
func checkForm(t *testing.T, cases []formCase, say func(ctx context.Context, errs views.FieldErrors, err error) error) {
	t.Helper()
	for _, tc := range cases {
		for _, ctx := range languages {
			l := lang.From(ctx)
			errs := views.FieldErrors{}
			got := say(ctx, errs, tc.err)
			switch {
			case tc.pass:
				if got != tc.err || len(errs) > 0 {
					t.Errorf("%v in %s: %v, %v; want it returned as it is", tc.err, l, got, errs)
				}
			case tc.broken != "":
				if status, text := errorPageOf(ctx, got); status != fiber.StatusBadRequest || text != lang.In(l, tc.broken) || len(errs) > 0 {
					t.Errorf("%v in %s: %v, %v; want 400 %s", tc.err, l, got, errs, tc.broken)
				}
			default:
				want := views.FieldErrors{tc.field: tc.text(l)}
				if got != nil || len(errs) != 1 || errs[tc.field] != want[tc.field] {
					t.Errorf("%v in %s: %v, %v; want %v", tc.err, l, got, errs, want)
				}
			}
		}
	}
}

// errorPageOf is the status and words the error page answers err with
// (as web/errors.go reads a page.Error or a refusal); 0 for neither.
func errorPageOf(ctx context.Context, err error) (int, string) {
	var pe *page.Error
	if errors.As(err, &pe) {
		return pe.Status, pe.Text(ctx)
	}
	r, _ := page.RefusalOf(ctx, err)
	return r.Status, r.Text
}

// The subscribe form says the store's refusal at its field: a day or a
// period out of range, a refused code, a product no one may subscribe
// to at the form's top; a key not the shop's is a broken form (400).
func TestSubscribeRefusalsSayTheirField(t *testing.T) {
	invalid := fiber.StatusUnprocessableEntity
	checkRefusals(t, []refusalCase{
		{store.ErrBadSubscribeKey, fiber.StatusBadRequest, "", "error.form_broken", nil},
		{store.ErrNotSubscribable, invalid, "", "subs.error.not_subscribable", nil},
		{store.ErrBadPaymentDay, invalid, "day", "subs.error.bad_day", nil},
		{store.ErrBadPeriod, invalid, "period", "subs.error.bad_period", nil},
	})
	if _, _, ok := fieldRefusal(languages[0], store.ErrBadSubscribeKey); ok {
		t.Error("a broken form's key is said at a field")
	}
	unknown := &store.CodeError{Field: "code", Err: store.ErrUnknownDiscount}
	checkForm(t, []formCase{
		{err: store.ErrBadSubscribeKey, broken: "error.form_broken"},
		{err: store.ErrNotSubscribable, field: "", text: in("subs.error.not_subscribable")},
		{err: fmt.Errorf("plan: %w", store.ErrBadPaymentDay), field: "day", text: in("subs.error.bad_day")},
		{err: store.ErrBadPeriod, field: "period", text: in("subs.error.bad_period")},
		{err: unknown, field: "code", text: in("checkout.discount.unknown")},
		{err: &store.CodeError{Field: "code", Err: store.ErrCodeCurrency}, field: "code", text: in("subs.code.currency")},
		{err: store.ErrNotFound, pass: true},
		{err: errors.New("disk on fire"), pass: true},
	}, func(ctx context.Context, errs views.FieldErrors, err error) error {
		f := views.SubscribeForm{Errors: errs, Discount: &store.DiscountCode{Code: "TEN"}}
		got := subscribeRefusedAt(ctx, &f, err)
		if errors.As(err, new(*store.CodeError)) != (f.Discount == nil) {
			t.Errorf("%v: discount %v after it", err, f.Discount)
		}
		return got
	})
}

// The checkout form says why an order was refused while placing at its
// field: a country no zone delivers to at the country, a code at its
// field, the rest at the form's top, a ticket and a change meanwhile
// saying that nothing was charged. A key not the shop's is a broken form
// (400); an error that is no answer to the customer is returned.
func TestCheckoutRefusalsSayTheirField(t *testing.T) {
	tea := store.ProductNames{"ko": "차", "id": "Teh"}
	short := &store.StockShortError{ProductName: "Tea", Names: tea, Wanted: 3, Available: 2}
	shortText := func(l lang.Lang) string {
		return lang.In(l, "cart.stock.short", "Product", tea.In(string(l), "Tea"), "Available", 2, "Wanted", 3)
	}
	ticket := func(l lang.Lang) string {
		return lang.In(l, "checkout.ticket_refused", "Why", lang.In(l, "checkout.ticket_unusable"))
	}
	checkForm(t, []formCase{
		{err: fmt.Errorf("place: %w", short), field: "", text: shortText},
		{err: &store.CodeError{Field: "discount", Err: store.ErrCodeUsedUp}, field: "discount", text: in("checkout.code.used_up")},
		{err: &store.CodeError{Field: "giftcard", Err: store.ErrGiftCardChanged}, field: "giftcard", text: in("checkout.giftcard.changed")},
		{err: store.ErrTotalChanged, field: "", text: in("checkout.total_changed")},
		{err: placing("checkout.ticket_refused", "Why", store.ErrTicketNotRedeemable), field: "", text: ticket},
		{err: store.ErrCartChanged, field: "", text: in("checkout.cart_changed")},
		{err: &store.Refusal{Kind: store.Invalid, Message: "checkout.shipping.choose", Field: "country", Err: store.ErrNoShippingZone}, field: "country", text: in("checkout.shipping.choose")},
		{err: store.ErrOrderTooLarge, field: "", text: in("checkout.too_large")},
		{err: store.ErrBadCheckoutKey, broken: "checkout.form_broken"},
		{err: placing("checkout.conflict"), field: "", text: in("checkout.conflict")},
		// Refused by the quote, which the form's summary said above it
		// (summarize) when its cart was the same: met only while placing
		// after another tab changed the cart, now said on the form too.
		{err: store.ErrEmptyOrder, field: "", text: in("checkout.empty")},
		{err: store.ErrOneTicketPerOrder, field: "", text: in("checkout.one_ticket")},
		{err: store.ErrMixedCurrency, pass: true},
		{err: errors.New("disk on fire"), pass: true},
	}, func(ctx context.Context, errs views.FieldErrors, err error) error {
		if !refusedAtField(ctx, errs, err) {
			return err
		}
		return nil
	})
}

// placing is a refusal as store.HoldCheckout says one it met while placing
// (placingRefusal; the store's TestPlacingRefusal holds which).
func placing(message string, args ...any) error {
	return &store.Refusal{Kind: store.Conflict, Message: message, Args: args, Words: "as placing said it"}
}

// Staff's new monthly price is refused at its field: a day too soon with
// the notice it needs, a product no one subscribes to; an announced
// change stands (409). The same price is said with the current one (the
// web test of scheduling holds it).
func TestPriceChangeRefusalsSayTheirField(t *testing.T) {
	invalid := fiber.StatusUnprocessableEntity
	checkRefusals(t, []refusalCase{
		{store.ErrPriceTooSoon, invalid, "date", "admin.subrefundsx.price_too_soon", []any{"Days", store.PriceNoticeDays}},
		{store.ErrPriceNotSubscribed, invalid, "product", "admin.subrefundsx.price_not_subscribed", nil},
		{store.ErrPriceAnnounced, fiber.StatusConflict, "", "admin.subrefundsx.price_announced", nil},
	})
}
