package payment

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"strings"

	"shop/store"
	"shop/web/paths"
)

// CreatePayment creates an unconfirmed off-session payment of a saved
// card, once per req.Key (a repeat answers the first; with another amount
// or card, ErrKeyReused).
func (p *TestProvider) CreatePayment(ctx context.Context, req PaymentRequest) (PaymentIntent, error) {
	if err := p.open(); err != nil {
		return PaymentIntent{}, err
	}
	if req.Amount.Amount <= 0 {
		return PaymentIntent{}, ErrBelowMinimum
	}
	m, err := p.ledger.TestPayMethod(ctx, req.MethodRef)
	if err != nil {
		return PaymentIntent{}, err
	}
	if m.CustomerRef != req.CustomerRef {
		return PaymentIntent{}, fmt.Errorf("card %s is not customer %s's: %w", req.MethodRef, req.CustomerRef, store.ErrNotFound)
	}
	pi := store.TestPayIntent{ID: ref("pi"), Key: req.Key, Status: PaymentRequiresConfirmation, Amount: req.Amount,
		CustomerRef: req.CustomerRef, MethodRef: req.MethodRef, Description: req.Description, ReturnURL: req.ReturnURL,
		Metadata: req.Metadata, Refunded: store.Money{Currency: req.Amount.Currency}, CreatedAt: p.now()}
	made, err := p.ledger.PutTestPayIntent(ctx, pi)
	if errors.Is(err, store.ErrConflict) && made.ID != "" {
		if made.Amount != pi.Amount || made.MethodRef != pi.MethodRef {
			return PaymentIntent{}, ErrKeyReused
		}
		err = nil
	}
	if err != nil {
		return PaymentIntent{}, err
	}
	return p.paymentIntent(made), nil
}

// Decline codes a payment keeps, as Stripe names them.
const (
	declineCard           = "card_declined"
	declineInsufficient   = "insufficient_funds"
	declineProcessing     = "processing_error"
	declineExpired        = "expired_card"
	declineAuthentication = "authentication_required"
)

// declineOf is a declined outcome's code and error.
func declineOf(outcome string) (string, error) {
	switch outcome {
	case outcomeInsufficient:
		return declineInsufficient, ErrInsufficientFunds
	case outcomeProcessing:
		return declineProcessing, ErrProcessing
	}
	return declineCard, ErrDeclined
}

// answerOf is what a payment as it stands answers a confirmation.
func answerOf(pi store.TestPayIntent) error {
	switch pi.Status {
	case PaymentSucceeded:
		return nil
	case PaymentRequiresAction:
		return ErrAuthenticationRequired
	case PaymentRequiresMethod:
		switch pi.DeclineCode {
		case declineInsufficient:
			return ErrInsufficientFunds
		case declineProcessing:
			return ErrProcessing
		case declineAuthentication:
			return ErrAuthenticationRequired
		}
		return ErrDeclined
	case PaymentCanceled:
		return ErrVoided
	}
	return fmt.Errorf("payment %s is %s", pi.ID, pi.Status)
}

// ConfirmPayment charges a payment's card, once: confirmed again (or by
// two at once), it answers as it stands. A card whose bank asks on every
// payment (CardAuthenticationRequired) answers ErrAuthenticationRequired:
// with a ReturnURL the payment waits for the holder at its RedirectURL
// (requires_action), without one it fails. Each charge or failure writes
// its event (payment_intent.succeeded or payment_intent.payment_failed).
func (p *TestProvider) ConfirmPayment(ctx context.Context, id string) (PaymentIntent, error) {
	pi, err := p.ledger.TestPayIntent(ctx, id)
	if err != nil {
		return PaymentIntent{}, err
	}
	if pi.Status != PaymentRequiresConfirmation && pi.Status != PaymentRequiresMethod {
		return p.paymentIntent(pi), answerOf(pi)
	}
	now := p.now()
	next := pi
	next.DeclineCode = ""
	m, err := p.ledger.TestPayMethod(ctx, pi.MethodRef)
	switch {
	case errors.Is(err, store.ErrNotFound):
		next.Status, next.DeclineCode = PaymentRequiresMethod, declineCard
	case err != nil:
		return PaymentIntent{}, err
	case !now.Before(m.Card.Expires):
		next.Card, next.Status, next.DeclineCode = &m.Card, PaymentRequiresMethod, declineExpired
	case m.Card.Outcome != outcomeOK:
		next.Card, next.Status = &m.Card, PaymentRequiresMethod
		next.DeclineCode, _ = declineOf(m.Card.Outcome)
	case m.Card.Auth == authAlways && pi.ReturnURL != "":
		next.Card, next.Status = &m.Card, PaymentRequiresAction
	case m.Card.Auth == authAlways:
		next.Card, next.Status, next.DeclineCode = &m.Card, PaymentRequiresMethod, declineAuthentication
	default:
		next.Card, next.Status = &m.Card, PaymentSucceeded
	}
	var ev *store.TestPayEvent
	if next.Status != PaymentRequiresAction {
		typ := EventPaymentSucceeded
		if next.Status != PaymentSucceeded {
			typ = EventPaymentFailed
		}
		intent := p.paymentIntent(next)
		e, err := p.event(typ, now, Event{Payment: &intent})
		if err != nil {
			return PaymentIntent{}, err
		}
		ev = &e
	}
	moved, err := p.ledger.MoveTestPayIntent(ctx, next, pi.Status, ev)
	if errors.Is(err, store.ErrConflict) && moved.ID != "" {
		next = moved // confirmed meanwhile: its answer
	} else if err != nil {
		return PaymentIntent{}, err
	}
	return p.paymentIntent(next), answerOf(next)
}

