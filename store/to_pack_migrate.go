package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// listToPack runs the one-time step of toPackListed: a new table's orders
// are put on the packing queue as they are placed; an older table is
// scanned once for placed orders without their entry.
func (s *Store) listToPack(ctx context.Context, created bool) error {
	done, err := s.Marked(ctx, toPackListed)
	if err != nil || done {
		return err
	}
	if !created {
		n, err := s.queueOlderOrders(ctx)
		if err != nil {
			return fmt.Errorf("put placed orders on the packing queue (%d put): %w", n, err)
		}
		MigrateLog("placed orders put on the packing queue", "table", s.table, "orders", n)
	}
	if err := s.Mark(ctx, toPackListed); err != nil && !errors.Is(err, ErrConflict) {
		return err
	}
	return nil
}

// queueOlderOrders puts each placed order without a packing-queue entry on
// the queue, with what its lines' warehouses pick, on condition it is
// still placed and still has no entry: a rerun after a crash, or an order
// packed meanwhile, is left as it is.
func (s *Store) queueOlderOrders(ctx context.Context) (int, error) {
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return 0, err
	}
	placed := expression.Name("EntityType").Equal(expression.Value(entityOrder)).
		And(expression.Name("Status").Equal(expression.Value(string(OrderPlaced))), expression.AttributeNotExists(expression.Name(attrShsPK)))
	expr, err := expression.NewBuilder().WithFilter(placed).Build()
	if err != nil {
		return 0, err
	}
	scan := dynamodb.NewScanPaginator(s.db, &dynamodb.ScanInput{
		TableName: aws.String(s.table), FilterExpression: expr.Filter(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	n := 0
	for scan.HasMorePages() {
		out, err := scan.NextPage(ctx)
		if err != nil {
			return n, fmt.Errorf("scan %s: %w", s.table, err)
		}
		for _, item := range out.Items {
			var r orderRecord
			if err := attributevalue.UnmarshalMap(item, &r); err != nil {
				return n, err
			}
			d, err := s.orderDetails(ctx, r.order().ID, true)
			if err != nil {
				return n, err
			}
			o := d.Order
			err = s.updateIf(ctx, orderKey(o.ID), customerKey(o.CustomerID),
				onPackingQueue(expression.Set(expression.Name("Status"), expression.Value(string(OrderPlaced))), o, d.Items, shards),
				placed.And(expression.Name("UnitRefunds").Equal(expression.Value(o.unitRefunds)).Or(expression.AttributeNotExists(expression.Name("UnitRefunds")))))
			if isConditionFailed(err) {
				continue // packed, refunded or ended meanwhile
			}
			if err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}
