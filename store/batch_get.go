package store

import (
	"context"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// batchGet reads items by key with BatchGetItem, 100 keys a request, and
// hands each item found to each. Keys the engine left unprocessed are
// asked again after a short, growing pause, as the SDK's guide asks.
func (s *Store) batchGet(ctx context.Context, keys []map[string]types.AttributeValue, consistent bool, each func(map[string]types.AttributeValue) error) error {
	for chunk := range slices.Chunk(keys, 100) {
		pending := map[string]types.KeysAndAttributes{s.table: {Keys: chunk, ConsistentRead: aws.Bool(consistent)}}
		for attempt := 0; len(pending) > 0; attempt++ {
			if attempt > 0 {
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(time.Duration(10<<min(attempt-1, 6)) * time.Millisecond):
				}
			}
			out, err := s.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: pending})
			if err != nil {
				return err
			}
			for _, it := range out.Responses[s.table] {
				if err := each(it); err != nil {
					return err
				}
			}
			pending = out.UnprocessedKeys
		}
	}
	return nil
}
