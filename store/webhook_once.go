package store

import (
	"context"
	"crypto/sha256"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Events written once: where no single write makes a change (a drop with
// counters sells out across them, a drop closes by time, a cancellation
// voids its tickets page by page and may be retried), the event's id is
// keyed by drop and type (and ticket), and it is put on condition it does
// not exist. Whichever process first sees the state writes it; the others'
// puts fail and say nothing. drop.closed and drop.cancelled made by a
// write (staff's or the API's) take the same keyed id, so a drop closed
// at its deadline and then by staff is announced closed once.

// onceEventID is the id of the event typ of a drop (and of one client's
// ticket of it): 24 characters of the ids' alphabet, from a hash.
func onceEventID(typ, dropID, client string) string {
	h := sha256.Sum256([]byte(typ + "\x00" + dropID + "\x00" + client))
	return idEncoding.EncodeToString(h[:15])
}

// txAnnounceOnce is the transaction's Put of the keyed event of a change
// of drop dropID (and client), on condition it does not exist; ok false
// when nobody asked for it.
func txAnnounceOnce[T any](s *Store, a *Announcement[T], typ, dropID, client string, now time.Time, obj T) (item types.TransactWriteItem, ok bool, err error) {
	e, ok, err := announceAs(a, onceEventID(typ, dropID, client), typ, now, obj)
	if !ok || err != nil {
		return types.TransactWriteItem{}, false, err
	}
	item, err = s.txPutNew(e.record())
	return item, err == nil, err
}

// AnnounceDropOnce writes the event typ of drop d (drop.sold_out,
// drop.closed at its deadline) for a's endpoints, once per drop and type:
// one PutItem on condition the keyed event does not exist. It reports
// whether this call wrote it (false: it was written before, by this
// process or another, or nobody asked for it).
func (s *Store) AnnounceDropOnce(ctx context.Context, d Drop, typ string, a *Announcement[Drop]) (bool, error) {
	now := s.now().UTC().Truncate(time.Millisecond)
	e, ok, err := announceAs(a, onceEventID(typ, d.ID, ""), typ, now, d)
	if !ok || err != nil {
		return false, err
	}
	err = s.putNew(ctx, e.record(), "the "+typ+" event of drop "+d.ID)
	if errors.Is(err, ErrConflict) {
		return false, nil
	}
	return err == nil, err
}

// WebhookEventOf reads the keyed event typ of a drop (and client), as
// AnnounceDropOnce or a close, cancel or void wrote it.
func (s *Store) WebhookEventOf(ctx context.Context, typ, dropID, client string) (WebhookEvent, error) {
	return s.WebhookEvent(ctx, onceEventID(typ, dropID, client))
}
