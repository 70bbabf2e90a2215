package store

import (
	"context"
	"errors"
)

type markerRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	At         string `dynamodbav:"At"`
}

// Marked reports whether a one-time step (such as loading demo data) ran.
func (s *Store) Marked(ctx context.Context, name string) (bool, error) {
	_, err := getItem(ctx, s, partitionMeta, markerKey(name), "marker "+name, asRecord[markerRecord])
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// Mark records a one-time step; ErrConflict if it was already recorded.
func (s *Store) Mark(ctx context.Context, name string) error {
	return s.putNew(ctx, markerRecord{PK: partitionMeta, SK: markerKey(name), EntityType: entityMeta, At: timestamp(s.now())}, "marker "+name)
}
