package handlers

import (
	"context"
	"errors"

	"shop/store/payment"
	"shop/views/lang"
)

// keptCardAnswers are the bank's answers about a kept card that the
// person can act on (another card, another try); each says itself
// (store.Refusal). A voided payment is none: the subscribe it was for
// stays pending until the reconcile reads it, so it is no "try again".
var keptCardAnswers = []error{payment.ErrDeclined, payment.ErrInsufficientFunds, payment.ErrProcessing, payment.ErrExpired}

// keptCardProblem is the bank's answer about a kept card in the language
// of ctx, said at the card whatever field the refusal names (there is no
// number to type); "" for an error that is not the card's. Off-session, a
// bank that asks its holder to confirm is a decline: that is the kept
// card's reading, not the sentinel's.
func keptCardProblem(ctx context.Context, err error) string {
	if errors.Is(err, payment.ErrAuthenticationRequired) {
		err = payment.ErrDeclined
	}
	if !isAny(err, keptCardAnswers...) {
		return ""
	}
	return refusalText(ctx, err)
}

// cardRefusedTitle heads a form that came back because the bank refused
// the card rather than because something was typed wrong ("Your card was
// declined", not "Please check one field"); "" for a card typed wrong.
// It stays a switch: a title is a question of the form, not of the
// refusal, and the refusals carry one sentence each.
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
