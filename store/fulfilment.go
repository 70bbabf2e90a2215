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
	// ErrNotPaid: the order awaits its card payment, or expired unpaid;
	// nothing of it ships.
	ErrNotPaid       = errors.New("this order is not paid: it awaits its card payment or expired unpaid")
	ErrBadTransition = errors.New("a shipment goes pending, shipped, delivered, one step at a time, forward or back")
	ErrNothingToShip = errors.New("this order has no items allocated to a warehouse")
	// ErrRefundedWhileShipping: units were refunded between the read and
	// the write of the shipments; what is left to ship is to be seen again.
	ErrRefundedWhileShipping = errors.New("units of this order were refunded while its shipments were made; look at it again")
)

// CreateShipments makes one shipment per warehouse the order was allocated
// to, each with what is still to ship of its lines (OrderItem.ToShip: a
// refunded unit is not shipped; a warehouse left with nothing gets no
// shipment), and moves the order to "shipping", in one transaction
// conditioned on the order still being "placed" with the refunds of units
// read: a refund landing between the read and the write fails it
// (ErrRefundedWhileShipping), so no unit is both restocked and shipped.
// Each shipment takes a number of its own in the same transaction, on
// condition it is free; a number taken meanwhile is drawn again.
func (s *Store) CreateShipments(ctx context.Context, orderID, shippingType string) ([]Shipment, error) {
	d, err := s.OrderDetails(ctx, orderID)
	if err != nil {
		return nil, err
	}
	if st := d.Order.Status; st == OrderAwaitingPayment || st == OrderExpired {
		return nil, ErrNotPaid
	}
	if len(d.Shipments) > 0 || d.Order.Status != OrderPlaced {
		return nil, ErrShipmentsExist
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	shipments := shipmentsOf(d, shippingType, now)
	if len(shipments) == 0 {
		return nil, fmt.Errorf("order %s: %w", orderID, ErrNothingToShip)
	}
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return nil, err
	}
	upd, cond, err := s.orderStatusChange(ctx, d.Order, OrderShipping)
	if err != nil {
		return nil, err
	}
	refunds := expression.Name("UnitRefunds").Equal(expression.Value(d.Order.unitRefunds))
	if d.Order.unitRefunds == 0 {
		refunds = expression.AttributeNotExists(expression.Name("UnitRefunds")).Or(refunds)
	}
	statusUpdate, err := s.txUpdate(orderKey(orderID), customerKey(d.Order.CustomerID), upd, cond.And(refunds))
	if err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		s.numberShipments(shipments)
		tx, numbers, err := s.shipmentPuts(shipments, now, shards)
		if err != nil {
			return nil, err
		}
		tx = append(tx, statusUpdate)
		if len(tx) > maxTransactItems {
			return nil, fmt.Errorf("order %s needs %d writes to ship, more than one transaction takes", orderID, len(tx))
		}
		err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx})
		reasons := cancellationReasons(err)
		if reasons != nil && reasons[len(reasons)-1] == reasonConditionFailed {
			// Which of the two conditions failed: only a read tells.
			now, rerr := s.orderDetails(ctx, orderID, true)
			if rerr == nil && now.Order.Status == OrderPlaced && len(now.Shipments) == 0 {
				return nil, ErrRefundedWhileShipping
			}
			return nil, ErrShipmentsExist
		}
		if reasons != nil && attempt < 5 && slices.ContainsFunc(numbers, func(i int) bool { return reasons[i] == reasonConditionFailed }) {
			continue // a number taken meanwhile: drawn again
		}
		if err != nil {
			return nil, fmt.Errorf("create shipments: %w", err)
		}
		out := make([]Shipment, len(shipments))
		for i, sh := range shipments {
			out[i] = *sh
		}
		return out, nil
	}
}

// shipmentsOf are the shipments of what is still to ship of an order, one
// per warehouse, in the warehouses' order, not numbered yet.
func shipmentsOf(d OrderDetails, shippingType string, now time.Time) []*Shipment {
	byWarehouse := map[string]*Shipment{}
	var ws []string
	for _, it := range d.Items {
		for _, a := range it.ToShip() {
			sh, ok := byWarehouse[a.WarehouseID]
			if !ok {
				sh = &Shipment{ID: NewID(), OrderID: d.Order.ID, OrderNumber: d.Order.Number, WarehouseID: a.WarehouseID,
					Type: shippingType, Status: ShipmentPending, ShipTo: d.Order.ShipTo, CreatedAt: now, Version: 1}
				byWarehouse[a.WarehouseID] = sh
				ws = append(ws, a.WarehouseID)
			}
			sh.Items = append(sh.Items, ShipmentItem{ID: NewID(), ShipmentID: sh.ID, OrderID: d.Order.ID,
				ProductID: it.ProductID, ProductName: it.ProductName, Names: it.Names, Quantity: a.Quantity})
		}
	}
	slices.Sort(ws)
	out := make([]*Shipment, len(ws))
	for i, w := range ws {
		out[i] = byWarehouse[w]
	}
	return out
}

