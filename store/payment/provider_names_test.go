package payment_test

import (
	"testing"

	"shop/store"
	"shop/store/payment"
)

// A record without a provider is the test provider's: the store's name for
// it (it cannot import this package) is the test provider's name.
func TestRecordsWithoutAProviderAreTheTestProviders(t *testing.T) {
	if store.LegacyProvider != payment.ProviderTest || store.ProviderOf("") != payment.ProviderTest || store.ProviderOf(payment.ProviderStripe) != payment.ProviderStripe {
		t.Fatalf("store.LegacyProvider %q, payment.ProviderTest %q", store.LegacyProvider, payment.ProviderTest)
	}
}

// A refund finds the provider that took the money, whichever is active.
func TestProvidersFindTheOneARecordNames(t *testing.T) {
	test := &payment.TestProvider{RefundsOnly: true}
	p := payment.NewProviders(namedProvider{test, payment.ProviderStripe}, test)
	for _, c := range []struct {
		record, want string
		ok           bool
	}{
		{"", payment.ProviderTest, true},
		{payment.ProviderTest, payment.ProviderTest, true},
		{payment.ProviderStripe, payment.ProviderStripe, true},
		{"paypal", "", false},
	} {
		got, err := p.For(c.record)
		if (err == nil) != c.ok || (c.ok && got.Name() != c.want) {
			t.Errorf("For(%q) = %v, %v; want %q", c.record, got, err, c.want)
		}
	}
	if p.Active().Name() != payment.ProviderStripe {
		t.Errorf("active is %q", p.Active().Name())
	}
}

// namedProvider is a provider under another name (only Name is called).
type namedProvider struct {
	payment.Provider
	name string
}

func (n namedProvider) Name() string { return n.name }
