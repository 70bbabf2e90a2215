package handlers

import (
	"context"
	"errors"

	"shop/store/payment"
	"shop/views/lang"
)

// cardProblemIn is the test payment page's refusal of a card at the field
// it is about, in the language of ctx.
func cardProblemIn(ctx context.Context, err error) (field, msg string, ok bool) {
	switch {
	case errors.Is(err, payment.ErrInvalidNumber):
		return "card_number", lang.T(ctx, "checkout.card.invalid_number"), true
	case errors.Is(err, payment.ErrInvalidExpiry):
		return "expiry", lang.T(ctx, "checkout.card.invalid_expiry"), true
	case errors.Is(err, payment.ErrExpired):
		return "expiry", lang.T(ctx, "checkout.card.expired"), true
	case errors.Is(err, payment.ErrInvalidCVC):
		return "cvc", lang.T(ctx, "checkout.card.invalid_cvc"), true
	case errors.Is(err, payment.ErrDeclined):
		return "card_number", lang.T(ctx, "checkout.card.declined"), true
	case errors.Is(err, payment.ErrInsufficientFunds):
		return "card_number", lang.T(ctx, "checkout.card.insufficient"), true
	case errors.Is(err, payment.ErrProcessing), errors.Is(err, payment.ErrVoided), errors.Is(err, payment.ErrKeyReused):
		return "card_number", lang.T(ctx, "checkout.card.processing"), true
	}
	return "", "", false
}

// cardRefusedTitle heads a form that came back because the bank refused
// the card rather than because something was typed wrong ("Your card was
// declined", not "Please check one field"); "" for a card typed wrong.
func cardRefusedTitle(ctx context.Context, err error) string {
	switch {
	case errors.Is(err, payment.ErrDeclined), errors.Is(err, payment.ErrInsufficientFunds),
		errors.Is(err, payment.ErrAuthenticationRequired): // a kept card's bank that asks: declined off-session
		return lang.T(ctx, "checkout.card.declined_title")
	case errors.Is(err, payment.ErrProcessing), errors.Is(err, payment.ErrVoided), errors.Is(err, payment.ErrKeyReused):
		return lang.T(ctx, "checkout.card.not_charged_title")
	}
	return ""
}