// shipmentPuts are the puts of new shipments, their items and their
// numbers' items, and where in them the numbers' items are.
func (s *Store) shipmentPuts(shipments []*Shipment, now time.Time, shards int) ([]types.TransactWriteItem, []int, error) {
	var tx []types.TransactWriteItem
	var numbers []int
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
	for _, sh := range shipments {
		if err := putAll(shipmentRecord{
			PK: orderKey(sh.OrderID), SK: shipmentKey(sh.ID), EntityType: entityShipment, Number: sh.Number, OrderNumber: sh.OrderNumber,
			WarehouseID: sh.WarehouseID, Type: sh.Type, Status: string(sh.Status), Address: sh.ShipTo, Date: timestamp(now),
			GSI1PK: shipmentKey(sh.ID), GSI1SK: shipmentKey(sh.ID), GSI2PK: warehouseKey(sh.WarehouseID), GSI2SK: shipmentKey(sh.ID),
			Version: 1, ShsPK: shipmentsInKey(ShipmentPending, shardOf(sh.ID, shards)), ShsSK: createdKey(now, sh.ID),
		}); err != nil {
			return nil, nil, err
		}
		for _, si := range sh.Items {
			if err := putAll(shipmentItemRecord{
				PK: orderKey(sh.OrderID), SK: shipmentItemKey(si.ID), EntityType: entityShipmentItem,
				Quantity: si.Quantity, ProductName: si.ProductName, Names: si.Names,
				GSI1PK: shipmentKey(sh.ID), GSI1SK: productKey(si.ProductID),
			}); err != nil {
				return nil, nil, err
			}
		}
		number, err := s.shipmentNumberPut(*sh)
		if err != nil {
			return nil, nil, err
		}
		numbers = append(numbers, len(tx))
		tx = append(tx, number)
	}
	return tx, numbers, nil
}

// orderStatusUpdate moves an order from one status to another, on or off
// the to-ship list with it (and off the packing queue once not placed).
func (s *Store) orderStatusUpdate(ctx context.Context, o Order, to OrderStatus) (types.TransactWriteItem, error) {
	upd, cond, err := s.orderStatusChange(ctx, o, to)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return s.txUpdate(orderKey(o.ID), customerKey(o.CustomerID), upd, cond)
}

// orderStatusChange is orderStatusUpdate's update and condition, for a
// caller that adds conditions of its own.
func (s *Store) orderStatusChange(ctx context.Context, o Order, to OrderStatus) (expression.UpdateBuilder, expression.ConditionBuilder, error) {
	upd := expression.Set(expression.Name("Status"), expression.Value(string(to)))
	if waitsToShip(to) {
		shards, err := s.lists.count(ctx, s)
		if err != nil {
			return upd, expression.ConditionBuilder{}, err
		}
		upd = upd.Set(expression.Name(attrAttnPK), expression.Value(toShipKey(shardOf(o.ID, shards)))).
			Set(expression.Name(attrAttnSK), expression.Value(createdKey(o.PlacedAt, o.ID)))
	} else {
		upd = upd.Remove(expression.Name(attrAttnPK)).Remove(expression.Name(attrAttnSK))
	}
	if to != OrderPlaced {
		upd = offPackingQueue(upd) // packed, or its order ends
	}
	return upd, expression.Name("Status").Equal(expression.Value(string(o.Status))), nil
}

// UndoWindow is how long after a shipment change its maker, or other
// staff, can undo it.
const UndoWindow = 10 * time.Minute

var (
	ErrBadTracking = errors.New("the carrier or tracking number is not right")
	ErrUndoExpired = errors.New("a change can be undone for 10 minutes only")
	ErrNotUndoable = errors.New("only the shipment's last change, not an undo, can be undone")
)

// ShipmentStep is a change staff ask of a shipment: one step forward
// (pending, shipped, delivered) or back, on the version they saw.
type ShipmentStep struct {
	To ShipmentStatus
	// Carrier and Tracking are required to ship (package carrier checks
	// them); a step back to pending drops them.
	Carrier, Tracking string
	// Version is the shipment's version the staff member saw.
	Version int
	// Mail, if set, is the customer's mail of a step forward (shipped,
	// delivered), given the order and the shipment as it will be; written
	// in the change's transaction, so a change is mailed once. nil: none.
	Mail func(Order, Shipment) *Mail
}

