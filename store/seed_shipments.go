package store

import (
	"cmp"
	"slices"
	"time"
)

// pastShipmentRecords are the records of a past order's shipments as
// CreateShipments and AdvanceShipment leave them: per shipment its
// number, the changes staff made, the shipment and its items.
func (s *Store) pastShipmentRecords(p PastOrder, order Order, shipments []Shipment, listShards int) []any {
	var recs []any
	for n, sh := range shipments {
		// A number as CreateShipments draws it; its item is written
		// without a condition, as every seeded item is.
		sh.Number, sh.OrderNumber = s.shipmentNumbers(), order.Number
		recs = append(recs, newShipmentNumberRecord(sh))
		rec := shipmentRecord{
			PK: orderKey(order.ID), SK: shipmentKey(sh.ID), EntityType: entityShipment, Number: sh.Number, OrderNumber: sh.OrderNumber,
			WarehouseID: sh.WarehouseID, Type: sh.Type, Status: string(sh.Status), Address: sh.ShipTo, Date: timestamp(sh.CreatedAt),
			ShippedAt: stamp(sh.ShippedAt), DeliveredAt: stamp(sh.DeliveredAt),
			GSI1PK: shipmentKey(sh.ID), GSI1SK: shipmentKey(sh.ID), GSI2PK: warehouseKey(sh.WarehouseID), GSI2SK: shipmentKey(sh.ID),
			Version: 1, ShsPK: shipmentsInKey(sh.Status, shardOf(sh.ID, listShards)), ShsSK: createdKey(sh.statusSince(), sh.ID),
		}
		recs = append(recs, pastShipmentChanges(p, order, n, sh, &rec)...)
		recs = append(recs, rec)
		for _, si := range sh.Items {
			recs = append(recs, shipmentItemRecord{
				PK: orderKey(order.ID), SK: shipmentItemKey(si.ID), EntityType: entityShipmentItem,
				Quantity: si.Quantity, ProductName: si.ProductName, Names: si.Names,
				GSI1PK: shipmentKey(sh.ID), GSI1SK: productKey(si.ProductID),
			})
		}
	}
	return recs
}

// pastShipmentChanges are the steps staff took with a past shipment (the
// n-th of its order), each a change as ChangeShipment records it; rec is
// left with the carrier, tracking and version they give it.
func pastShipmentChanges(p PastOrder, order Order, n int, sh Shipment, rec *shipmentRecord) []any {
	var recs []any
	step := func(at time.Time, from, to ShipmentStatus, prevCarrier, prevTracking string, prevShipped time.Time) {
		rec.Version++
		id := NewIDAt(at)
		recs = append(recs, shipmentChangeRecord{
			PK: orderKey(order.ID), SK: shipmentChangeKey(sh.ID, id), EntityType: entityShipmentChange,
			At: timestamp(at), ByID: p.By.ID, ByName: p.By.Buyer().Label(p.By.ID), From: string(from), To: string(to),
			Carrier: rec.Carrier, Tracking: rec.Tracking, Version: rec.Version,
			PrevCarrier: prevCarrier, PrevTracking: prevTracking, PrevShippedAt: stamp(prevShipped),
			ShipmentID: sh.ID, GSI1PK: shipmentKey(sh.ID), GSI1SK: prefixShipChange + id,
		})
	}
	if !sh.ShippedAt.IsZero() {
		rec.Carrier = p.Carrier
		if p.Tracking != nil {
			rec.Tracking = p.Tracking(n)
		}
		step(sh.ShippedAt, ShipmentPending, ShipmentShipped, "", "", time.Time{})
	}
	if !sh.DeliveredAt.IsZero() {
		step(sh.DeliveredAt, ShipmentShipped, ShipmentDelivered, rec.Carrier, rec.Tracking, sh.ShippedAt)
	}
	return recs
}

// pastShipments are a past order's shipments as CreateShipments makes them
// (one per warehouse its lines were allocated to, in warehouse order) and
// AdvanceShipment moves them; none if staff had not made them.
func pastShipments(p PastOrder, orderID string, items []OrderItem) []Shipment {
	if p.ShipmentsAt.IsZero() {
		return nil
	}
	byWarehouse := map[string]*Shipment{}
	for _, it := range items {
		for _, a := range it.Allocations {
			sh, ok := byWarehouse[a.WarehouseID]
			if !ok {
				sh = &Shipment{ID: NewIDAt(p.ShipmentsAt), OrderID: orderID, WarehouseID: a.WarehouseID, Type: p.ShippingType,
					Status: ShipmentPending, ShipTo: p.ShipTo, CreatedAt: p.ShipmentsAt.UTC().Truncate(time.Millisecond)}
				switch {
				case !p.DeliveredAt.IsZero():
					sh.Status, sh.ShippedAt, sh.DeliveredAt = ShipmentDelivered, p.ShippedAt, p.DeliveredAt
				case !p.ShippedAt.IsZero():
					sh.Status, sh.ShippedAt = ShipmentShipped, p.ShippedAt
				}
				byWarehouse[a.WarehouseID] = sh
			}
			sh.Items = append(sh.Items, ShipmentItem{ID: NewIDAt(p.ShipmentsAt), ShipmentID: sh.ID, OrderID: orderID,
				ProductID: it.ProductID, ProductName: it.ProductName, Names: it.Names, Quantity: a.Quantity})
		}
	}
	out := make([]Shipment, 0, len(byWarehouse))
	for _, sh := range byWarehouse {
		out = append(out, *sh)
	}
	slices.SortFunc(out, func(a, b Shipment) int { return cmp.Compare(a.WarehouseID, b.WarehouseID) })
	return out
}
