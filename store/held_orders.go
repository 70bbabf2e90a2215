package store

import "context"

// HeldOrders lists every order awaiting its card payment, soonest
// deadline first (staff's "Awaiting payment", paged): one Query per list
// shard of GSI1 awaiting-payment#n, in parallel, merged, as HeldOrdersDue
// reads them but whatever their deadline. Each comes with its hold: the
// deadline, what the card is to pay, the provider and its page. An order
// leaves the list in the transaction that places or releases it.
func (s *Store) HeldOrders(ctx context.Context, limit int, cursor string) (Page[Order], error) {
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return Page[Order]{}, err
	}
	l := shardedList{id: prefixAwaitingPayment + "|all", shards: shards, key: func(n int) keyCond {
		return onGSI1.pkEquals(awaitingPaymentKey(n))
	}}
	return mergedPage(ctx, s, l, limit, cursor, orderRecord.order)
}
