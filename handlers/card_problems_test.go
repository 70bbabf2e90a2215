package handlers

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"shop/handlers/page"
	"shop/store/payment"
	"shop/views/lang"
)

// titleOf is the heading a page puts over a form err brought back: the
// refusal's title as the test payment page reads it, a bank that asks
// its holder as a kept card reads it (declined, off-session).
func titleOf(ctx context.Context, err error) string {
	if errors.Is(err, payment.ErrAuthenticationRequired) {
		r, _ := keptCardProblem(ctx, err)
		return r.Title
	}
	r, _ := page.RefusalOf(ctx, testPayRefusal(err))
	return r.Title
}

// A card the bank refused heads its form with the refusal, in the
// reader's language; a card typed wrong is left to "Please check one
// field" (no title).
func TestCardRefusedTitle(t *testing.T) {
	ko := lang.With(context.Background(), lang.Korean)
	en := lang.With(context.Background(), lang.English)
	for _, tc := range []struct {
		ctx  context.Context
		err  error
		want string
	}{
		{en, payment.ErrDeclined, "Your card was declined"},
		{en, fmt.Errorf("charge: %w", payment.ErrInsufficientFunds), "Your card was declined"},
		{en, payment.ErrAuthenticationRequired, "Your card was declined"},
		{ko, payment.ErrDeclined, "카드가 거절되었습니다"},
		{en, payment.ErrProcessing, "The payment did not go through"},
		{en, payment.ErrInvalidNumber, ""},
		{en, payment.ErrExpired, ""},
		{en, payment.ErrInvalidCVC, ""},
	} {
		if got := titleOf(tc.ctx, tc.err); got != tc.want {
			t.Errorf("%s in %s: %q, want %q", tc.err, lang.From(tc.ctx), got, tc.want)
		}
	}
}
