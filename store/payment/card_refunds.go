package payment

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"shop/store"
)

// LegacyRefunder refunds a charge of the legacy test gateway (TestGateway),
// once per idempotency key.
type LegacyRefunder interface {
	Refund(ctx context.Context, chargeID string, amount store.Money, idempotencyKey string) (refundID string, err error)
}

// RefundReader reads a refund at its provider: a refund answered pending is
// read again rather than made again (Stripe keeps an idempotency key for a
// day only, and its replay answers the first answer, pending for ever).
// The test provider and Stripe implement it.
type RefundReader interface {
	RetrieveRefund(ctx context.Context, id string) (Refund, error)
}

// CardRefunds makes the card part of the shop's refunds at the provider
// that took each payment (store.Refunder): the record's provider, by name,
// among Providers. A record of the test provider whose payment is a charge
// of the legacy test gateway (ch_…, taken before the test provider
// existed: the demo's seeded charges, tables from before) goes back
// through the gateway's own ledger, where that charge is: the test
// provider's ledger has payment intents only (pi_test_…), and a refund
// must lower the refunded sum of the charge it gives back on.
type CardRefunds struct {
	Providers Providers
	// Legacy is the test gateway, for its own charges; nil: they wait.
	Legacy LegacyRefunder
}

// NewCardRefunds refunds through providers, and through legacy for the
// legacy test gateway's charges.
func NewCardRefunds(providers Providers, legacy LegacyRefunder) CardRefunds {
	return CardRefunds{Providers: providers, Legacy: legacy}
}

var _ store.Refunder = CardRefunds{}

// LegacyCharge says whether a payment reference is a charge of the legacy
// test gateway's: its ids begin ch_ (the test provider's are pi_test_…,
// Stripe's pi_…).
func LegacyCharge(provider, paymentRef string) bool {
	return store.ProviderOf(provider) == ProviderTest && strings.HasPrefix(paymentRef, "ch_")
}

// RefundCard gives r.Amount of r.PaymentRef back through its provider under
// r.Key, or, for a refund answered pending before (r.RefundRef), reads
// where it stands. A refund the provider reports failed is
// store.ErrCardRefundFailed; a provider the shop is not configured for
// is ErrProviderUnavailable (the refund waits).
func (c CardRefunds) RefundCard(ctx context.Context, r store.CardRefund) (store.CardRefundAnswer, error) {
	if LegacyCharge(r.Provider, r.PaymentRef) {
		if c.Legacy == nil {
			return store.CardRefundAnswer{}, fmt.Errorf("the legacy test gateway is not configured: %w", ErrProviderUnavailable)
		}
		id, err := c.Legacy.Refund(ctx, r.PaymentRef, r.Amount, r.Key)
		return store.CardRefundAnswer{Ref: id}, refundError(err)
	}
	p, err := c.Providers.For(r.Provider)
	if err != nil {
		return store.CardRefundAnswer{}, err
	}
	var out Refund
	if reader, ok := p.(RefundReader); ok && r.RefundRef != "" {
		out, err = reader.RetrieveRefund(ctx, r.RefundRef)
	} else {
		out, err = p.Refund(ctx, RefundRequest{PaymentRef: r.PaymentRef, Amount: r.Amount, Key: r.Key, Metadata: r.Metadata})
	}
	if err != nil {
		return store.CardRefundAnswer{}, refundError(err)
	}
	switch out.Status {
	case RefundSucceeded:
		return store.CardRefundAnswer{Ref: out.ID}, nil
	case RefundFailed, refundCanceled:
		return store.CardRefundAnswer{Ref: out.ID}, fmt.Errorf("refund %s at %s is %s: %w", out.ID, p.Name(), out.Status, store.ErrCardRefundFailed)
	}
	return store.CardRefundAnswer{Ref: out.ID, Pending: true}, nil // pending, requires_action
}

// refundCanceled is Stripe's status of a refund cancelled before it was made.
const refundCanceled = "canceled"

// refundError tells the store which errors are a provider's final no: a key
// reused with another amount, a declined refund, a refund over what is
// left, a payment it does not know. Anything else (unreachable) is tried
// again under the same key.
func refundError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrKeyReused), errors.Is(err, ErrDeclined), errors.Is(err, ErrVoided), errors.Is(err, ErrBelowMinimum):
		return fmt.Errorf("%w: %w", store.ErrRefundRefused, err)
	}
	return err
}

// RefundEventOf is a verified refund event (charge.refunded,
// refund.updated) of provider as the store applies it; false for an event
// that carries no refund.
func RefundEventOf(provider string, ev Event) (store.RefundEvent, bool) {
	if ev.Refund == nil || (ev.Type != EventChargeRefunded && ev.Type != EventRefundUpdated) {
		return store.RefundEvent{}, false
	}
	r := ev.Refund
	return store.RefundEvent{Provider: provider, EventID: ev.ID, RefundRef: r.ID, PaymentRef: r.PaymentRef,
		Status: r.Status, Metadata: r.Metadata}, true
}
