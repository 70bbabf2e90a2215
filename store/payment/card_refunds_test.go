package payment_test

import (
	"context"
	"errors"
	"testing"

	"shop/store"
	"shop/store/payment"
)

// recordingProvider is a provider that answers refunds with status and
// reads with read; every other method is absent.
type recordingProvider struct {
	payment.Provider
	name         string
	status, read string
	asked, reads []string
}

func (p *recordingProvider) Name() string { return p.name }

func (p *recordingProvider) Refund(_ context.Context, r payment.RefundRequest) (payment.Refund, error) {
	p.asked = append(p.asked, r.PaymentRef+"/"+r.Key)
	return payment.Refund{ID: "re_" + p.name, Status: p.status}, nil
}

func (p *recordingProvider) RetrieveRefund(_ context.Context, id string) (payment.Refund, error) {
	p.reads = append(p.reads, id)
	return payment.Refund{ID: id, Status: p.read}, nil
}

type legacyFunc func(chargeID string) (string, error)

func (f legacyFunc) Refund(_ context.Context, chargeID string, _ store.Money, _ string) (string, error) {
	return f(chargeID)
}

// A refund goes to the provider its record names, by name; the legacy test
// gateway's charges (ch_…, the test provider's name or none) to the
// gateway; a provider not configured here leaves it waiting; a refund
// answered pending before is read, not made again; one the provider
// reports failed is ErrCardRefundFailed.
func TestCardRefundsGoToTheProviderThatTookThePayment(t *testing.T) {
	ctx := context.Background()
	eur := store.Money{Amount: 500, Currency: "EUR"}
	test := &recordingProvider{name: payment.ProviderTest, status: payment.RefundSucceeded}
	stripe := &recordingProvider{name: payment.ProviderStripe, status: payment.RefundPending, read: payment.RefundFailed}
	var legacy []string
	refunds := payment.NewCardRefunds(payment.NewProviders(stripe, test), legacyFunc(func(id string) (string, error) {
		legacy = append(legacy, id)
		return "re_legacy", nil
	}))

	for _, tc := range []struct {
		provider, ref, want string
		pending             bool
	}{
		{"", "ch_old", "re_legacy", false},
		{payment.ProviderTest, "ch_demo_1", "re_legacy", false},
		{"", "pi_test_1", "re_test", false},
		{payment.ProviderStripe, "pi_1", "re_stripe", true},
	} {
		ans, err := refunds.RefundCard(ctx, store.CardRefund{Provider: tc.provider, PaymentRef: tc.ref, Amount: eur, Key: "k-" + tc.ref})
		if err != nil || ans.Ref != tc.want || ans.Pending != tc.pending {
			t.Errorf("%q %s: %+v, %v", tc.provider, tc.ref, ans, err)
		}
	}
	if len(legacy) != 2 || len(test.asked) != 1 || len(stripe.asked) != 1 || stripe.asked[0] != "pi_1/k-pi_1" {
		t.Fatalf("legacy %v, test %v, stripe %v", legacy, test.asked, stripe.asked)
	}
	_, err := refunds.RefundCard(ctx, store.CardRefund{Provider: payment.ProviderStripe, PaymentRef: "pi_1", Amount: eur, Key: "k-pi_1", RefundRef: "re_stripe"})
	if !errors.Is(err, store.ErrCardRefundFailed) || len(stripe.asked) != 1 || len(stripe.reads) != 1 {
		t.Fatalf("a pending refund read back failed: %v; asked %v, read %v", err, stripe.asked, stripe.reads)
	}
	if _, err := refunds.RefundCard(ctx, store.CardRefund{Provider: "paypal", PaymentRef: "x", Amount: eur, Key: "k"}); !errors.Is(err, payment.ErrProviderUnavailable) {
		t.Fatalf("a provider not configured: %v", err)
	}
}
