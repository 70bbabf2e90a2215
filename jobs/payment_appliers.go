package jobs

import (
	"context"

	"shop/store/payment"
)

// The settler hands a subscription's events and refunds' events on
// through one small interface (EventApplier); these adapt the two sides
// that apply them.

// Applier is sp as the settler's Subscriptions.
func (sp *SubscriptionPayments) Applier() EventApplier { return subscriptionApplier{sp} }

type subscriptionApplier struct{ sp *SubscriptionPayments }

func (a subscriptionApplier) ApplyPaymentEvent(ctx context.Context, ev payment.Event) error {
	return a.sp.ApplySubscriptionEvent(ctx, ev)
}

// Of is r as the settler's Refunds for the events of provider (the active
// one: only its webhook is routed).
func (r RefundEvents) Of(provider string) EventApplier { return refundApplier{r, provider} }

type refundApplier struct {
	r        RefundEvents
	provider string
}

func (a refundApplier) ApplyPaymentEvent(ctx context.Context, ev payment.Event) error {
	return a.r.ApplyRefundEvent(ctx, a.provider, ev)
}
