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

	"shop/store/carrier"
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
	byWarehouse := map[string]*Shipment{}
	var order []string
	for _, it := range d.Items {
		for _, a := range it.ToShip() {
			sh, ok := byWarehouse[a.WarehouseID]
			if !ok {
				sh = &Shipment{ID: NewID(), OrderID: orderID, WarehouseID: a.WarehouseID, Type: shippingType,
					Status: ShipmentPending, ShipTo: d.Order.ShipTo, CreatedAt: now}
				byWarehouse[a.WarehouseID] = sh
				sh.Version = 1
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
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return nil, err
	}
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
			Version: 1, ShsPK: shipmentsInKey(ShipmentPending, shardOf(sh.ID, shards)), ShsSK: createdKey(now, sh.ID),
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
	tx = append(tx, statusUpdate)
	if len(tx) > 100 {
		return nil, fmt.Errorf("order %s needs %d writes to ship, more than one transaction takes", orderID, len(tx))
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx})
	if reasons := cancellationReasons(err); reasons != nil && reasons[len(reasons)-1] == reasonConditionFailed {
		// Which of the two conditions failed: only a read tells.
		now, rerr := s.orderDetails(ctx, orderID, true)
		if rerr == nil && now.Order.Status == OrderPlaced && len(now.Shipments) == 0 {
			return nil, ErrRefundedWhileShipping
		}
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

// ChangeShipment moves a shipment one step forward or back on the version
// by saw: shipped with a carrier and tracking number, delivered, or back.
// One transaction writes the shipment (on its version), the change with
// who made it, and the order's status when it follows; the other
// shipments must still stand as read. A version other than the stored one
// is ErrConflict: someone changed it first.
func (s *Store) ChangeShipment(ctx context.Context, orderID, shipmentID string, step ShipmentStep, by Customer) (ShipmentChange, error) {
	d, idx, err := s.shipmentOfOrder(ctx, orderID, shipmentID)
	if err != nil {
		return ShipmentChange{}, err
	}
	sh := d.Shipments[idx]
	if sh.Version != step.Version {
		return ShipmentChange{}, fmt.Errorf("shipment %s is at version %d, not %d: %w", shipmentID, sh.Version, step.Version, ErrConflict)
	}
	from, to := slices.Index(shipmentSteps, sh.Status), slices.Index(shipmentSteps, step.To)
	if from < 0 || to < 0 || (to != from+1 && to != from-1) {
		return ShipmentChange{}, ErrBadTransition
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	next := sh
	next.Status = step.To
	switch step.To {
	case ShipmentShipped:
		if to > from {
			tracking, err := carrier.Check(step.Carrier, step.Tracking)
			if err != nil {
				return ShipmentChange{}, fmt.Errorf("%w: %w", ErrBadTracking, err)
			}
			next.Carrier, next.Tracking, next.ShippedAt = step.Carrier, tracking, now
		}
		next.DeliveredAt = time.Time{}
	case ShipmentDelivered:
		next.DeliveredAt = now
	case ShipmentPending:
		next.Carrier, next.Tracking, next.ShippedAt = "", "", time.Time{}
	}
	ch := ShipmentChange{ID: NewIDAt(now), ShipmentID: shipmentID, At: now, ByID: by.ID, ByName: by.Name,
		From: sh.Status, To: step.To, Carrier: next.Carrier, Tracking: next.Tracking, Version: sh.Version + 1,
		PrevCarrier: sh.Carrier, PrevTracking: sh.Tracking, PrevShippedAt: sh.ShippedAt, PrevDeliveredAt: sh.DeliveredAt}
	var extra []types.TransactWriteItem
	if step.Mail != nil && to > from {
		next.Version = ch.Version
		if m := step.Mail(d.Order, next); m != nil {
			put, err := s.mailPut(*m)
			if err != nil {
				return ShipmentChange{}, err
			}
			extra = append(extra, put)
		}
	}
	return ch, s.writeShipmentChange(ctx, d, idx, next, ch, extra)
}

// UndoShipmentChange puts back what a change replaced (status, carrier,
// tracking, dates) within UndoWindow, if it is still the shipment's last:
// on the version it made, so an undo after a later change is ErrConflict.
// The undo is a change of its own, recorded with who made it; it cannot
// be undone in turn.
func (s *Store) UndoShipmentChange(ctx context.Context, orderID, shipmentID, changeID string, by Customer) (ShipmentChange, error) {
	d, idx, err := s.shipmentOfOrder(ctx, orderID, shipmentID)
	if err != nil {
		return ShipmentChange{}, err
	}
	sh := d.Shipments[idx]
	i := slices.IndexFunc(sh.Changes, func(c ShipmentChange) bool { return c.ID == changeID })
	if i < 0 {
		return ShipmentChange{}, fmt.Errorf("change %s of shipment %s: %w", changeID, shipmentID, ErrNotFound)
	}
	undone := sh.Changes[i]
	now := s.now().UTC().Truncate(time.Millisecond)
	switch {
	case undone.Undoes != "" || undone.UndoneBy != "":
		return ShipmentChange{}, ErrNotUndoable
	case undone.Version != sh.Version:
		return ShipmentChange{}, fmt.Errorf("shipment %s changed after %s: %w", shipmentID, changeID, ErrConflict)
	case now.Sub(undone.At) > UndoWindow:
		return ShipmentChange{}, ErrUndoExpired
	}
	next := sh
	next.Status, next.Carrier, next.Tracking = undone.From, undone.PrevCarrier, undone.PrevTracking
	next.ShippedAt, next.DeliveredAt = undone.PrevShippedAt, undone.PrevDeliveredAt
	ch := ShipmentChange{ID: NewIDAt(now), ShipmentID: shipmentID, At: now, ByID: by.ID, ByName: by.Name,
		From: sh.Status, To: next.Status, Carrier: next.Carrier, Tracking: next.Tracking, Version: sh.Version + 1,
		PrevCarrier: sh.Carrier, PrevTracking: sh.Tracking, PrevShippedAt: sh.ShippedAt, PrevDeliveredAt: sh.DeliveredAt,
		Undoes: undone.ID}
	mark, err := s.txUpdate(orderKey(orderID), shipmentChangeKey(shipmentID, undone.ID),
		expression.Set(expression.Name("UndoneBy"), expression.Value(ch.ID)), expression.AttributeNotExists(expression.Name("UndoneBy")))
	if err != nil {
		return ShipmentChange{}, err
	}
	return ch, s.writeShipmentChange(ctx, d, idx, next, ch, []types.TransactWriteItem{mark})
}

func (s *Store) shipmentOfOrder(ctx context.Context, orderID, shipmentID string) (OrderDetails, int, error) {
	d, err := s.OrderDetails(ctx, orderID)
	if err != nil {
		return d, 0, err
	}
	idx := slices.IndexFunc(d.Shipments, func(sh Shipment) bool { return sh.ID == shipmentID })
	if idx < 0 {
		return d, 0, fmt.Errorf("shipment %s of order %s: %w", shipmentID, orderID, ErrNotFound)
	}
	return d, idx, nil
}

// writeShipmentChange writes next over the shipment d.Shipments[idx] on
// the version read, with the change record, the order's status when it
// follows and extra; every other shipment of the order must still have
// the status read, or two staff changing two shipments at once could
// each leave the order behind.
func (s *Store) writeShipmentChange(ctx context.Context, d OrderDetails, idx int, next Shipment, ch ShipmentChange, extra []types.TransactWriteItem) error {
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return err
	}
	orderID, sh := d.Order.ID, d.Shipments[idx]
	upd := expression.Set(expression.Name("Status"), expression.Value(string(next.Status))).
		Set(expression.Name("Version"), expression.Value(ch.Version)).
		Set(expression.Name(attrShsPK), expression.Value(shipmentsInKey(next.Status, shardOf(sh.ID, shards)))).
		Set(expression.Name(attrShsSK), expression.Value(createdKey(next.statusSince(), sh.ID)))
	for name, v := range map[string]string{"Carrier": next.Carrier, "Tracking": next.Tracking, "ShippedAt": stamp(next.ShippedAt), "DeliveredAt": stamp(next.DeliveredAt)} {
		if v == "" {
			upd = upd.Remove(expression.Name(name))
		} else {
			upd = upd.Set(expression.Name(name), expression.Value(v))
		}
	}
	seen := expression.Name("Version").Equal(expression.Value(sh.Version))
	if sh.Version == 0 {
		seen = expression.AttributeNotExists(expression.Name("Version"))
	}
	write, err := s.txUpdate(orderKey(orderID), shipmentKey(sh.ID), upd, seen.And(expression.Name("Status").Equal(expression.Value(string(sh.Status)))))
	if err != nil {
		return err
	}
	rec, err := attributevalue.MarshalMap(shipmentChangeRecord{
		PK: orderKey(orderID), SK: shipmentChangeKey(sh.ID, ch.ID), EntityType: entityShipmentChange,
		At: timestamp(ch.At), ByID: ch.ByID, ByName: ch.ByName, From: string(ch.From), To: string(ch.To),
		Carrier: ch.Carrier, Tracking: ch.Tracking, Version: ch.Version,
		PrevCarrier: ch.PrevCarrier, PrevTracking: ch.PrevTracking, PrevShippedAt: stamp(ch.PrevShippedAt), PrevDeliveredAt: stamp(ch.PrevDeliveredAt),
		Undoes: ch.Undoes, ShipmentID: sh.ID, GSI1PK: shipmentKey(sh.ID), GSI1SK: prefixShipChange + ch.ID,
	})
	if err != nil {
		return err
	}
	cond, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(attrPK))).Build()
	if err != nil {
		return err
	}
	tx := []types.TransactWriteItem{write, {Put: &types.Put{TableName: aws.String(s.table), Item: rec,
		ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names()}}}
	for i, other := range d.Shipments {
		if i == idx {
			continue
		}
		cond, err := expression.NewBuilder().WithCondition(expression.Name("Status").Equal(expression.Value(string(other.Status)))).Build()
		if err != nil {
			return err
		}
		tx = append(tx, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: aws.String(s.table), Key: itemKey(orderKey(orderID), shipmentKey(other.ID)),
			ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(), ExpressionAttributeValues: cond.Values(),
		}})
	}
	after := slices.Clone(d.Shipments)
	after[idx] = next
	if st := orderStatusOf(after); st != d.Order.Status {
		u, err := s.orderStatusUpdate(ctx, d.Order, st)
		if err != nil {
			return err
		}
		tx = append(tx, u)
	}
	tx = append(tx, extra...)
	if len(tx) > 100 {
		return fmt.Errorf("order %s has too many shipments to change one in a transaction", orderID)
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx})
	if slices.Contains(cancellationReasons(err), reasonConditionFailed) {
		return fmt.Errorf("shipment %s changed meanwhile: %w", sh.ID, ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("change shipment %s: %w", sh.ID, err)
	}
	return nil
}

