package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// waitsToShip says whether an order in this status is on the to-ship list.
func waitsToShip(st OrderStatus) bool { return st == OrderPlaced || st == OrderShipping }

// OrdersToShip lists the orders placed and not yet all shipped, oldest
// first: one Query per list shard of the sparse Attention index, merged.
func (s *Store) OrdersToShip(ctx context.Context, limit int, cursor string) (Page[Order], error) {
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return Page[Order]{}, err
	}
	l := shardedList{id: "to-ship", shards: shards,
		key: func(n int) keyCond { return onAttention.pkEquals(toShipKey(n)) }}
	return mergedPage(ctx, s, l, limit, cursor, orderRecord.order)
}

// DefaultLowStockAt is the level under which a product's stock in a
// warehouse counts as low, unless staff set another for the product.
const DefaultLowStockAt = 5

// LowStock lists the stock levels under their product's threshold, by
// product and warehouse: one Query of the Attention index (a page of up
// to 1 MB, some thousands of levels: more than a dashboard shows).
func (s *Store) LowStock(ctx context.Context) ([]StockLevel, error) {
	return queryAll(ctx, s, querySpec{key: onAttention.pkEquals(lowStockList)}, warehouseItemRecord.stockLevel)
}

// lowBelow is the condition "the level is under its threshold".
func lowBelow() expression.ConditionBuilder {
	return expression.Or(
		expression.Name("LowAt").AttributeNotExists().And(expression.Name("Quantity").LessThan(expression.Value(DefaultLowStockAt))),
		expression.Name("LowAt").AttributeExists().And(expression.Name("Quantity").LessThan(expression.Name("LowAt"))))
}

// markLowStock puts a stock level on the low-stock list or takes it off,
// as its quantity is now. It follows every write that moves stock: no
// single update can set an attribute from the result of another, so each
// change is followed by this check of the level as it stands, and the
// last check to run sees the last quantity. lowNow is what the caller
// expects (saving the second write in the usual case).
func (s *Store) markLowStock(ctx context.Context, productID, warehouseID string, lowNow bool) error {
	pk, sk := productKey(productID), warehouseKey(warehouseID)
	set := func() error {
		return s.updateIf(ctx, pk, sk,
			expression.Set(expression.Name(attrAttnPK), expression.Value(lowStockList)).
				Set(expression.Name(attrAttnSK), expression.Value(lowStockSortKey(productID, warehouseID))),
			lowBelow().And(expression.Name("Quantity").AttributeExists()))
	}
	clear := func() error {
		return s.updateIf(ctx, pk, sk,
			expression.Remove(expression.Name(attrAttnPK)).Remove(expression.Name(attrAttnSK)),
			expression.Not(lowBelow()).And(expression.Name("Quantity").AttributeExists()))
	}
	first, second := clear, set
	if lowNow {
		first, second = set, clear
	}
	err := first()
	if isConditionFailed(err) {
		err = second()
	}
	if isConditionFailed(err) {
		return nil // the level is gone (or moved between the two): its own check follows
	}
	return err
}

// ErrBadLowStockAt refuses a low-stock threshold out of range.
var ErrBadLowStockAt = errors.New("a low-stock threshold is a whole number from 1 to 1,000,000")

// SetLowStockAt sets the level under which the product's stock counts as
// low on each of its stock levels (the threshold is the levels'; a level
// in a new warehouse starts at DefaultLowStockAt), and puts each level on
// or off the low-stock list as it now stands.
func (s *Store) SetLowStockAt(ctx context.Context, productID string, at int) error {
	if at < 1 || at > 1_000_000 {
		return ErrBadLowStockAt
	}
	levels, err := s.ProductStock(ctx, productID)
	if err != nil {
		return err
	}
	if len(levels) == 0 {
		return fmt.Errorf("no warehouse holds product %s yet: %w", productID, ErrNotFound)
	}
	for _, l := range levels {
		err := s.updateIf(ctx, productKey(productID), warehouseKey(l.WarehouseID),
			expression.Set(expression.Name("LowAt"), expression.Value(at)), expression.Name(attrPK).AttributeExists())
		if err != nil && !isConditionFailed(err) {
			return err
		}
		if err := s.markLowStock(ctx, productID, l.WarehouseID, l.Quantity < at); err != nil {
			return err
		}
	}
	return nil
}

