package store_test

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"shop/store"
	"shop/store/rules"
)

// stock puts the fixture's product in warehouses: it becomes a product the
// shop stocks, so its subscriptions ship.
func (f billingFixture) stock(t *testing.T, levels map[string]int) {
	t.Helper()
	for w, q := range levels {
		err := f.env.Store.PutStockLevel(ctxT(t), store.StockLevel{ProductID: f.product.ID, ProductName: f.product.Name, WarehouseID: w, WarehouseName: "Warehouse " + w, Quantity: q})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func (f billingFixture) stockLeft(t *testing.T) map[string]int {
	t.Helper()
	levels, err := f.env.Store.ProductStock(ctxT(t), f.product.ID)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, l := range levels {
		out[l.WarehouseID] = l.Quantity
	}
	return out
}

func (f billingFixture) details(t *testing.T, orderID string) store.OrderDetails {
	t.Helper()
	d, err := f.env.Store.OrderDetails(ctxT(t), orderID)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A subscription to a product without stock levels ships nothing: no
// order, as before.
func TestSubscriptionOfAProductNotStockedMakesNoOrder(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 5, 18, 9, 0, 0, 0, time.UTC))
	sub := f.subscribe(t, "cust1", 18, 1)
	if len(sub.Orders) != 0 || f.env.CountEntities(t, "order") != 0 {
		t.Fatalf("orders %v, %d order items: want none", sub.Orders, f.env.CountEntities(t, "order"))
	}
}

// With stock, subscribing places the first period's order in the same
// transaction as its receipt: allocated, stock taken, on the to-ship list,
// linked from the subscription; a quarterly one ships three units.
func TestSubscribingToAStockedProductPlacesAnAllocatedOrder(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 5, 18, 9, 0, 0, 0, time.UTC))
	f.stock(t, map[string]int{"gbg": 10, "sto": 2})
	if _, err := f.env.Store.AddAddress(ctxT(t), "cust1", store.Address{Name: "Ada Lindqvist", Street: "Hamngatan", Number: "1", ZipCode: "41111", City: "Göteborg", Country: "SE"}, true); err != nil {
		t.Fatal(err)
	}
	sub, rec, err := f.pay.Subscribe(ctxT(t), store.SubscribeRequest{
		Key: store.NewID(), CustomerID: "cust1", Email: "cust1@example.com", Product: f.product, PaymentDay: 18, PeriodMonths: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sub.Orders) != 1 || !sub.Orders[0].PeriodStart.Equal(rules.DateOf(f.clock.Now(), time.UTC)) {
		t.Fatalf("subscription's orders %+v, want the first period's", sub.Orders)
	}
	d := f.details(t, sub.Orders[0].OrderID)
	o := d.Order
	if o.Status != store.OrderPlaced || o.SubscriptionID != sub.ID || o.ReceiptNumber != rec.Number || o.Number != sub.Orders[0].OrderNumber {
		t.Fatalf("order %+v", o)
	}
	if o.Total != sub.Amount() || o.ShipTo.City != "Göteborg" || o.Buyer.Name != "Ada Lindqvist" {
		t.Errorf("order total %v to %+v by %+v", o.Total, o.ShipTo, o.Buyer)
	}
	if len(d.Items) != 1 || d.Items[0].Quantity != 3 || len(d.Items[0].Allocations) != 1 || d.Items[0].Allocations[0].WarehouseID != "gbg" {
		t.Fatalf("items %+v", d.Items)
	}
	if left := f.stockLeft(t); left["gbg"] != 7 || left["sto"] != 2 {
		t.Errorf("stock left %v, want gbg 7, sto 2", left)
	}
	if len(d.Invoices) != 0 {
		t.Errorf("a subscription's order has %d invoices: its receipt is its paper", len(d.Invoices))
	}
	toShip, err := f.env.Store.OrdersToShip(ctxT(t), 10, "")
	if err != nil || len(toShip.Items) != 1 || toShip.Items[0].ID != o.ID {
		t.Fatalf("to ship %+v (%v)", toShip.Items, err)
	}
	mine, err := f.env.Store.CustomerOrders(ctxT(t), "cust1", 10, "")
	if err != nil || len(mine.Items) != 1 || !mine.Items[0].FromSubscription() {
		t.Fatalf("customer's orders %+v (%v)", mine.Items, err)
	}
}

