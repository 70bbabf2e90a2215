package stripepay

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"

	"shop/store/payment"
)

// ErrEventVersion refuses a verified event of another API release than the
// library's (stripe.APIVersion, 2026-03-25.dahlia for v85): its objects may
// not read as this code expects. The endpoint is misconfigured: it must be
// created with the library's API version (docs/payments-stripe.md). The
// webhook handler answers it with a 4xx like a bad signature, so that Stripe
// keeps the event and retries it (for three days) once the endpoint is
// fixed; reconcile reads the sessions through the API meanwhile, which
// always speaks the library's version.
var ErrEventVersion = errors.New("stripe: the webhook endpoint sends events of another API version than this shop reads")

// ParseEvent verifies the Stripe-Signature header over the raw body
// (webhook.ConstructEvent's check, with its default tolerance of five
// minutes against replays), then reads the event. The event types the shop
// acts on fill Session, Payment or Refund; any other comes back with its
// ID, Type and Created alone, to be acknowledged.
//
// A session from an event names its payment intent (PaymentRef) but not the
// card: webhooks do not expand objects. RetrieveCheckout has the card.
func (p *Provider) ParseEvent(body []byte, signature string) (payment.Event, error) {
	// The version is checked here, not by the library: its check is a plain
	// error that cannot be told from a malformed body.
	e, err := webhook.ConstructEventWithOptions(body, signature, p.webhookSecret, webhook.ConstructEventOptions{IgnoreAPIVersionMismatch: true})
	switch {
	case errors.Is(err, webhook.ErrNotSigned), errors.Is(err, webhook.ErrInvalidHeader),
		errors.Is(err, webhook.ErrNoValidSignature), errors.Is(err, webhook.ErrTooOld):
		return payment.Event{}, fmt.Errorf("%w: %w", payment.ErrBadSignature, err)
	case err != nil:
		return payment.Event{}, fmt.Errorf("stripe: a signed event that does not read: %w", err)
	case e.ID == "" || e.Type == "":
		return payment.Event{}, errors.New("stripe: a signed event without an id or a type")
	case !sameRelease(stripe.APIVersion, e.APIVersion):
		return payment.Event{}, fmt.Errorf("%w: event %s is of API version %q, the shop reads %q", ErrEventVersion, e.ID, e.APIVersion, stripe.APIVersion)
	}
	out := payment.Event{ID: e.ID, Type: string(e.Type), Created: time.Unix(e.Created, 0).UTC()}
	var raw json.RawMessage
	if e.Data != nil {
		raw = e.Data.Raw
	}
	// read reads the event's object into v and checks that it has an id.
	read := func(v any, id func() string) error {
		if len(raw) == 0 || string(raw) == "null" {
			return fmt.Errorf("stripe: event %s (%s) has no object", e.ID, e.Type)
		}
		if err := json.Unmarshal(raw, v); err != nil {
			return fmt.Errorf("stripe: event %s (%s): %w", e.ID, e.Type, err)
		}
		if id() == "" {
			return fmt.Errorf("stripe: event %s (%s): its object has no id", e.ID, e.Type)
		}
		return nil
	}
	switch out.Type {
	case payment.EventCheckoutCompleted, payment.EventCheckoutExpired:
		var s stripe.CheckoutSession
		if err := read(&s, func() string { return s.ID }); err != nil {
			return payment.Event{}, err
		}
		session := sessionOf(&s)
		out.Session = &session
	case payment.EventPaymentSucceeded, payment.EventPaymentFailed:
		var pi stripe.PaymentIntent
		if err := read(&pi, func() string { return pi.ID }); err != nil {
			return payment.Event{}, err
		}
		intent := intentOf(&pi)
		out.Payment = &intent
	case payment.EventChargeRefunded:
		var c stripe.Charge
		if err := read(&c, func() string { return c.ID }); err != nil {
			return payment.Event{}, err
		}
		refund := refundOfCharge(&c)
		out.Refund = &refund
	case payment.EventRefundUpdated:
		var r stripe.Refund
		if err := read(&r, func() string { return r.ID }); err != nil {
			return payment.Event{}, err
		}
		refund := refundOf(&r)
		out.Refund = &refund
	}
	return out, nil
}

// sameRelease says whether an event's API version is of the library's
// release ("2026-03-25.dahlia" and "2026-08-26.dahlia" are): Stripe keeps
// the versions of one release free of breaking changes. A version from
// before releases had names ("2024-06-20") is never the same.
func sameRelease(library, event string) bool {
	_, want, ok1 := strings.Cut(library, ".")
	_, got, ok2 := strings.Cut(event, ".")
	return ok1 && ok2 && want != "" && got == want
}
