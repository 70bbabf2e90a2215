package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// A shard count is fixed for a table when Migrate first meets it, kept in
// the table's meta partition, and read once per Store: every replica must
// place an item in the same shard, whatever it was configured with.
type shardCount struct {
	sortKey string // meta/<sortKey>
	what    string // in errors: "billing", "list"
	def     int    // a new table's count when none is configured
	want    int    // configured: 0 takes the table's

	mu   sync.Mutex
	read int // the table's count, once read
}

type shardsRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	Shards     int    `dynamodbav:"Shards"`
}

// ErrShardsChanged refuses a shard count other than the table's.
var ErrShardsChanged = errors.New("the table's shard count cannot change")

// settle records the count for a table that has none, or checks the
// configured one against it, and remembers it. It returns the table's
// count.
func (c *shardCount) settle(ctx context.Context, s *Store) (int, error) {
	want := c.want
	if want == 0 {
		want = c.def
	}
	err := s.putNew(ctx, shardsRecord{PK: partitionMeta, SK: c.sortKey, EntityType: entityMeta, Shards: want}, c.what+" shards")
	if err != nil && !errors.Is(err, ErrConflict) {
		return 0, err
	}
	rec, err := c.record(ctx, s)
	if err != nil {
		return 0, err
	}
	if c.want != 0 && rec.Shards != c.want {
		return 0, fmt.Errorf("%w: %s shards: table has %d, configured %d", ErrShardsChanged, c.what, rec.Shards, c.want)
	}
	c.mu.Lock()
	c.read = rec.Shards
	c.mu.Unlock()
	return rec.Shards, nil
}

func (c *shardCount) record(ctx context.Context, s *Store) (shardsRecord, error) {
	rec, err := getItemConsistent(ctx, s, partitionMeta, c.sortKey, c.what+" shards", func(r shardsRecord) shardsRecord { return r })
	switch {
	case errors.Is(err, ErrNotFound):
		return shardsRecord{}, fmt.Errorf("%s shards: the table is not migrated (run shop migrate)", c.what)
	case err != nil:
		return shardsRecord{}, err
	case rec.Shards < 1:
		return shardsRecord{}, fmt.Errorf("%s shards: bad count %d", c.what, rec.Shards)
	}
	return rec, nil
}

// count is the table's shard count: read once, then from memory.
func (c *shardCount) count(ctx context.Context, s *Store) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.read > 0 {
		return c.read, nil
	}
	rec, err := c.record(ctx, s)
	if err != nil {
		return 0, err
	}
	c.read = rec.Shards
	return c.read, nil
}