// Without stock the order is placed awaiting stock: nothing taken, listed
// for staff; once stock arrives staff allocate it, once.
func TestWithoutStockTheOrderAwaitsStockUntilStaffAllocateIt(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 5, 18, 9, 0, 0, 0, time.UTC))
	f.stock(t, map[string]int{"gbg": 0})
	sub := f.subscribe(t, "cust1", 18, 1)
	id := sub.Orders[0].OrderID
	d := f.details(t, id)
	if d.Order.ShipTo != (store.Address{}) {
		t.Errorf("a customer without addresses or orders: shipped to %+v", d.Order.ShipTo)
	}
	if d.Order.Status != store.OrderAwaitingStock || len(d.Items[0].Allocations) != 0 {
		t.Fatalf("order %s, allocations %v", d.Order.Status, d.Items[0].Allocations)
	}
	if left := f.stockLeft(t); left["gbg"] != 0 {
		t.Fatalf("stock %v", left)
	}
	var waiting store.Page[store.Order]
	var err error
	f.env.Costs(t, "orders awaiting stock", store.DefaultListShards, func() { waiting, err = f.env.Store.OrdersAwaitingStock(ctxT(t), 10, "") })
	if err != nil || len(waiting.Items) != 1 || waiting.Items[0].ID != id {
		t.Fatalf("awaiting stock %+v (%v)", waiting.Items, err)
	}
	if toShip, _ := f.env.Store.OrdersToShip(ctxT(t), 10, ""); len(toShip.Items) != 0 {
		t.Fatalf("an order without stock is on the to-ship list")
	}
	if _, err := f.env.Store.CreateShipments(ctxT(t), id, "Standard"); !errors.Is(err, store.ErrShipmentsExist) {
		t.Fatalf("shipping an order awaiting stock: %v", err)
	}
	var short *store.StockShortError
	if _, err := f.env.Store.AllocateOrder(ctxT(t), id); !errors.As(err, &short) {
		t.Fatalf("allocating without stock: %v", err)
	}
	f.stock(t, map[string]int{"gbg": 4})
	var o store.Order
	// The order's collection, its product's stock, the transaction and the
	// low-stock check of the level it took from.
	f.env.Costs(t, "allocate an order awaiting stock", 4, func() { o, err = f.env.Store.AllocateOrder(ctxT(t), id) })
	if err != nil || o.Status != store.OrderPlaced {
		t.Fatalf("allocate: %v %v", o.Status, err)
	}
	if _, err := f.env.Store.AllocateOrder(ctxT(t), id); !errors.Is(err, store.ErrNotAwaitingStock) {
		t.Fatalf("allocating twice: %v", err)
	}
	d = f.details(t, id)
	if d.Order.Status != store.OrderPlaced || len(d.Items[0].Allocations) != 1 || f.stockLeft(t)["gbg"] != 3 {
		t.Fatalf("after allocating: %s %v, stock %v", d.Order.Status, d.Items[0].Allocations, f.stockLeft(t))
	}
	if waiting, _ := f.env.Store.OrdersAwaitingStock(ctxT(t), 10, ""); len(waiting.Items) != 0 {
		t.Fatalf("still listed awaiting stock: %+v", waiting.Items)
	}
	if _, err := f.env.Store.CreateShipments(ctxT(t), id, "Standard"); err != nil {
		t.Fatalf("ship the allocated order: %v", err)
	}
}

