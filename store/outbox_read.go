package store

import (
	"context"
)

// Mail reads one mail of the outbox by its id (PK=SK=mail#id);
// ErrNotFound if there is none.
func (s *Store) Mail(ctx context.Context, id string) (Mail, error) {
	if !ValidID(id) {
		return Mail{}, ErrNotFound
	}
	return getItem(ctx, s, mailKey(id), mailKey(id), "mail "+id, mailRecord.mail)
}
