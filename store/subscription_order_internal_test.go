package store

import (
	"fmt"
	"testing"
	"time"
)

// The largest order a paid period can make: six months of a product
// spread thinly over eight warehouses, so it leaves from as many as a line
// may. The receipt's transaction (receipt, period marker, subscription,
// mail; or at subscribe the key instead of the mail) grows by the order,
// its number, its day's totals, its line and a decrement per warehouse: 4
// + 8 = 12 of DynamoDB's 100.
func TestASubscriptionsOrderKeepsTheReceiptsTransactionSmall(t *testing.T) {
	var levels []StockLevel
	for w, q := range []int{2, 2, 1, 1, 1, 1, 1, 1} {
		levels = append(levels, StockLevel{ProductID: "beans", WarehouseID: fmt.Sprintf("w%d", w+1), Quantity: q})
	}
	now := time.Now().UTC()
	so := subscriptionOrder{
		order: Order{ID: "o1", Number: "FF-7K3Q92", CustomerID: "c1", PlacedAt: now, Total: Money{Amount: 7794, Currency: "EUR"}, SubscriptionID: "s1"},
		item:  OrderItem{OrderID: "o1", CustomerID: "c1", ProductID: "beans", ProductName: "Beans", Price: Money{Amount: 1299, Currency: "EUR"}, Quantity: 6, PlacedAt: now},
	}
	so.allocateFrom(levels)
	if so.order.Status != OrderPlaced || len(so.item.Allocations) != MaxLineWarehouses {
		t.Fatalf("status %s, allocations %v", so.order.Status, so.item.Allocations)
	}
	s := &Store{table: "t", loc: time.UTC, orderNumbers: func() string { return "FF-7K3Q92" }}
	tx, roles, err := s.subscriptionOrderWrites(so, DefaultListShards)
	if err != nil {
		t.Fatal(err)
	}
	const receiptItems = 4
	if len(tx) != 4+MaxLineWarehouses || len(roles) != len(tx) || receiptItems+len(tx) != 12 {
		t.Fatalf("the order adds %d items (%d roles), want %d", len(tx), len(roles), 4+MaxLineWarehouses)
	}
	so.awaitStock()
	tx, _, err = s.subscriptionOrderWrites(so, DefaultListShards)
	if err != nil || len(tx) != 4 {
		t.Fatalf("awaiting stock the order adds %d items (%v), want 4: nothing taken", len(tx), err)
	}
}
