package stripepay

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/stripe/stripe-go/v85"

	"shop/store/payment"
)

// providerError is one of the shop's payment errors with what Stripe said:
// errors.Is finds the shop's sentinel, errors.As the *stripe.Error, and the
// message names Stripe's code and request for the logs.
type providerError struct {
	kind   error
	stripe *stripe.Error
}

func (e *providerError) Error() string {
	s := e.stripe
	msg := fmt.Sprintf("%v: stripe %d", e.kind, s.HTTPStatusCode)
	if s.Code != "" {
		msg += " " + string(s.Code)
	}
	if s.DeclineCode != "" {
		msg += "/" + string(s.DeclineCode)
	}
	if s.Msg != "" {
		msg += ": " + s.Msg
	}
	if s.RequestID != "" {
		msg += " (request " + s.RequestID + ")"
	}
	return msg
}

func (e *providerError) Unwrap() []error { return []error{e.kind, e.stripe} }

// errStripe is an error of Stripe's that is none of the shop's kinds: a
// request Stripe refused (a bad parameter, a wrong key). It is a bug or a
// misconfiguration, not something to retry.
var errStripe = errors.New("stripe refused the request")

// mapError turns what the library returns into the shop's payment errors:
//
//   - card_error: card_declined (or any other card code) is ErrDeclined; the
//     decline code insufficient_funds is ErrInsufficientFunds;
//     authentication_required is ErrAuthenticationRequired; processing_error
//     is ErrProcessing;
//   - 429 (rate limit, lock timeout), 5xx, api_error, and a request that got
//     no answer from Stripe (the network, after the library's retries) are
//     ErrProviderUnavailable;
//   - amount_too_small is ErrBelowMinimum, amount_too_large ErrAboveMaximum;
//   - a key reused with other parameters (idempotency_error) is
//     ErrKeyReused; a key whose first request is still under way
//     (idempotency_key_in_use) is ErrProviderUnavailable;
//   - a cancelled or timed-out context stays what it is.
func mapError(err error) error {
	if err == nil {
		return nil
	}
	var se *stripe.Error
	if !errors.As(err, &se) {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return fmt.Errorf("%w: %w", payment.ErrProviderUnavailable, err)
	}
	kind := errStripe
	switch {
	case se.Type == stripe.ErrorTypeCard:
		kind = declineError(se.Code, se.DeclineCode)
	case se.Code == stripe.ErrorCodeIdempotencyKeyInUse:
		kind = payment.ErrProviderUnavailable // a twin with the same key is under way
	case se.Type == stripe.ErrorTypeIdempotency:
		kind = payment.ErrKeyReused
	case se.HTTPStatusCode == http.StatusTooManyRequests, se.HTTPStatusCode >= 500, se.Type == stripe.ErrorTypeAPI:
		kind = payment.ErrProviderUnavailable
	case se.Code == stripe.ErrorCodeAmountTooSmall:
		kind = payment.ErrBelowMinimum
	case se.Code == stripe.ErrorCodeAmountTooLarge:
		kind = ErrAboveMaximum
	}
	return &providerError{kind: kind, stripe: se}
}

// declineError is the shop's error for a card error's code and decline
// code (the bank's reason).
func declineError(code stripe.ErrorCode, decline stripe.DeclineCode) error {
	switch {
	case code == stripe.ErrorCodeAuthenticationRequired, decline == stripe.DeclineCodeAuthenticationRequired:
		return payment.ErrAuthenticationRequired
	case decline == stripe.DeclineCodeInsufficientFunds, code == stripe.ErrorCodeInsufficientFunds:
		return payment.ErrInsufficientFunds
	case code == stripe.ErrorCodeProcessingError, decline == stripe.DeclineCodeProcessingError:
		return payment.ErrProcessing
	}
	return payment.ErrDeclined
}
