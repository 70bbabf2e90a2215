package store

import (
	"context"
	"fmt"
)

// Mail reads one mail of the outbox by its id (PK=SK=mail#id);
// ErrNotFound if there is none.
func (s *Store) Mail(ctx context.Context, id string) (Mail, error) {
	if !ValidID(id) {
		return Mail{}, ErrNotFound
	}
	var r mailRecord
	if err := s.getItem(ctx, mailKey(id), mailKey(id), &r); err != nil {
		return Mail{}, fmt.Errorf("mail %s: %w", id, err)
	}
	return r.mail(), nil
}
