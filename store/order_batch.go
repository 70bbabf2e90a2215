package store

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// OrdersOfLines are the orders the lines belong to, each once, in the
// order of their first line: the staff's orders filtered by a product
// read the product's lines of a range (ProductOrders) and then their
// orders, by key (BatchGetItem, 100 keys a request). An order gone since
// (none is deleted; an archived one) is left out.
func (s *Store) OrdersOfLines(ctx context.Context, lines []OrderItem) ([]Order, error) {
	var refs []OrderItem
	seen := map[string]bool{}
	for _, l := range lines {
		if !seen[l.OrderID] {
			seen[l.OrderID] = true
			refs = append(refs, l)
		}
	}
	byID := make(map[string]Order, len(refs))
	for chunk := range slices.Chunk(refs, 100) {
		keys := make([]map[string]types.AttributeValue, 0, len(chunk))
		for _, l := range chunk {
			keys = append(keys, itemKey(orderKey(l.OrderID), customerKey(l.CustomerID)))
		}
		pending := map[string]types.KeysAndAttributes{s.table: {Keys: keys}}
		for attempt := 0; len(pending) > 0; attempt++ {
			if attempt > 0 { // unprocessed keys: back off a little, as the SDK's guide asks
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-time.After(time.Duration(10<<min(attempt-1, 6)) * time.Millisecond):
				}
			}
			out, err := s.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: pending})
			if err != nil {
				return nil, fmt.Errorf("read orders of lines: %w", err)
			}
			for _, it := range out.Responses[s.table] {
				var r orderRecord
				if err := attributevalue.UnmarshalMap(it, &r); err != nil {
					return nil, err
				}
				o := r.order()
				byID[o.ID] = o
			}
			pending = out.UnprocessedKeys
		}
	}
	out := make([]Order, 0, len(refs))
	for _, l := range refs {
		if o, ok := byID[l.OrderID]; ok {
			out = append(out, o)
		}
	}
	return out, nil
}
