package handlers

import (
	"context"
	"errors"

	"shop/handlers/page"
	"shop/store/payment"
)

// keptCardAnswers are the bank's answers about a kept card that the
// person can act on (another card, another try); each says itself
// (store.Refusal). A voided payment is none: the subscribe it was for
// stays pending until the reconcile reads it, so it is no "try again".
var keptCardAnswers = []error{payment.ErrDeclined, payment.ErrInsufficientFunds, payment.ErrProcessing, payment.ErrExpired}

// keptCardProblem is the bank's answer about a kept card in the language
// of ctx (its sentence, said at the card whatever field the refusal names
// as there is no number to type, and the heading over the form); false
// for an error that is not the card's. Off-session, a bank that asks its
// holder to confirm is a decline: that is the kept card's reading, not
// the sentinel's.
func keptCardProblem(ctx context.Context, err error) (page.Refused, bool) {
	if errors.Is(err, payment.ErrAuthenticationRequired) {
		err = payment.ErrDeclined
	}
	if !isAny(err, keptCardAnswers...) {
		return page.Refused{}, false
	}
	return page.RefusalOf(ctx, err)
}
