package payment

import (
	"fmt"

	"shop/store"
)

// Providers are the card providers a shop knows: the one new payments go
// to (Active), and every one that took money before, by name, since a
// refund goes to the provider that took the money. A shop that moved from
// the test provider to Stripe has Stripe active and the test provider
// refunds-only.
type Providers struct {
	active Provider
	byName map[string]Provider
}

// NewProviders makes active the provider of new payments; others are kept
// for the records that name them.
func NewProviders(active Provider, others ...Provider) Providers {
	p := Providers{active: active, byName: map[string]Provider{active.Name(): active}}
	for _, o := range others {
		if _, ok := p.byName[o.Name()]; !ok {
			p.byName[o.Name()] = o
		}
	}
	return p
}

// Active is the provider new payments, sessions and saved cards go to.
func (p Providers) Active() Provider { return p.active }

// For is the provider a record names ("" is the test provider, as records
// written before providers had names are).
func (p Providers) For(name string) (Provider, error) {
	name = store.ProviderOf(name)
	if pr, ok := p.byName[name]; ok {
		return pr, nil
	}
	return nil, fmt.Errorf("no card provider %q is configured: %w", name, ErrProviderUnavailable)
}
