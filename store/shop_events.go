package store

import (
	"context"
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

// shopEventWritten wakes the deliverer after a write carrying an event.
func (s *Store) shopEventWritten() {
	if h := s.hooks(); h != nil && h.Wake != nil {
		h.Wake()
	}
}

// wakeFor wakes the deliverer after a write that carried an event of
// type typ if an endpoint wants it (and so the write carried one).
func (s *Store) wakeFor(typ string) {
	if len(s.shopEndpoints(typ)) > 0 {
		s.shopEventWritten()
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
// staff endpoint wants it (ok false: nothing to add). The caller calls
// shopEventWritten once its transaction succeeded.
func (s *Store) txShopEvent(typ, customer string, now time.Time, data func() any) (item types.TransactWriteItem, ok bool, err error) {
	e, ok, err := s.shopEvent(typ, customer, now, data)
	if !ok || err != nil {
		return types.TransactWriteItem{}, false, err
	}
	item, err = s.txPutNew(e.record())
	return item, err == nil, err
}

// putShopEvent writes the shop event typ on its own (a change already
// written by a single write of its own, with no transaction to join);
// wrote false when no endpoint wants it.
func (s *Store) putShopEvent(ctx context.Context, typ, customer string, now time.Time, data func() any) (wrote bool, err error) {
	e, ok, err := s.shopEvent(typ, customer, now, data)
	if !ok || err != nil {
		return false, err
	}
	if err := s.putNew(ctx, e.record(), "the "+typ+" event"); err != nil {
		return false, err
	}
	s.shopEventWritten()
	return true, nil
}
