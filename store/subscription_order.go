package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"
)

// Subscriptions that ship. A product is physical when the shop keeps stock
// of it: it has a stock level in at least one warehouse (even at zero). A
// paid period of a subscription to such a product makes an order to ship,
// written in the receipt's own transaction, so a period paid once is
// shipped once, whatever reruns the payment job makes. The order takes its
// stock like a checkout (conditional decrements); when there is none it
// is placed awaiting stock, nothing taken, listed for staff, who allocate
// it when stock arrives.

// ErrNotAwaitingStock refuses to allocate an order that is not waiting
// for stock (allocated already, perhaps by someone else just now).
var ErrNotAwaitingStock = errors.New("this order is not awaiting stock: it has been allocated already")

// subscriptionOrder is the order a period makes, planned before the
// transaction; its allocation follows the stock as last read.
type subscriptionOrder struct {
	order Order
	item  OrderItem
	stock []StockLevel
}

// allocateFrom allocates the line from levels like a checkout (at most
// MaxLineWarehouses warehouses); short of stock, the order awaits it.
func (so *subscriptionOrder) allocateFrom(levels []StockLevel) {
	so.stock = levels
	out, err := allocateOrder([]allocationLine{{ProductID: so.item.ProductID, ProductName: so.item.ProductName, Quantity: so.item.Quantity, Stock: levels}})
	if err != nil {
		so.awaitStock()
		return
	}
	so.item.Allocations, so.order.Status = out[0], OrderPlaced
}

func (so *subscriptionOrder) awaitStock() {
	so.item.Allocations, so.order.Status = nil, OrderAwaitingStock
}

// planSubscriptionOrder is the order receipt's period makes, if the
// product ships: one Query of the product with its stock, then (only if it
// ships: most subscriptions' products may not) where it ships
// (SubscriptionShipTo: one GetItem of the customer's address book, one
// Query more with an empty book). Its delivery is the receipt's. It carries
// `units`: a whole period's months, or what a new subscriber's first days
// paid for (Proration.Units); none, and nothing is read or shipped (the
// first delivery comes with the first whole period).
func (s *Store) planSubscriptionOrder(ctx context.Context, sub Subscription, receipt Receipt, units int) (subscriptionOrder, bool, error) {
	if units <= 0 {
		return subscriptionOrder{}, false, nil
	}
	_, levels, err := s.ProductWithStock(ctx, sub.ProductID)
	switch {
	case errors.Is(err, ErrNotFound):
		return subscriptionOrder{}, false, nil // the product is gone from the catalogue: nothing to ship
	case err != nil:
		return subscriptionOrder{}, false, fmt.Errorf("plan the order of subscription %s: %w", sub.ID, err)
	case len(levels) == 0:
		return subscriptionOrder{}, false, nil // not a product the shop stocks
	}
	to, err := s.SubscriptionShipTo(ctx, sub.AccountID)
	if err != nil {
		return subscriptionOrder{}, false, fmt.Errorf("the address of subscription %s: %w", sub.ID, err)
	}
	at := receipt.ProcessedAt.UTC().Truncate(time.Millisecond)
	amount, goods := receipt.Amount, receipt.Goods()
	price := sub.MonthlyPrice
	if receipt.FirstDays() {
		// A part of a period: its unit costs what was paid for it.
		price = Money{Amount: goods.Amount / int64(units), Currency: amount.Currency}
	}
	so := subscriptionOrder{
		order: Order{
			ID: NewIDAt(at), Number: s.orderNumbers(), CustomerID: sub.AccountID,
			Buyer: Buyer{Name: to.Name, Email: sub.Email, Lang: sub.Lang}, PlacedAt: at,
			Subtotal: goods, Discount: Money{Currency: amount.Currency}, Shipping: receipt.Shipping, Total: amount, ShipTo: to, Lines: 1,
			SubscriptionID: sub.ID, ReceiptNumber: receipt.Number,
		},
		// One unit for each month paid: a three-month period ships three.
		item: OrderItem{CustomerID: sub.AccountID, ProductID: sub.ProductID, ProductName: sub.ProductName, Names: sub.Names,
			Price: price, Quantity: units, PlacedAt: at},
	}
	so.item.OrderID, so.item.Buyer = so.order.ID, so.order.Buyer
	so.allocateFrom(levels)
	return so, true, nil
}

