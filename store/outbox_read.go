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
	r, err := getItem[mailRecord](ctx, s, mailKey(id), mailKey(id), "mail "+id)
	if err != nil {
		return Mail{}, err
	}
	return r.mail(), nil
}