// markLowAfter puts the stock levels an order took from on or off the
// low-stock list, as each now stands: one conditional write a level (two
// when a race made the guess wrong). Every change of a level is followed
// by this, so the check that runs last sees its last quantity; checking
// only the levels believed low would miss a level sold down by orders
// racing each other, each believing it left enough.
//
// The order stands whatever happens here: a level whose write failed is
// put right by its next sale or adjustment.
func (s *Store) markLowAfter(ctx context.Context, q Quote) {
	for _, at := range q.taken {
		if err := s.markLowStock(ctx, at.productID, at.warehouseID, at.leftLow); err != nil {
			slog.Warn("low stock not marked; its next change marks it", "product", at.productID, "warehouse", at.warehouseID, "err", err)
		}
	}
}

// listWhatNeedsStaff runs the one-time step of attentionListed: a new
// table has nothing from before, an older one is scanned once.
func (s *Store) listWhatNeedsStaff(ctx context.Context, created bool) error {
	done, err := s.Marked(ctx, attentionListed)
	if err != nil || done {
		return err
	}
	if !created {
		orders, levels, err := s.listOlderAttention(ctx)
		if err != nil {
			return fmt.Errorf("list orders to ship and low stock (orders %d, stock levels %d): %w", orders, levels, err)
		}
		MigrateLog("orders counted in their days and listed to ship; low stock listed", "table", s.table, "orders", orders, "stock levels", levels)
	}
	if err := s.Mark(ctx, attentionListed); err != nil && !errors.Is(err, ErrConflict) {
		return err
	}
	return nil
}

// listOlderAttention scans for orders not yet in their day's totals and
// stock levels not yet checked. Each order is counted in one transaction
// with its DayCounted mark (on condition it has none), and put on the
// to-ship list on condition its status is still as read; a rerun after a
// crash counts nothing twice.
func (s *Store) listOlderAttention(ctx context.Context) (orders, levels int, err error) {
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return 0, 0, err
	}
	// A held or expired order is in no day's totals: a held one is counted
	// when its payment places it.
	isOrder := expression.Name("EntityType").Equal(expression.Value(entityOrder)).And(expression.AttributeNotExists(expression.Name("DayCounted")),
		expression.Name("Status").NotEqual(expression.Value(string(OrderAwaitingPayment))),
		expression.Name("Status").NotEqual(expression.Value(string(OrderExpired))))
	isLevel := expression.Name("EntityType").Equal(expression.Value(entityWarehouseItem)).And(expression.AttributeNotExists(expression.Name(attrAttnPK)))
	expr, err := expression.NewBuilder().WithFilter(isOrder.Or(isLevel)).Build()
	if err != nil {
		return 0, 0, err
	}
	scan := dynamodb.NewScanPaginator(s.db, &dynamodb.ScanInput{
		TableName: aws.String(s.table), FilterExpression: expr.Filter(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	for scan.HasMorePages() {
		out, err := scan.NextPage(ctx)
		if err != nil {
			return orders, levels, fmt.Errorf("scan %s: %w", s.table, err)
		}
		for _, item := range out.Items {
			var head struct{ EntityType string }
			if err := attributevalue.UnmarshalMap(item, &head); err != nil {
				return orders, levels, err
			}
			if head.EntityType == entityWarehouseItem {
				var r warehouseItemRecord
				if err := attributevalue.UnmarshalMap(item, &r); err != nil {
					return orders, levels, err
				}
				l := r.stockLevel()
				if err := s.markLowStock(ctx, l.ProductID, l.WarehouseID, l.Low()); err != nil {
					return orders, levels, err
				}
				levels++
				continue
			}
			var r orderRecord
			if err := attributevalue.UnmarshalMap(item, &r); err != nil {
				return orders, levels, err
			}
			if err := s.countOlderOrder(ctx, r.order(), shards); err != nil {
				return orders, levels, err
			}
			orders++
		}
	}
	return orders, levels, nil
}

// countOlderOrder adds an order from before the day totals to its day's,
// marking it counted, and lists it to ship if it waits.
func (s *Store) countOlderOrder(ctx context.Context, o Order, shards int) error {
	totals, err := s.dayTotalsUpdate(o, shards)
	if err != nil {
		return err
	}
	upd := expression.Set(expression.Name("DayCounted"), expression.Value(true))
	if waitsToShip(o.Status) {
		upd = upd.Set(expression.Name(attrAttnPK), expression.Value(toShipKey(shardOf(o.ID, shards)))).
			Set(expression.Name(attrAttnSK), expression.Value(createdKey(o.PlacedAt, o.ID)))
	}
	mark, err := s.txUpdate(orderKey(o.ID), customerKey(o.CustomerID), upd,
		expression.AttributeNotExists(expression.Name("DayCounted")).And(expression.Name("Status").Equal(expression.Value(string(o.Status)))))
	if err != nil {
		return err
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{mark, totals}})
	if cancellationReasons(err) != nil {
		return nil // counted meanwhile, or its status moved (and its status write listed it)
	}
	return err
}