// periodOrder is how the subscription links the order.
func (so subscriptionOrder) periodOrder(periodStart time.Time) PeriodOrder {
	return PeriodOrder{PeriodStart: periodStart, OrderID: so.order.ID, OrderNumber: so.order.Number}
}

// subscriptionOrderWrites are the order's items in the receipt's
// transaction: the order, its number, its day's totals, its one line and
// its order.placed event if a staff endpoint wants it, and one stock
// decrement per warehouse it takes from (at most MaxLineWarehouses): 4 to
// 9 items.
func (s *Store) subscriptionOrderWrites(so subscriptionOrder, listShards int) ([]types.TransactWriteItem, []itemRole, error) {
	var tx []types.TransactWriteItem
	var roles []itemRole
	notExists, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(attrPK))).Build()
	if err != nil {
		return nil, nil, err
	}
	put := func(rec any, cond bool, role itemRole) error {
		item, err := attributevalue.MarshalMap(rec)
		if err != nil {
			return err
		}
		p := &types.Put{TableName: aws.String(s.table), Item: item}
		if cond {
			p.ConditionExpression, p.ExpressionAttributeNames = notExists.Condition(), notExists.Names()
		}
		tx, roles = append(tx, types.TransactWriteItem{Put: p}), append(roles, role)
		return nil
	}
	rec := newOrderRecord(so.order, []OrderItem{so.item}, listShards)
	rec.DayCounted = true // by the totals' update below
	if err := put(rec, true, itemRole{}); err != nil {
		return nil, nil, err
	}
	totals, err := s.dayTotalsUpdate(so.order, listShards)
	if err != nil {
		return nil, nil, err
	}
	tx, roles = append(tx, totals), append(roles, itemRole{kind: "day-totals"})
	number := orderNumberRecord{PK: orderNumberKey(so.order.Number), SK: orderNumberKey(so.order.Number), EntityType: entityOrderNumber, OrderID: so.order.ID}
	if err := put(number, true, itemRole{kind: "number"}); err != nil {
		return nil, nil, err
	}
	if err := put(newOrderItemRecord(so.item), false, itemRole{}); err != nil {
		return nil, nil, err
	}
	// order.placed, as a checkout's order says it: a fulfilment system
	// listening for orders ships the subscription's too.
	placed, ok, err := s.txShopEvent(EventOrderPlaced, so.order.CustomerID, so.order.PlacedAt, func() any { return eventOrder(so.order, []OrderItem{so.item}) })
	if err != nil {
		return nil, nil, err
	}
	if ok {
		tx, roles = append(tx, placed), append(roles, itemRole{kind: "event"})
	}
	takes, err := s.stockTakes(so.item)
	if err != nil {
		return nil, nil, err
	}
	for range takes {
		roles = append(roles, itemRole{kind: "stock", productID: so.item.ProductID, name: so.item.ProductName, wanted: so.item.Quantity})
	}
	return append(tx, takes...), roles, nil
}

// stockTakes are the decrements of an order line's allocations, each on
// condition the warehouse still holds what it takes.
func (s *Store) stockTakes(it OrderItem) ([]types.TransactWriteItem, error) {
	var tx []types.TransactWriteItem
	for _, a := range it.Allocations {
		w, err := s.txUpdate(productKey(it.ProductID), warehouseKey(a.WarehouseID),
			expression.Set(expression.Name("Quantity"), expression.Name("Quantity").Minus(expression.Value(a.Quantity))),
			expression.Name("Quantity").GreaterThanEqual(expression.Value(a.Quantity)))
		if err != nil {
			return nil, err
		}
		tx = append(tx, w)
	}
	return tx, nil
}

