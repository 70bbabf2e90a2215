package payment

import (
	"context"

	"shop/store"
)

var _ store.ProviderCustomerEraser = Providers{}

// DeleteProviderCustomer deletes a customer at the provider that made it
// (erasure); a provider not configured is ErrProviderUnavailable, and the
// store tries again later.
func (p Providers) DeleteProviderCustomer(ctx context.Context, provider, ref string) error {
	pr, err := p.For(provider)
	if err != nil {
		return err
	}
	return pr.DeleteCustomer(ctx, ref)
}
