// Package store is the shop's single-table DynamoDB store: domain types, key
// builders, the table definition and one file per entity or access-pattern
// group. Records (the item shapes) stay private; callers see domain types.
package store

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Store reads and writes the shop's one table.
type Store struct {
	db    *dynamodb.Client
	table string
	now   func() time.Time
}

// Option changes a Store.
type Option func(*Store)

// WithClock replaces time.Now, for tests of expiry.
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// New returns a Store over table.
func New(db *dynamodb.Client, table string, opts ...Option) *Store {
	s := &Store{db: db, table: table, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Table is the table's name.
func (s *Store) Table() string { return s.table }

// timestamp is the house format: UTC RFC 3339 with milliseconds.
func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }
