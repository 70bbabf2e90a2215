package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// StockAdjustment is a change of stock made by staff, with its reason.
type StockAdjustment struct {
	ID          string
	WarehouseID string
	ProductID   string
	ProductName string
	Delta       int
	Reason      string
	StaffID     string
	StaffName   string // as the staff member was named then
	At          time.Time
}

type adjustmentRecord struct {
	PK          string `dynamodbav:"PK"` // w#warehouse
	SK          string `dynamodbav:"SK"` // adj#time#id
	EntityType  string `dynamodbav:"EntityType"`
	ProductID   string `dynamodbav:"ProductID"`
	ProductName string `dynamodbav:"ProductName"`
	Delta       int    `dynamodbav:"Delta"`
	Reason      string `dynamodbav:"Reason"`
	StaffID     string `dynamodbav:"StaffID"`
	StaffName   string `dynamodbav:"StaffName,omitempty"`
	At          string `dynamodbav:"At"`
}

func (r adjustmentRecord) adjustment() StockAdjustment {
	return StockAdjustment{
		ID: r.SK, WarehouseID: trimPrefix(r.PK, prefixWarehouse), ProductID: r.ProductID, ProductName: r.ProductName,
		Delta: r.Delta, Reason: r.Reason, StaffID: r.StaffID, StaffName: r.StaffName, At: parseTime(r.At),
	}
}

// AdjustStock changes a warehouse's stock of a product by delta and records
// why, in one transaction. Stock never goes below zero: a decrease is
// conditioned on enough stock (ErrInsufficientStock). An increase creates
// the stock level if the warehouse did not hold the product yet.
func (s *Store) AdjustStock(ctx context.Context, p Product, w Warehouse, delta int, reason string, by Customer) (StockAdjustment, error) {
	if delta == 0 {
		return StockAdjustment{}, errors.New("a stock adjustment changes the stock")
	}
	defer s.forgetStock(p.ID)
	now := s.now().UTC().Truncate(time.Millisecond)
	adj := StockAdjustment{ID: adjustmentKey(now, NewID()), WarehouseID: w.ID, ProductID: p.ID,
		ProductName: p.Name, Delta: delta, Reason: reason, StaffID: by.ID, StaffName: by.Buyer().Label(by.ID), At: now}
	update := expression.Set(expression.Name("Quantity"),
		expression.Plus(expression.IfNotExists(expression.Name("Quantity"), expression.Value(0)), expression.Value(delta))).
		Set(expression.Name("EntityType"), expression.Value(entityWarehouseItem)).
		Set(expression.Name("ProductName"), expression.Value(p.Name)).
		Set(expression.Name("WarehouseName"), expression.Value(w.Name)).
		Set(expression.Name("City"), expression.Value(w.Address.City)).
		Set(expression.Name(attrGSI2PK), expression.Value(warehouseKey(w.ID))).
		Set(expression.Name(attrGSI2SK), expression.Value(productKey(p.ID)))
	b := expression.NewBuilder().WithUpdate(update)
	if delta < 0 {
		b = b.WithCondition(expression.Name("Quantity").GreaterThanEqual(expression.Value(-delta)))
	}
	expr, err := b.Build()
	if err != nil {
		return StockAdjustment{}, err
	}
	log, err := attributevalue.MarshalMap(adjustmentRecord{
		PK: warehouseKey(w.ID), SK: adj.ID, EntityType: entityAdjustment, ProductID: p.ID, ProductName: p.Name,
		Delta: delta, Reason: reason, StaffID: adj.StaffID, StaffName: adj.StaffName, At: timestamp(now),
	})
	if err != nil {
		return StockAdjustment{}, err
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Update: &types.Update{
			TableName: aws.String(s.table), Key: itemKey(productKey(p.ID), warehouseKey(w.ID)),
			UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
			ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		}},
		{Put: &types.Put{TableName: aws.String(s.table), Item: log}},
	}})
	if reasons := cancellationReasons(err); reasons != nil && reasons[0] == reasonConditionFailed {
		levels, lerr := s.ProductStock(ctx, p.ID)
		if lerr != nil {
			return StockAdjustment{}, fmt.Errorf("read stock after a refused adjustment: %w", lerr)
		}
		left := 0
		for _, l := range levels {
			if l.WarehouseID == w.ID {
				left = l.Quantity
			}
		}
		return StockAdjustment{}, &StockShortError{ProductID: p.ID, ProductName: p.Name, Wanted: -delta, Available: left}
	}
	if err != nil {
		return StockAdjustment{}, fmt.Errorf("adjust stock: %w", err)
	}
	// On or off the low-stock list as the level now stands (a decrease
	// most likely leaves it low, an increase not).
	if err := s.markLowStock(ctx, p.ID, w.ID, delta < 0); err != nil {
		slog.Warn("stock adjusted, its low mark not updated; its next change does", "product", p.ID, "warehouse", w.ID, "err", err)
	}
	return adj, nil
}

// StockAdjustments lists a warehouse's adjustments, newest first (PK=w#id,
// SK begins_with adj#).
func (s *Store) StockAdjustments(ctx context.Context, warehouseID string, limit int, cursor string) (Page[StockAdjustment], error) {
	pk := warehouseKey(warehouseID)
	q := querySpec{key: onTable.pkAndSKPrefix(pk, prefixAdjust), backward: true}
	return pagedQuery(ctx, s, q, limit, cursor, adjustmentRecord.adjustment)
}
