package views

import (
	"context"
	"strconv"
	"time"

	"shop/store"
)

// AdminGiftCardForm is the new gift card form as typed.
type AdminGiftCardForm struct {
	Code   string
	Amount string
	Errors FieldErrors
	CSRF   string
}

// AdminGiftCards lists gift cards and offers the form.
type AdminGiftCards struct {
	Cards   []store.GiftCard
	NextURL string
	Form    AdminGiftCardForm
}

// AdminDiscountForm is the new discount code form as typed.
type AdminDiscountForm struct {
	Code    string
	Kind    string
	Value   string
	Expires string // YYYY-MM-DD, the last day it works
	Limit   string
	// Payments is how many subscription payments it covers: "" or 0
	// every one, N the first N.
	Payments string
	Errors   FieldErrors
	CSRF     string
}

// AdminDiscounts lists discount codes and offers the form.
type AdminDiscounts struct {
	Codes   []store.DiscountCode
	NextURL string
	Now     time.Time
	Form    AdminDiscountForm
}

// discountLastDay is the last day a code works: it expires at the start of
// the next.
func discountLastDay(ctx context.Context, d store.DiscountCode) string {
	if d.ExpiresAt.IsZero() {
		return "—"
	}
	return adminDay(ctx, d.ExpiresAt.Add(-time.Millisecond))
}

func discountValue(ctx context.Context, d store.DiscountCode) string {
	if d.Kind == store.DiscountPercent {
		return strconv.Itoa(d.Percent) + " %"
	}
	return money(ctx, d.Amount)
}

// discountState marks whether a code works now: active green, expired and
// used up struck.
func discountState(ctx context.Context, d store.DiscountCode, now time.Time) statusBadge {
	switch d.Usable(now) {
	case nil:
		return statusBadge{t(ctx, "admin.codes.state.active"), "ins"}
	case store.ErrCodeExpired:
		return statusBadge{t(ctx, "admin.codes.state.expired"), "del"}
	default:
		return statusBadge{t(ctx, "admin.codes.state.used_up"), "del"}
	}
}

// adminDiscountKind is discountKind (admin_words.go, another area's) in
// the page's language.
func adminDiscountKind(ctx context.Context, k store.DiscountKind) string {
	switch k {
	case store.DiscountPercent:
		return t(ctx, "admin.codes.kind.percent")
	case store.DiscountFixed:
		return t(ctx, "admin.codes.kind.fixed")
	}
	return string(k)
}