// ShipmentChange is one change of a shipment's status: who made it, when,
// and what it replaced, so that it can be undone.
type ShipmentChange struct {
	ID, ShipmentID string
	At             time.Time
	ByID, ByName   string
	From, To       ShipmentStatus
	// Carrier and Tracking are the shipment's after the change.
	Carrier, Tracking string
	// Version is the shipment's version the change made.
	Version int
	// What it replaced, which an undo puts back.
	PrevCarrier, PrevTracking      string
	PrevShippedAt, PrevDeliveredAt time.Time
	// Undoes is the change this one undid ("" for a step); UndoneBy the
	// change that undid this one.
	Undoes, UndoneBy string
}

// LastChange is the change an undo would take back: the shipment's last,
// if it is no undo itself, was not undone, and is younger than UndoWindow
// at now.
func (sh Shipment) LastChange(now time.Time) (ShipmentChange, bool) {
	if len(sh.Changes) == 0 {
		return ShipmentChange{}, false
	}
	ch := sh.Changes[len(sh.Changes)-1]
	ok := ch.Version == sh.Version && ch.Undoes == "" && ch.UndoneBy == "" && now.Sub(ch.At) <= UndoWindow
	return ch, ok
}

type shipmentChangeRecord struct {
	PK              string `dynamodbav:"PK"` // o#order
	SK              string `dynamodbav:"SK"` // shev#shipment#change
	EntityType      string `dynamodbav:"EntityType"`
	At              string `dynamodbav:"At"`
	ByID            string `dynamodbav:"ByID"`
	ByName          string `dynamodbav:"ByName"`
	From            string `dynamodbav:"From"`
	To              string `dynamodbav:"To"`
	Carrier         string `dynamodbav:"Carrier,omitempty"`
	Tracking        string `dynamodbav:"Tracking,omitempty"`
	Version         int    `dynamodbav:"Version"`
	PrevCarrier     string `dynamodbav:"PrevCarrier,omitempty"`
	PrevTracking    string `dynamodbav:"PrevTracking,omitempty"`
	PrevShippedAt   string `dynamodbav:"PrevShippedAt,omitempty"`
	PrevDeliveredAt string `dynamodbav:"PrevDeliveredAt,omitempty"`
	Undoes          string `dynamodbav:"Undoes,omitempty"`
	UndoneBy        string `dynamodbav:"UndoneBy,omitempty"`
	ShipmentID      string `dynamodbav:"ShipmentID"`
	GSI1PK          string `dynamodbav:"GSI1-PK"` // sh#shipment: the shipment's read carries its changes
	GSI1SK          string `dynamodbav:"GSI1-SK"` // shev#change
}

func (r shipmentChangeRecord) change() ShipmentChange {
	return ShipmentChange{
		ID: trimPrefix(r.GSI1SK, prefixShipChange), ShipmentID: r.ShipmentID, At: parseTime(r.At),
		ByID: r.ByID, ByName: r.ByName, From: ShipmentStatus(r.From), To: ShipmentStatus(r.To),
		Carrier: r.Carrier, Tracking: r.Tracking, Version: r.Version,
		PrevCarrier: r.PrevCarrier, PrevTracking: r.PrevTracking,
		PrevShippedAt: parseTime(r.PrevShippedAt), PrevDeliveredAt: parseTime(r.PrevDeliveredAt),
		Undoes: r.Undoes, UndoneBy: r.UndoneBy,
	}
}

// shipmentSteps are the statuses in order; a change moves one place.
var shipmentSteps = []ShipmentStatus{ShipmentPending, ShipmentShipped, ShipmentDelivered}

// statusSince is when the shipment reached its status: the list's sort key.
func (sh Shipment) statusSince() time.Time {
	switch {
	case sh.Status == ShipmentDelivered && !sh.DeliveredAt.IsZero():
		return sh.DeliveredAt
	case sh.Status != ShipmentPending && !sh.ShippedAt.IsZero():
		return sh.ShippedAt
	}
	return sh.CreatedAt
}

// orderStatusOf is where an order with shipments stands: it follows its
// slowest shipment.
func orderStatusOf(shipments []Shipment) OrderStatus {
	least := len(shipmentSteps)
	for _, sh := range shipments {
		least = min(least, max(slices.Index(shipmentSteps, sh.Status), 0))
	}
	switch least {
	case 1:
		return OrderShipped
	case 2:
		return OrderDelivered
	}
	return OrderShipping
}
