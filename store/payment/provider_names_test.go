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
