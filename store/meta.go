package store

import (
	"context"
	"errors"
	"fmt"
)

type markerRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	At         string `dynamodbav:"At"`
}

// Marked reports whether a one-time step (such as loading demo data) ran.
func (s *Store) Marked(ctx context.Context, name string) (bool, error) {
	var r markerRecord
	err := s.getItem(ctx, partitionMeta, markerPrefix+name, &r)
	switch {
	case errors.Is(err, ErrNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("get marker %s: %w", name, err)
	}
	return true, nil
}

// Mark records a one-time step; ErrConflict if it was already recorded.
func (s *Store) Mark(ctx context.Context, name string) error {
	return s.putNew(ctx, markerRecord{PK: partitionMeta, SK: "marker#" + name, EntityType: entityMeta, At: timestamp(s.now())}, "marker "+name)
}
