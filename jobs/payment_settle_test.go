package jobs_test

import (
	"context"
	"log/slog"
	"slices"
	"testing"

	"shop/jobs"
	"shop/store/payment"
)

// appliedEvents records the events handed to it.
type appliedEvents struct{ got []string }

func (a *appliedEvents) ApplyPaymentEvent(_ context.Context, ev payment.Event) error {
	a.got = append(a.got, ev.ID)
	return nil
}

// The settler dispatches by what an event is about: a subscription's
// sessions and payments to Subscriptions, refunds' events to Refunds; with
// neither set they are acknowledged (no error, so the provider does not
// send them again) and nothing is read or written. An order's payment
// event is left to its session's events.
func TestPaymentSettlerPassesSubscriptionsAndRefundsOn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// A period's payment names its subscription; a new subscription's
	// first page has none yet, only what it is for and its key.
	sub := map[string]string{payment.MetaFor: payment.ForPeriod, payment.MetaSubscription: "s1"}
	subscribe := map[string]string{payment.MetaFor: payment.ForSubscribe, payment.MetaSubscribeKey: "k1"}
	events := []payment.Event{
		{ID: "evt_sub_session", Type: payment.EventCheckoutCompleted, Session: &payment.CheckoutSession{ID: "cs_1", Metadata: subscribe}},
		{ID: "evt_sub_expired", Type: payment.EventCheckoutExpired, Session: &payment.CheckoutSession{ID: "cs_2", Metadata: sub}},
		{ID: "evt_sub_paid", Type: payment.EventPaymentSucceeded, Payment: &payment.PaymentIntent{ID: "pi_1", Metadata: sub}},
		{ID: "evt_sub_failed", Type: payment.EventPaymentFailed, Payment: &payment.PaymentIntent{ID: "pi_2", Metadata: sub}},
		{ID: "evt_refunded", Type: payment.EventChargeRefunded, Refund: &payment.Refund{ID: "re_1"}},
		{ID: "evt_refund", Type: payment.EventRefundUpdated, Refund: &payment.Refund{ID: "re_2"}},
		{ID: "evt_order_paid", Type: payment.EventPaymentSucceeded, Payment: &payment.PaymentIntent{ID: "pi_3", Metadata: map[string]string{payment.MetaOrder: "o1"}}},
		{ID: "evt_nobodys", Type: payment.EventCheckoutCompleted, Session: &payment.CheckoutSession{ID: "cs_3"}},
		{ID: "evt_other", Type: "customer.created"},
	}
	bare := &jobs.PaymentSettler{Log: slog.New(slog.DiscardHandler)} // no store: none of these reads it
	for _, ev := range events {
		if err := bare.ApplyPaymentEvent(ctx, ev); err != nil {
			t.Fatalf("%s without appliers: %v", ev.ID, err)
		}
	}
	subs, refunds := &appliedEvents{}, &appliedEvents{}
	s := &jobs.PaymentSettler{Log: slog.New(slog.DiscardHandler), Subscriptions: subs, Refunds: refunds}
	for _, ev := range events {
		if err := s.ApplyPaymentEvent(ctx, ev); err != nil {
			t.Fatalf("%s: %v", ev.ID, err)
		}
	}
	if want := []string{"evt_sub_session", "evt_sub_expired", "evt_sub_paid", "evt_sub_failed"}; !slices.Equal(subs.got, want) {
		t.Errorf("subscriptions got %v, want %v", subs.got, want)
	}
	if want := []string{"evt_refunded", "evt_refund"}; !slices.Equal(refunds.got, want) {
		t.Errorf("refunds got %v, want %v", refunds.got, want)
	}
}