// orderTries is how often a subscription's order is allocated afresh when
// stock moved between its read and its write, before it awaits stock.
const orderTries = 3

// transactWithOrder writes the transaction build makes (the receipt's,
// given the order to link, nil when the product does not ship) with the
// order's items after it. A stock level that ran short meanwhile is read
// again and the order allocated afresh; after orderTries it awaits stock,
// nothing taken, which no stock condition can stop. An order number taken
// already is drawn again. Any other failure is build's to explain: its
// items keep their places in the cancellation reasons.
func (s *Store) transactWithOrder(ctx context.Context, so *subscriptionOrder, build func(*subscriptionOrder) ([]types.TransactWriteItem, error)) error {
	if so == nil {
		base, err := build(nil)
		if err != nil {
			return err
		}
		return s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: base})
	}
	defer s.forgetStock(so.item.ProductID)
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		base, err := build(so)
		if err != nil {
			return err
		}
		items, roles, err := s.subscriptionOrderWrites(*so, shards)
		if err != nil {
			return err
		}
		if len(base)+len(items) > maxTransactItems {
			return ErrOrderTooLarge
		}
		err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: append(base, items...)})
		if err == nil {
			s.markLowAfterTaking(ctx, so.item, so.stock)
			return nil
		}
		reasons := cancellationReasons(err)
		if len(reasons) != len(base)+len(items) || slices.Contains(reasons[:len(base)], reasonConditionFailed) || attempt > orderTries {
			return err
		}
		failed := slices.Index(reasons[len(base):], reasonConditionFailed)
		if failed < 0 {
			return err
		}
		switch roles[failed].kind {
		case "number":
			so.order.Number = s.orderNumbers() // one in hundreds of millions
		case "stock":
			if attempt == orderTries {
				so.awaitStock()
				continue
			}
			levels, err := s.ProductStock(ctx, so.item.ProductID)
			if err != nil {
				return err
			}
			so.allocateFrom(levels)
		default:
			return err
		}
	}
}

// markLowAfterTaking puts the levels an order line took from on or off the
// low-stock list (see markLowAfter); the order stands whatever happens.
func (s *Store) markLowAfterTaking(ctx context.Context, it OrderItem, read []StockLevel) {
	for _, a := range it.Allocations {
		low := true
		if i := slices.IndexFunc(read, func(l StockLevel) bool { return l.WarehouseID == a.WarehouseID }); i >= 0 {
			low = read[i].Quantity-a.Quantity < read[i].LowStockAt()
		}
		if err := s.markLowStock(ctx, it.ProductID, a.WarehouseID, low); err != nil {
			slog.WarnContext(ctx, "low stock not marked; its next change marks it", "product", it.ProductID, "warehouse", a.WarehouseID, "err", err)
		}
	}
}

// OrdersAwaitingStock lists the subscriptions' orders that found no stock,
// oldest first: one Query per list shard of the sparse Attention index,
// merged.
func (s *Store) OrdersAwaitingStock(ctx context.Context, limit int, cursor string) (Page[Order], error) {
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return Page[Order]{}, err
	}
	l := shardedList{id: "awaiting-stock", shards: shards,
		key: func(n int) keyCond { return onAttention.pkEquals(awaitingStockKey(n)) }}
	return mergedPage(ctx, s, l, limit, cursor, orderRecord.order)
}

