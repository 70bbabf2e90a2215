package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
)

// Reading orders: an order's item collection or a part of it, an invoice or
// a shipment by id, and the paged lists (access patterns 5 to 16 and the
// staff's orders of a range).

// collection is what a Query of an order's collection (or a part of it)
// read, by entity type, each shipment with its items.
type collection struct {
	orders        []Order
	items         []OrderItem
	invoices      []Invoice
	shipments     []Shipment
	shipmentItems []ShipmentItem
	changes       []ShipmentChange
	returns       []Return
	refunds       []Refund
}

func (s *Store) queryCollection(ctx context.Context, q querySpec) (collection, error) {
	items, err := s.query(ctx, q)
	if err != nil {
		return collection{}, err
	}
	var c collection
	for _, item := range items {
		var head struct{ EntityType string }
		if err := attributevalue.UnmarshalMap(item, &head); err != nil {
			return c, err
		}
		var err error
		switch head.EntityType {
		case entityOrder:
			err = appendItem(&c.orders, item, orderRecord.order)
		case entityOrderItem:
			err = appendItem(&c.items, item, orderItemRecord.item)
		case entityInvoice:
			err = appendItem(&c.invoices, item, invoiceRecord.invoice)
		case entityShipment:
			err = appendItem(&c.shipments, item, shipmentRecord.shipment)
		case entityShipmentItem:
			err = appendItem(&c.shipmentItems, item, shipmentItemRecord.shipmentItem)
		case entityShipmentChange:
			err = appendItem(&c.changes, item, shipmentChangeRecord.change)
		case entityReturn:
			err = appendItem(&c.returns, item, returnRecord.ret)
		case entityRefund:
			err = appendItem(&c.refunds, item, refundRecord.refund)
		}
		if err != nil {
			return c, fmt.Errorf("unmarshal %s: %w", head.EntityType, err)
		}
	}
	for i := range c.shipments {
		for _, si := range c.shipmentItems {
			if si.ShipmentID == c.shipments[i].ID {
				c.shipments[i].Items = append(c.shipments[i].Items, si)
			}
		}
		for _, ch := range c.changes {
			if ch.ShipmentID == c.shipments[i].ID {
				c.shipments[i].Changes = append(c.shipments[i].Changes, ch)
			}
		}
		slices.SortFunc(c.shipments[i].Changes, func(a, b ShipmentChange) int { return cmp.Compare(a.Version, b.Version) })
	}
	slices.SortFunc(c.shipments, func(a, b Shipment) int { return a.CreatedAt.Compare(b.CreatedAt) })
	slices.SortFunc(c.refunds, func(a, b Refund) int { return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.ID, b.ID)) })
	return c, nil
}

// OrderDetails reads an order with its items, invoice, shipments and
// shipment items in one Query (access pattern 5: PK=o#id).
func (s *Store) OrderDetails(ctx context.Context, orderID string) (OrderDetails, error) {
	return s.orderDetails(ctx, orderID, false)
}

func (s *Store) orderDetails(ctx context.Context, orderID string, consistent bool) (OrderDetails, error) {
	c, err := s.queryCollection(ctx, querySpec{key: onTable.pkEquals(orderKey(orderID)), consistent: consistent})
	if err != nil {
		return OrderDetails{}, err
	}
	o, err := firstOf(c.orders, "order "+orderID)
	if err != nil {
		return OrderDetails{}, err
	}
	d := OrderDetails{Order: o, Items: c.items, Invoices: c.invoices, Shipments: c.shipments, Returns: c.returns, Refunds: c.refunds}
	numberReturns(&d)
	return d, nil
}

func (s *Store) orderPart(ctx context.Context, orderID, prefix string) (collection, error) {
	return s.queryCollection(ctx, querySpec{key: onTable.pkAndSKPrefix(orderKey(orderID), prefix)})
}

// OrderItems are the products of an order (access pattern 6).
func (s *Store) OrderItems(ctx context.Context, orderID string) ([]OrderItem, error) {
	c, err := s.orderPart(ctx, orderID, prefixProduct)
	return c.items, err
}

// orderInvoices are the invoices of an order (access pattern 7).
func (s *Store) orderInvoices(ctx context.Context, orderID string) ([]Invoice, error) {
	c, err := s.orderPart(ctx, orderID, prefixInvoice)
	return c.invoices, err
}

// orderShipments are the shipments of an order (access pattern 8). The
// prefix sh# also matches the shipment items (shp#), so each shipment comes
// with its items from the same Query.
func (s *Store) orderShipments(ctx context.Context, orderID string) ([]Shipment, error) {
	c, err := s.orderPart(ctx, orderID, prefixShipment)
	return c.shipments, err
}

// ProductOrders are the order lines of a product placed between two
// instants, inclusive (access pattern 9: GSI1 PK=p#id, SK between the
// timestamps), newest first.
func (s *Store) ProductOrders(ctx context.Context, productID string, from, to time.Time, limit int, cursor string) (Page[OrderItem], error) {
	lo, hi := timeRange(from, to)
	q := querySpec{key: onGSI1.pkAndSKBetween(productKey(productID), lo, hi), backward: true}
	return pagedQuery(ctx, s, q, limit, cursor, orderItemRecord.item)
}