// stamp is a time as kept, "" for none.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return timestamp(t)
}

// ShipmentsByStatus is a page of the shipments of every warehouse in a
// status: those to pack oldest first (the longest waiting), shipped and
// delivered newest first. The list is sharded like the month's orders, so
// a page is one Query per shard in parallel, merged.
func (s *Store) ShipmentsByStatus(ctx context.Context, status ShipmentStatus, limit int, cursor string) (Page[Shipment], error) {
	if !slices.Contains(shipmentSteps, status) {
		return Page[Shipment]{}, fmt.Errorf("no shipment status %q", status)
	}
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return Page[Shipment]{}, err
	}
	l := shardedList{id: prefixShipmentsIn + string(status), shards: shards, backward: status != ShipmentPending,
		key: func(n int) keyCond { return onShipments.pkEquals(shipmentsInKey(status, n)) }}
	return mergedPage(ctx, s, l, limit, cursor, shipmentRecord.shipment)
}

// listShipments puts the shipments of a table made before the list by
// status into it, once (a marker records it); a new table has none.
func (s *Store) listShipments(ctx context.Context, created bool) error {
	done, err := s.Marked(ctx, shipmentsListed)
	if err != nil || done {
		return err
	}
	if !created {
		n, err := s.listOlderShipments(ctx)
		if err != nil {
			return fmt.Errorf("list shipments by status (listed %d): %w", n, err)
		}
		MigrateLog("shipments listed by status", "table", s.table, "shipments", n)
	}
	if err := s.Mark(ctx, shipmentsListed); err != nil && !errors.Is(err, ErrConflict) {
		return err
	}
	return nil
}

