package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
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
