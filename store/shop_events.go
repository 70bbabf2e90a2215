package store

import (
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The shop's own events (order.placed, subscription.renewed, ...), for
// staff's endpoints: each is an item put in the transaction of the change
// it reports, as the confirmation mail is, and only when some staff
// endpoint wants its type, so a shop without endpoints writes nothing more.
// The writes ask the ShopHooks the web app gives the store (its key
// cache's copy of the endpoints: no read), wherever they run, the jobs'
// too; and they wake the replica's deliverer once the event is written.
// An event carries its customer's id, which lists it in GSI1 by customer
// for the privacy export and erasure (privacy_events.go).

// ShopHooks is what the store asks about staff's endpoints.
type ShopHooks struct {
	// Subscribed are the ids of owner's endpoints that want events of
	// type typ (the API key cache's Subscribed).
	Subscribed func(owner, typ string) []string
	// Wake tells this replica's deliverer an event was written.
	Wake func()
}

type shopHooksBox struct{ p atomic.Pointer[ShopHooks] }

// AnnounceShopEvents has the store write the shop's events for the
// endpoints h knows of; until it is called none are written.
func (s *Store) AnnounceShopEvents(h ShopHooks) { s.shopHooks.p.Store(&h) }

// hooks is what AnnounceShopEvents gave, or nil.
func (s *Store) hooks() *ShopHooks {
	if s.shopHooks == nil { // a Store made bare, by a unit test
		return nil
	}
	return s.shopHooks.p.Load()
}

// shopEndpoints are the staff endpoints that want events of type typ.
func (s *Store) shopEndpoints(typ string) []string {
	h := s.hooks()
	if h == nil || h.Subscribed == nil {
		return nil
	}
	return h.Subscribed(StaffWebhooks, typ)
}

// shopEventWritten wakes the deliverer after a write carrying an event:
// transactWrite calls it for every transaction that put one.
func (s *Store) shopEventWritten() {
	if h := s.hooks(); h != nil && h.Wake != nil {
		h.Wake()
	}
}

// shopEvent is the event typ of a change of customer's at now, data the
// object as an API would show it (made only when an endpoint wants it);
// ok false when none does.
func (s *Store) shopEvent(typ, customer string, now time.Time, data func() any) (WebhookEvent, bool, error) {
	a := &Announcement[struct{}]{Integration: StaffWebhooks, Endpoints: s.shopEndpoints(typ), Data: func(struct{}) any { return data() }}
	e, ok, err := announce(a, typ, now, struct{}{})
	e.Customer = customer
	return e, ok, err
}

// txShopEvent is the transaction's Put of the shop event typ, if any
// staff endpoint wants it (ok false: nothing to add). The transaction
// wakes the deliverer once it succeeded (transactWrite).
func (s *Store) txShopEvent(typ, customer string, now time.Time, data func() any) (item types.TransactWriteItem, ok bool, err error) {
	e, ok, err := s.shopEvent(typ, customer, now, data)
	if !ok || err != nil {
		return types.TransactWriteItem{}, false, err
	}
	item, err = s.txPutNew(e.record())
	return item, err == nil, err
}

// carriesShopEvent reports whether a transaction puts a shop event.
func carriesShopEvent(items []types.TransactWriteItem) bool {
	for _, it := range items {
		if it.Put == nil {
			continue
		}
		kind, _ := it.Put.Item["EntityType"].(*types.AttributeValueMemberS)
		owner, _ := it.Put.Item["Integration"].(*types.AttributeValueMemberS)
		if kind != nil && owner != nil && kind.Value == entityWebhookEvent && owner.Value == StaffWebhooks {
			return true
		}
	}
	return false
}

// withShopEvent is items with the shop event typ if a staff endpoint
// wants it.
func (s *Store) withShopEvent(items []types.TransactWriteItem, typ, customer string, now time.Time, data func() any) ([]types.TransactWriteItem, error) {
	item, ok, err := s.txShopEvent(typ, customer, now, data)
	if ok {
		items = append(items, item)
	}
	return items, err
}

// subscriptionEvents are items with the events a write of a subscription
// from before to after makes, whichever write it is (subscriptionPut):
// subscription.payment_failed when a charge was declined (its attempts
// went up), subscription.cancelled when it ends (by the customer, at its
// period's end, after its last retry). The erasure's own write (it
// clears the email) announces nothing: it sends the person's data
// nowhere new, and leaves no event behind for its last step to miss.
func (s *Store) subscriptionEvents(items []types.TransactWriteItem, before, after Subscription) ([]types.TransactWriteItem, error) {
	if before.Email != "" && after.Email == "" {
		return items, nil
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	data := func() any { return eventSubscription(after, nil) }
	var err error
	if after.Attempt > before.Attempt {
		if items, err = s.withShopEvent(items, EventSubscriptionPaymentFailed, after.AccountID, now, data); err != nil {
			return nil, err
		}
	}
	if before.Status != SubscriptionCancelled && after.Status == SubscriptionCancelled {
		return s.withShopEvent(items, EventSubscriptionCancelled, after.AccountID, now, data)
	}
	return items, nil
}