// AnswerPayment is the holder's answer, on the bank's page, to a payment
// waiting for it (requires_action): approved it is charged, failed it
// fails; either way with its event. A payment no longer waiting answers as
// it stands.
func (p *TestProvider) AnswerPayment(ctx context.Context, id string, approve bool) (store.TestPayIntent, error) {
	pi, err := p.ledger.TestPayIntent(ctx, id)
	if err != nil {
		return store.TestPayIntent{}, err
	}
	if pi.Status != PaymentRequiresAction {
		return pi, answerOf(pi)
	}
	next := pi
	typ := EventPaymentSucceeded
	next.Status = PaymentSucceeded
	if !approve {
		next.Status, next.DeclineCode, typ = PaymentRequiresMethod, declineAuthentication, EventPaymentFailed
	}
	intent := p.paymentIntent(next)
	ev, err := p.event(typ, p.now(), Event{Payment: &intent})
	if err != nil {
		return store.TestPayIntent{}, err
	}
	moved, err := p.ledger.MoveTestPayIntent(ctx, next, pi.Status, &ev)
	if errors.Is(err, store.ErrConflict) && moved.ID != "" {
		next = moved
	} else if err != nil {
		return store.TestPayIntent{}, err
	}
	if !approve && next.Status == PaymentRequiresMethod {
		return next, ErrAuthenticationFailed
	}
	return next, answerOf(next)
}

// Payment reads a payment for the bank's page.
func (p *TestProvider) Payment(ctx context.Context, id string) (store.TestPayIntent, error) {
	return p.ledger.TestPayIntent(ctx, id)
}

// RetrievePayment reads a payment.
func (p *TestProvider) RetrievePayment(ctx context.Context, id string) (PaymentIntent, error) {
	pi, err := p.ledger.TestPayIntent(ctx, id)
	if err != nil {
		return PaymentIntent{}, err
	}
	return p.paymentIntent(pi), nil
}

func (p *TestProvider) paymentIntent(pi store.TestPayIntent) PaymentIntent {
	out := PaymentIntent{ID: pi.ID, Status: pi.Status, Amount: pi.Amount, Metadata: maps.Clone(pi.Metadata), DeclineCode: pi.DeclineCode}
	if pi.Status == PaymentRequiresAction {
		out.RedirectURL = p.BaseURL + paths.TestPaymentConfirm(pi.ID)
	}
	if pi.Card != nil {
		out.Card = savedMethod(pi.MethodRef, *pi.Card)
	}
	return out
}

// Refund gives part or all of a payment back, once per req.Key (a repeat
// answers the first refund; with another payment or amount,
// ErrKeyReused), never more than the payment took
// (store.ErrRefundExceedsCharge), with its charge.refunded event. It
// works in RefundsOnly too.
func (p *TestProvider) Refund(ctx context.Context, req RefundRequest) (Refund, error) {
	if req.Amount.Amount <= 0 {
		return Refund{}, store.ErrBadRefund
	}
	now := p.now()
	r := store.TestPayRefund{ID: ref("re"), Key: req.Key, PaymentRef: req.PaymentRef, Status: RefundSucceeded,
		Amount: req.Amount, Metadata: req.Metadata, At: now}
	out := refundOf(r)
	ev, err := p.event(EventChargeRefunded, now, Event{Refund: &out})
	if err != nil {
		return Refund{}, err
	}
	made, err := p.ledger.PutTestPayRefund(ctx, r, ev)
	if errors.Is(err, store.ErrConflict) && made.ID != "" {
		if made.PaymentRef != r.PaymentRef || made.Amount != r.Amount {
			return Refund{}, ErrKeyReused
		}
		err = nil
	}
	if err != nil {
		return Refund{}, err
	}
	return refundOf(made), nil
}

func refundOf(r store.TestPayRefund) Refund {
	return Refund{ID: r.ID, PaymentRef: r.PaymentRef, Status: r.Status, Amount: r.Amount, Metadata: maps.Clone(r.Metadata)}
}

// Closed says whether a session can still be paid: nil while it can,
// ErrCheckoutComplete once paid, ErrCheckoutExpired past its time.
func (p *TestProvider) Closed(s store.TestPaySession) error { return p.closed(s) }

// SuccessURL is where the holder goes once a session is paid: its success
// URL, with {CHECKOUT_SESSION_ID} replaced by its id, as Stripe does.
func SuccessURL(s store.TestPaySession) string {
	return strings.ReplaceAll(s.SuccessURL, "{CHECKOUT_SESSION_ID}", s.ID)
}

// ReturnURL is where the bank's page sends the holder back to after a
// payment's question: its ReturnURL with ?payment_intent=<id>, as Stripe
// does.
func ReturnURL(pi store.TestPayIntent) string {
	sep := "?"
	if strings.Contains(pi.ReturnURL, "?") {
		sep = "&"
	}
	return pi.ReturnURL + sep + "payment_intent=" + url.QueryEscape(pi.ID)
}
