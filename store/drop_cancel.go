package store

// What the shop's pages need around a drop beyond drop.go: the mail a
// cancellation sends, and whether a listed drop's count can be trusted.

// MailDropCancelled tells a ticket holder that staff cancelled the drop
// and the ticket is void.
const MailDropCancelled MailKind = "drop_cancelled"

// DropCancelMailID is the outbox id of the cancellation mail to one
// holder: one mail per drop and client, however often staff cancel.
func DropCancelMailID(dropID, client string) string { return MailID("dropcancel", dropID, client) }

// ListedClaimed reports whether a drop read from a list (PublishedDrops,
// AllDrops) carries its claimed count: a drop with counters counts on its
// counter items, which lists do not read.
func (s *Store) ListedClaimed(d Drop) bool { return d.Counted() }