// Many staff allocate many waiting orders at once against too little
// stock: stock never goes below zero, each unit goes to one order, and no
// order is allocated twice.
func TestAllocatingOrdersAwaitingStockRaceNeverOversells(t *testing.T) {
	t.Parallel()
	const orders, units, presses = 12, 5, 3
	f := newBillingFixture(t, time.Date(2026, 5, 18, 9, 0, 0, 0, time.UTC))
	f.stock(t, map[string]int{"gbg": 0, "sto": 0})
	ids := make([]string, orders)
	for i := range ids {
		ids[i] = f.subscribe(t, "cust"+string(rune('a'+i)), 18, 1).Orders[0].OrderID
	}
	f.stock(t, map[string]int{"gbg": 3, "sto": units - 3})
	var (
		mu        sync.Mutex
		allocated = map[string]int{}
		wg        sync.WaitGroup
	)
	for _, id := range ids {
		for range presses {
			wg.Go(func() {
				_, err := f.env.Store.AllocateOrder(ctxT(t), id)
				var short *store.StockShortError
				switch {
				case err == nil:
					mu.Lock()
					allocated[id]++
					mu.Unlock()
				case errors.Is(err, store.ErrNotAwaitingStock), errors.As(err, &short), errors.Is(err, store.ErrConflict):
				default:
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()
	total := 0
	for id, n := range allocated {
		if n != 1 {
			t.Errorf("order %s allocated %d times", id, n)
		}
		total += n
	}
	left := f.stockLeft(t)
	if left["gbg"] < 0 || left["sto"] < 0 || total+left["gbg"]+left["sto"] != units {
		t.Fatalf("allocated %d orders, stock left %v: want %d units in all", total, left, units)
	}
	placed := 0
	for _, id := range ids {
		d := f.details(t, id)
		taken := 0
		for _, a := range d.Items[0].Allocations {
			taken += a.Quantity
		}
		switch d.Order.Status {
		case store.OrderPlaced:
			placed++
			if taken != 1 || allocated[id] != 1 {
				t.Errorf("placed order %s took %d units, allocated %d times", id, taken, allocated[id])
			}
		case store.OrderAwaitingStock:
			if taken != 0 {
				t.Errorf("waiting order %s took %d", id, taken)
			}
		}
	}
	if placed != total || total == 0 {
		t.Fatalf("%d orders placed, %d allocations succeeded", placed, total)
	}
}

// The payment job's write: a period paid places its order with the
// receipt; the same period written again is ErrAlreadyPaid and places no
// second order.
func TestCompletePaymentPlacesThePeriodsOrderOnce(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 5, 18, 9, 0, 0, 0, time.UTC))
	f.stock(t, map[string]int{"gbg": 5})
	if _, err := f.env.Store.AddAddress(ctxT(t), "cust1", store.Address{Name: "Ada Lindqvist", Street: "Hamngatan", Number: "1", ZipCode: "41111", City: "Göteborg", Country: "SE"}, true); err != nil {
		t.Fatal(err)
	}
	sub := f.subscribe(t, "cust1", 18, 1)
	f.clock.Set(time.Date(2026, 6, 18, 7, 0, 0, 0, time.UTC))
	ctx := ctxT(t)
	due, err := f.env.Store.RecordPaymentIntent(ctx, sub)
	if err != nil {
		t.Fatal(err)
	}
	charge, err := f.pay.Renew(ctx, due)
	if err != nil {
		t.Fatal(err)
	}
	f.env.Counter.Reset()
	next, rec, err := f.env.Store.CompletePayment(ctx, due, charge, rules.DateOf(f.clock.Now(), time.UTC), nil)
	if err != nil {
		t.Fatal(err)
	}
	// The product with its stock, the address book, the
	// transaction, and the low-stock check of the level it took from.
	if got := f.env.Counter.Ops(); got["Query"] != 1 || got["GetItem"] != 1 || got["TransactWriteItems"] != 1 || f.env.Counter.Total() > 5 {
		t.Errorf("a paid period with its order cost %v", got)
	}
	if len(next.Orders) != 2 || next.Orders[0].PeriodStart.Format(time.DateOnly) != "2026-06-18" {
		t.Fatalf("orders %+v", next.Orders)
	}
	if d := f.details(t, next.Orders[0].OrderID); d.Order.ReceiptNumber != rec.Number || d.Order.Status != store.OrderPlaced {
		t.Fatalf("order %+v", d.Order)
	}
	if _, _, err := f.env.Store.CompletePayment(ctx, due, charge, rules.DateOf(f.clock.Now(), time.UTC), nil); !errors.Is(err, store.ErrAlreadyPaid) {
		t.Fatalf("the period again: %v", err)
	}
	if n := f.env.CountEntities(t, "order"); n != 2 {
		t.Fatalf("%d orders, want 2 (one a period)", n)
	}
	if left := f.stockLeft(t); left["gbg"] != 3 {
		t.Fatalf("stock %v, want 3", left)
	}
}

// A period's order is announced as a checkout's is, order.placed in the
// receipt's transaction once a staff endpoint wants it: allocated, and
// awaiting stock with that status.
func TestAPeriodsOrderIsAnnouncedPlaced(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 5, 18, 9, 0, 0, 0, time.UTC))
	f.stock(t, map[string]int{"gbg": 1})
	staffHooks(f.env.Store, store.EventOrderPlaced)
	sub := f.subscribe(t, "cust1", 18, 1)
	if n, data := shopEventsOf(t, f.env.Store, "cust1"); n[store.EventOrderPlaced] != 1 || !strings.Contains(string(data[store.EventOrderPlaced]), sub.Orders[0].OrderID) {
		t.Fatalf("after subscribing: events %v, order.placed %s", n, data[store.EventOrderPlaced])
	}
	sub, _ = f.renew(t, sub, sub.NextPaymentDate) // the one unit is gone: this order awaits stock
	events, err := f.env.Store.CustomerWebhookEvents(ctxT(t), "cust1")
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]string{} // order id → status announced
	for _, ce := range events {
		var body struct{ Data store.EventOrder }
		if err := json.Unmarshal(ce.Event.Body, &body); err != nil {
			t.Fatal(err)
		}
		if ce.Event.Type != store.EventOrderPlaced || len(body.Data.Lines) != 1 || body.Data.Lines[0].Quantity != 1 || body.Data.Customer.ID != "cust1" {
			t.Fatalf("event %s: %s", ce.Event.Type, ce.Event.Body)
		}
		status[body.Data.ID] = body.Data.Status
	}
	// The subscription lists its orders newest first.
	if len(sub.Orders) != 2 || len(events) != 2 || status[sub.Orders[1].OrderID] != string(store.OrderPlaced) ||
		status[sub.Orders[0].OrderID] != string(store.OrderAwaitingStock) {
		t.Fatalf("order.placed of the %d orders %+v: %v", len(sub.Orders), sub.Orders, status)
	}
}
