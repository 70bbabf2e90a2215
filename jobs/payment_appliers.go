package jobs

import (
	"context"
	"log/slog"

	"shop/store/payment"
	"shop/views/mail"
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

// CardPaymentStore is what a shop's card payments need of the store: held
// orders, subscriptions' payments and refunds' events.
type CardPaymentStore interface {
	HoldStore
	SubscriptionPaymentStore
	RefundEventStore
}

// NewCardPayments wires a shop's card payments over its providers, as
// serve and the app's tests both need them: what moves subscriptions'
// money, and the settler of held orders that hands subscriptions' and
// refunds' events to their own appliers. baseURL is the shop's address,
// for the providers' return links and the mails.
func NewCardPayments(st CardPaymentStore, providers payment.Providers, baseURL string, log *slog.Logger) (*PaymentSettler, *SubscriptionPayments) {
	sp := &SubscriptionPayments{Store: st, Providers: providers, BaseURL: baseURL}
	settler := &PaymentSettler{Store: st, Payments: providers, Mail: mail.Links{BaseURL: baseURL}, Log: log, Subscriptions: sp.Applier()}
	if active := providers.Active(); active != nil {
		settler.Refunds = RefundEvents{Store: st, BaseURL: baseURL}.Of(active.Name())
	}
	return settler, sp
}