// AllocateOrder allocates an order awaiting stock now that there is some:
// it reads the order and its lines' stock, allocates like a checkout, and
// one transaction moves the order to placed (onto the to-ship list) on
// condition it is still awaiting stock, records the allocations on its
// lines and takes the stock on condition each warehouse still holds it.
// So an order is allocated once however many staff press at once, and
// stock never goes below zero. Not enough stock is a *StockShortError.
func (s *Store) AllocateOrder(ctx context.Context, orderID string) (Order, error) {
	if !ValidID(orderID) {
		return Order{}, fmt.Errorf("order %q: %w", orderID, ErrNotFound)
	}
	d, err := s.orderDetails(ctx, orderID, true)
	if err != nil {
		return Order{}, err
	}
	if d.Order.Status != OrderAwaitingStock {
		return d.Order, ErrNotAwaitingStock
	}
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return Order{}, err
	}
	touched := make([]string, 0, len(d.Items))
	for _, it := range d.Items {
		touched = append(touched, it.ProductID)
	}
	defer s.forgetStock(touched...)
	for attempt := 1; ; attempt++ {
		lines, stock, err := s.allocationLines(ctx, d.Items)
		if err != nil {
			return Order{}, err
		}
		allocs, err := allocateOrder(lines)
		if err != nil {
			return d.Order, err
		}
		o := d.Order
		o.Status = OrderPlaced
		for i := range d.Items {
			d.Items[i].Allocations = allocs[i]
		}
		tx, err := s.allocationItems(o, d.Items, shards)
		if err != nil {
			return Order{}, err
		}
		err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx})
		reasons := cancellationReasons(err)
		switch {
		case err == nil:
			for i, it := range d.Items {
				s.markLowAfterTaking(ctx, it, stock[i])
			}
			return o, nil
		case len(reasons) > 0 && reasons[0] == reasonConditionFailed:
			return d.Order, ErrNotAwaitingStock
		case slices.Contains(reasons, reasonConditionFailed) && attempt < orderTries:
			continue // a warehouse ran short meanwhile: read the stock again
		case slices.Contains(reasons, reasonConditionFailed):
			return d.Order, fmt.Errorf("stock kept changing while allocating order %s; try again: %w", o.Label(), ErrConflict)
		}
		return Order{}, fmt.Errorf("allocate order %s: %w", o.ID, err)
	}
}

// allocationLines are an order's lines to allocate, each with its
// product's stock as read now (stock: the levels, by line).
func (s *Store) allocationLines(ctx context.Context, items []OrderItem) ([]allocationLine, [][]StockLevel, error) {
	lines := make([]allocationLine, len(items))
	stock := make([][]StockLevel, len(items))
	g, gctx := errgroup.WithContext(ctx)
	for i, it := range items {
		g.Go(func() (err error) {
			stock[i], err = s.ProductStock(gctx, it.ProductID)
			lines[i] = allocationLine{ProductID: it.ProductID, ProductName: it.ProductName, Quantity: it.Quantity, Stock: stock[i]}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	return lines, stock, nil
}

// allocationItems are the writes placing order o with its lines as
// allocated (items): the order onto the to-ship list on condition it
// still awaits stock, each line's allocations, and the stock they take.
func (s *Store) allocationItems(o Order, items []OrderItem, shards int) ([]types.TransactWriteItem, error) {
	move, err := s.txUpdate(orderKey(o.ID), customerKey(o.CustomerID),
		onPackingQueue(expression.Set(expression.Name("Status"), expression.Value(string(OrderPlaced))).
			Set(expression.Name(attrAttnPK), expression.Value(toShipKey(shardOf(o.ID, shards)))).
			Set(expression.Name(attrAttnSK), expression.Value(createdKey(o.PlacedAt, o.ID))), o, items, shards),
		expression.Name("Status").Equal(expression.Value(string(OrderAwaitingStock))))
	if err != nil {
		return nil, err
	}
	tx := []types.TransactWriteItem{move}
	for _, it := range items {
		set, err := s.txUpdate(orderKey(o.ID), orderItemSortKey(it.ProductID, it.DropID),
			expression.Set(expression.Name("Allocations"), expression.Value(it.Allocations)), expression.AttributeExists(expression.Name(attrPK)))
		if err != nil {
			return nil, err
		}
		takes, err := s.stockTakes(it)
		if err != nil {
			return nil, err
		}
		tx = append(append(tx, set), takes...)
	}
	if len(tx) > maxTransactItems {
		return nil, ErrOrderTooLarge
	}
	return tx, nil
}
