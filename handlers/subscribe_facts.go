package handlers

import (
	"context"
	"slices"
	"time"

	"shop/handlers/page"
	"shop/store"
)

// A signed-in customer's product page reads what its subscribe form
// offers: the customer's subscriptions (their kept cards), whether they had
// the product's trial, and where a subscription would ship. Those reads
// were nearly all of the page's cost (the product and its stock come from
// the shop window), so a replica keeps them for a few seconds (ten in
// production: a customer going from product to product reads them once)
// under the customer and the version of the session's last save. Every
// change a customer makes on the shop's pages saves their session (its
// flash), so the next page asks for a version nobody cached and reads
// afresh; what staff, a job or the customer's other device changes shows
// within those seconds. The form is a preview: subscribing reads and
// checks everything again.

// SubscribeFacts caches the subscribe form's reads; nil caches nothing.
type SubscribeFacts struct {
	reads *page.Moment[factKey, any]
}

// factKey is one read of one customer's, under a save of their session.
type factKey struct{ customer, saved, what string }

// maxFactEntries bounds the cache between sweeps of its old entries.
const maxFactEntries = 50_000

// NewSubscribeFacts keeps each read for ttl.
func NewSubscribeFacts(ttl time.Duration) *SubscribeFacts {
	return &SubscribeFacts{reads: page.NewMoment[factKey, any](ttl, maxFactEntries, nil)}
}

// For is st with its reads of customerID kept under saved, the version of
// the session's last save; st itself when there is no cache or no version.
func (f *SubscribeFacts) For(st subscribeFormStore, customerID, saved string) subscribeFormStore {
	if f == nil || saved == "" || customerID == "" {
		return st
	}
	return cachedFacts{subscribeFormStore: st, facts: f, customer: customerID, saved: saved}
}

// cachedFacts is a subscribeFormStore reading one customer's facts
// through the cache; another customer's go to the store.
type cachedFacts struct {
	subscribeFormStore
	facts           *SubscribeFacts
	customer, saved string
}

// kept is read's answer for what, from the cache when it has one; errors
// are not kept.
func kept[T any](c cachedFacts, customerID, what string, read func() (T, error)) (T, error) {
	if customerID != c.customer {
		return read()
	}
	k := factKey{customer: c.customer, saved: c.saved, what: what}
	if v, ok := c.facts.reads.Get(k); ok {
		return v.(T), nil
	}
	v, err := read()
	if err == nil {
		c.facts.reads.Put(k, v)
	}
	return v, err
}

func (c cachedFacts) Subscriptions(ctx context.Context, customerID string) ([]store.Subscription, error) {
	subs, err := kept(c, customerID, "subscriptions", func() ([]store.Subscription, error) {
		return c.subscribeFormStore.Subscriptions(ctx, customerID)
	})
	return slices.Clone(subs), err // the caller's to change
}

func (c cachedFacts) TrialTaken(ctx context.Context, customerID, productID string) (bool, error) {
	return kept(c, customerID, "trial\x00"+productID, func() (bool, error) {
		return c.subscribeFormStore.TrialTaken(ctx, customerID, productID)
	})
}

func (c cachedFacts) SubscriptionShipTo(ctx context.Context, customerID string) (store.Address, error) {
	return kept(c, customerID, "ship-to", func() (store.Address, error) {
		return c.subscribeFormStore.SubscriptionShipTo(ctx, customerID)
	})
}
