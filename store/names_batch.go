package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Names for a page of rows that carry only ids: one BatchGetItem (100
// keys a request) for the whole page, not a read per row.

// OrderNumbers are the numbers of a customer's orders, by order id: the
// staff customer page names the orders of its invoices and products by
// them. An order without a number (from before numbers, imported) or gone
// is left out.
func (s *Store) OrderNumbers(ctx context.Context, customerID string, orderIDs []string) (map[string]string, error) {
	var keys []map[string]types.AttributeValue
	seen := map[string]bool{}
	for _, id := range orderIDs {
		if !seen[id] && ValidID(id) {
			seen[id] = true
			keys = append(keys, itemKey(orderKey(id), customerKey(customerID)))
		}
	}
	numbers := make(map[string]string, len(keys))
	err := s.batchGet(ctx, keys, false, func(it map[string]types.AttributeValue) error {
		var r orderRecord
		if err := attributevalue.UnmarshalMap(it, &r); err != nil {
			return err
		}
		if o := r.order(); o.Number != "" {
			numbers[o.ID] = o.Number
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read order numbers: %w", err)
	}
	return numbers, nil
}

// CustomersByID are the customers of ids, by id (the staff drop page names
// its holders by them); an id whose customer is gone is left out.
func (s *Store) CustomersByID(ctx context.Context, ids []string) (map[string]Customer, error) {
	var keys []map[string]types.AttributeValue
	seen := map[string]bool{}
	for _, id := range ids {
		if !seen[id] && ValidID(id) {
			seen[id] = true
			keys = append(keys, itemKey(customerKey(id), customerKey(id)))
		}
	}
	out := make(map[string]Customer, len(keys))
	err := s.batchGet(ctx, keys, false, func(it map[string]types.AttributeValue) error {
		var r customerRecord
		if err := attributevalue.UnmarshalMap(it, &r); err != nil {
			return err
		}
		c := r.customer()
		out[c.ID] = c
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read customers: %w", err)
	}
	return out, nil
}
