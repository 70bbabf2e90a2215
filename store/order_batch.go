package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
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
	keys := make([]map[string]types.AttributeValue, 0, len(refs))
	for _, l := range refs {
		keys = append(keys, itemKey(orderKey(l.OrderID), customerKey(l.CustomerID)))
	}
	byID := make(map[string]Order, len(refs))
	err := s.batchGet(ctx, keys, false, func(it map[string]types.AttributeValue) error {
		var r orderRecord
		if err := attributevalue.UnmarshalMap(it, &r); err != nil {
			return err
		}
		o := r.order()
		byID[o.ID] = o
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read orders of lines: %w", err)
	}
	out := make([]Order, 0, len(refs))
	for _, l := range refs {
		if o, ok := byID[l.OrderID]; ok {
			out = append(out, o)
		}
	}
	return out, nil
}