// Invoice reads an invoice with its payments by id (access patterns 10 and
// 11: GSI1 PK=SK=i#id).
func (s *Store) Invoice(ctx context.Context, invoiceID string) (Invoice, error) {
	c, err := s.queryCollection(ctx, querySpec{key: onGSI1.pkAndSKEquals(invoiceKey(invoiceID), invoiceKey(invoiceID))})
	if err != nil {
		return Invoice{}, err
	}
	return firstOf(c.invoices, "invoice "+invoiceID)
}

// Shipment reads a shipment and its items (access pattern 12: GSI1 PK=sh#id).
func (s *Store) Shipment(ctx context.Context, shipmentID string) (Shipment, error) {
	c, err := s.queryCollection(ctx, querySpec{key: onGSI1.pkEquals(shipmentKey(shipmentID))})
	if err != nil {
		return Shipment{}, err
	}
	return firstOf(c.shipments, "shipment "+shipmentID)
}

// WarehouseShipments are the shipments leaving a warehouse (access pattern
// 13: GSI2 PK=w#id, SK begins_with sh#), newest id first.
func (s *Store) WarehouseShipments(ctx context.Context, warehouseID string, limit int, cursor string) (Page[Shipment], error) {
	q := querySpec{key: onGSI2.pkAndSKPrefix(warehouseKey(warehouseID), prefixShipment), backward: true}
	return pagedQuery(ctx, s, q, limit, cursor, shipmentRecord.shipment)
}

// CustomerInvoices are a customer's invoices dated between two instants,
// inclusive (access pattern 15: GSI2 PK=c#id, SK between i#t1 and i#t2~).
func (s *Store) CustomerInvoices(ctx context.Context, customerID string, from, to time.Time, limit int, cursor string) (Page[Invoice], error) {
	lo, hi := datedRange(prefixInvoice, from, to)
	q := querySpec{key: onGSI2.pkAndSKBetween(customerKey(customerID), lo, hi), backward: true}
	return pagedQuery(ctx, s, q, limit, cursor, invoiceRecord.invoice)
}

// CustomerProducts are the order lines a customer ordered between two
// instants, inclusive (access pattern 16: GSI2 PK=c#id, SK between p#t1
// and p#t2~).
func (s *Store) CustomerProducts(ctx context.Context, customerID string, from, to time.Time, limit int, cursor string) (Page[OrderItem], error) {
	lo, hi := datedRange(prefixProduct, from, to)
	q := querySpec{key: onGSI2.pkAndSKBetween(customerKey(customerID), lo, hi), backward: true}
	return pagedQuery(ctx, s, q, limit, cursor, orderItemRecord.item)
}

// CustomerOrders are a customer's orders, newest first (GSI2 PK=c#id, SK
// begins_with o#).
func (s *Store) CustomerOrders(ctx context.Context, customerID string, limit int, cursor string) (Page[Order], error) {
	q := querySpec{key: onGSI2.pkAndSKPrefix(customerKey(customerID), prefixOrder), backward: true}
	return pagedQuery(ctx, s, q, limit, cursor, orderRecord.order)
}

// OrdersBetween are the orders placed between two instants, newest first:
// a month's orders are spread over the table's list shards (GSI1
// PK=orders#YYYY-MM#n, SK between the timestamps), read in parallel and
// merged; months are read from the newest on until the page is full.
// Staff lists and the CSV export read it. Its cursor stands in one month
// of the range and carries each shard's position there; a cursor of
// another list or range is ErrBadCursor.
func (s *Store) OrdersBetween(ctx context.Context, from, to time.Time, limit int, cursor string) (Page[Order], error) {
	limit = max(limit, 1)
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return Page[Order]{}, err
	}
	lo, hi := timeRange(from, to)
	var lists []shardedList
	for _, month := range ordersMonthKeys(from, to) {
		lists = append(lists, shardedList{
			id: month + "|" + lo + "|" + hi, shards: shards, backward: true,
			key: func(n int) keyCond { return onGSI1.pkAndSKBetween(shardKey(month, n), lo, hi) },
		})
	}
	i := 0
	if cursor != "" {
		i = slices.IndexFunc(lists, func(l shardedList) bool { _, err := decodeListsCursor(cursor, l.id); return err == nil })
		if i < 0 {
			return Page[Order]{}, ErrBadCursor
		}
	}
	var page Page[Order]
	for ; i < len(lists); i++ {
		p, err := mergedPage(ctx, s, lists[i], limit-len(page.Items), cursor, orderRecord.order)
		if err != nil {
			return Page[Order]{}, err
		}
		page.Items = append(page.Items, p.Items...)
		if cursor = p.Next; cursor != "" {
			if len(page.Items) >= limit {
				page.Next = cursor
				return page, nil
			}
			i-- // a short page (DynamoDB stopped at its 1 MB): this month again
			continue
		}
		if i+1 < len(lists) && len(page.Items) >= limit {
			// The next month from its top: a cursor of its list at no position.
			page.Next, err = encodeCursor(listsCursor{Query: lists[i+1].id})
			return page, err
		}
	}
	return page, nil
}