// listOlderShipments gives each shipment without list keys its status's.
// It scans the table, so it runs once per table; each write is on
// condition the keys are still missing, so a rerun after a crash and a
// change made meanwhile are both safe.
func (s *Store) listOlderShipments(ctx context.Context) (int, error) {
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return 0, err
	}
	expr, err := expression.NewBuilder().WithFilter(expression.Name("EntityType").Equal(expression.Value(entityShipment)).
		And(expression.AttributeNotExists(expression.Name(attrShsPK)))).Build()
	if err != nil {
		return 0, err
	}
	scan := dynamodb.NewScanPaginator(s.db, &dynamodb.ScanInput{
		TableName: aws.String(s.table), FilterExpression: expr.Filter(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	listed := 0
	for scan.HasMorePages() {
		out, err := scan.NextPage(ctx)
		if err != nil {
			return listed, fmt.Errorf("scan %s: %w", s.table, err)
		}
		var recs []shipmentRecord
		if err := attributevalue.UnmarshalListOfMaps(out.Items, &recs); err != nil {
			return listed, fmt.Errorf("unmarshal scanned shipments: %w", err)
		}
		for _, r := range recs {
			sh := r.shipment()
			err := s.updateIf(ctx, r.PK, r.SK, expression.Set(expression.Name(attrShsPK), expression.Value(shipmentsInKey(sh.Status, shardOf(sh.ID, shards)))).
				Set(expression.Name(attrShsSK), expression.Value(createdKey(sh.statusSince(), sh.ID))),
				expression.AttributeNotExists(expression.Name(attrShsPK)))
			if err != nil && !isConditionFailed(err) {
				return listed, fmt.Errorf("list shipment %s: %w", sh.ID, err)
			}
			listed++
		}
	}
	return listed, nil
}
