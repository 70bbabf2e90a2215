package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

var (
	ErrShipmentsExist = errors.New("this order's shipments are already created")
	ErrBadTransition  = errors.New("a shipment goes pending, shipped, delivered, in that order")
	ErrNothingToShip  = errors.New("this order has no items allocated to a warehouse")
)

// CreateShipments makes one shipment per warehouse the order was allocated
// to, each with its items, and moves the order to "shipping", in one
// transaction conditioned on the order still being "placed".
func (s *Store) CreateShipments(ctx context.Context, orderID, shippingType string) ([]Shipment, error) {
	d, err := s.OrderDetails(ctx, orderID)
	if err != nil {
		return nil, err
	}
	if len(d.Shipments) > 0 || d.Order.Status != OrderPlaced {
		return nil, ErrShipmentsExist
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	byWarehouse := map[string]*Shipment{}
	var order []string
	for _, it := range d.Items {
		for _, a := range it.Allocations {
			sh, ok := byWarehouse[a.WarehouseID]
			if !ok {
				sh = &Shipment{ID: NewID(), OrderID: orderID, WarehouseID: a.WarehouseID, Type: shippingType,
					Status: ShipmentPending, ShipTo: d.Order.ShipTo, CreatedAt: now}
				byWarehouse[a.WarehouseID] = sh
				order = append(order, a.WarehouseID)
			}
			sh.Items = append(sh.Items, ShipmentItem{ID: NewID(), ShipmentID: sh.ID, OrderID: orderID,
				ProductID: it.ProductID, ProductName: it.ProductName, Quantity: a.Quantity})
		}
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("order %s: %w", orderID, ErrNothingToShip)
	}
	slices.Sort(order)
	var tx []types.TransactWriteItem
	putAll := func(recs ...any) error {
		for _, rec := range recs {
			item, err := attributevalue.MarshalMap(rec)
			if err != nil {
				return err
			}
			tx = append(tx, types.TransactWriteItem{Put: &types.Put{TableName: aws.String(s.table), Item: item}})
		}
		return nil
	}
	var out []Shipment
	for _, w := range order {
		sh := byWarehouse[w]
		if err := putAll(shipmentRecord{
			PK: orderKey(orderID), SK: shipmentKey(sh.ID), EntityType: entityShipment,
			WarehouseID: w, Type: sh.Type, Status: string(sh.Status), Address: sh.ShipTo, Date: timestamp(now),
			GSI1PK: shipmentKey(sh.ID), GSI1SK: shipmentKey(sh.ID), GSI2PK: warehouseKey(w), GSI2SK: shipmentKey(sh.ID),
		}); err != nil {
			return nil, err
		}
		for _, si := range sh.Items {
			if err := putAll(shipmentItemRecord{
				PK: orderKey(orderID), SK: shipmentItemKey(si.ID), EntityType: entityShipmentItem,
				Quantity: si.Quantity, ProductName: si.ProductName,
				GSI1PK: shipmentKey(sh.ID), GSI1SK: productKey(si.ProductID),
			}); err != nil {
				return nil, err
			}
		}
		out = append(out, *sh)
	}
	statusUpdate, err := s.orderStatusUpdate(ctx, d.Order, OrderShipping)
	if err != nil {
		return nil, err
	}
	tx = append(tx, statusUpdate)
	if len(tx) > 100 {
		return nil, fmt.Errorf("order %s needs %d writes to ship, more than one transaction takes", orderID, len(tx))
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx})
	if reasons := cancellationReasons(err); reasons != nil && reasons[len(reasons)-1] == reasonConditionFailed {
		return nil, ErrShipmentsExist
	}
	if err != nil {
		return nil, fmt.Errorf("create shipments: %w", err)
	}
	return out, nil
}

// orderStatusUpdate moves an order from one status to another, on or off
// the to-ship list with it.
func (s *Store) orderStatusUpdate(ctx context.Context, o Order, to OrderStatus) (types.TransactWriteItem, error) {
	upd := expression.Set(expression.Name("Status"), expression.Value(string(to)))
	if waitsToShip(to) {
		shards, err := s.lists.count(ctx, s)
		if err != nil {
			return types.TransactWriteItem{}, err
		}
		upd = upd.Set(expression.Name(attrAttnPK), expression.Value(toShipKey(shardOf(o.ID, shards)))).
			Set(expression.Name(attrAttnSK), expression.Value(createdKey(o.PlacedAt, o.ID)))
	} else {
		upd = upd.Remove(expression.Name(attrAttnPK)).Remove(expression.Name(attrAttnSK))
	}
	return s.txUpdate(orderKey(o.ID), customerKey(o.CustomerID), upd,
		expression.Name("Status").Equal(expression.Value(string(o.Status))))
}

// AdvanceShipment moves a shipment to shipped or delivered, and the order
// with it once every shipment got there: one transaction conditioned on the
// statuses read, so two staff clicking at once cannot skip a step.
func (s *Store) AdvanceShipment(ctx context.Context, orderID, shipmentID string, to ShipmentStatus) error {
	d, err := s.OrderDetails(ctx, orderID)
	if err != nil {
		return err
	}
	idx := slices.IndexFunc(d.Shipments, func(sh Shipment) bool { return sh.ID == shipmentID })
	if idx < 0 {
		return fmt.Errorf("shipment %s of order %s: %w", shipmentID, orderID, ErrNotFound)
	}
	from := d.Shipments[idx].Status
	if !(from == ShipmentPending && to == ShipmentShipped) && !(from == ShipmentShipped && to == ShipmentDelivered) {
		return ErrBadTransition
	}
	now := timestamp(s.now())
	stamp := "ShippedAt"
	if to == ShipmentDelivered {
		stamp = "DeliveredAt"
	}
	expr, err := expression.NewBuilder().
		WithUpdate(expression.Set(expression.Name("Status"), expression.Value(string(to))).Set(expression.Name(stamp), expression.Value(now))).
		WithCondition(expression.Name("Status").Equal(expression.Value(string(from)))).Build()
	if err != nil {
		return err
	}
	tx := []types.TransactWriteItem{{Update: &types.Update{
		TableName: aws.String(s.table), Key: itemKey(orderKey(orderID), shipmentKey(shipmentID)),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}}
	// The other shipments must still be as read: two staff advancing two
	// shipments at once would otherwise each miss the other's step and leave
	// the order behind.
	for i, sh := range d.Shipments {
		if i == idx {
			continue
		}
		cond, err := expression.NewBuilder().WithCondition(expression.Name("Status").Equal(expression.Value(string(sh.Status)))).Build()
		if err != nil {
			return err
		}
		tx = append(tx, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: aws.String(s.table), Key: itemKey(orderKey(orderID), shipmentKey(sh.ID)),
			ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(), ExpressionAttributeValues: cond.Values(),
		}})
	}
	// The order follows its slowest shipment.
	all := true
	for i, sh := range d.Shipments {
		st := sh.Status
		if i == idx {
			st = to
		}
		all = all && (st == to || (to == ShipmentShipped && st == ShipmentDelivered))
	}
	next := d.Order.Status
	switch {
	case all && to == ShipmentShipped:
		next = OrderShipped
	case all && to == ShipmentDelivered:
		next = OrderDelivered
	}
	if next != d.Order.Status {
		u, err := s.orderStatusUpdate(ctx, d.Order, next)
		if err != nil {
			return err
		}
		tx = append(tx, u)
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx})
	if cancellationReasons(err) != nil {
		return fmt.Errorf("shipment changed meanwhile: %w", ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("advance shipment: %w", err)
	}
	return nil
}
