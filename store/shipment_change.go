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
	if step.To == ShipmentShipped && to > from { // dispatched
		next.Version = ch.Version
		event, ok, err := s.txShopEvent(EventOrderShipped, d.Order.CustomerID, now, func() any { return eventShipment(next, d.Order) })
		if err != nil {
			return ShipmentChange{}, err
		}
		if ok {
			extra = append(extra, event)
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
