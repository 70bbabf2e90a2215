package store_test

import (
	"slices"
	"testing"
	"time"

	"shop/store"
)

// The orders of a product's lines, read by key in batches of 100: each
// order once, in the order of its first line, whatever the batch; a line
// of an order that is not there is left out.
func TestOrdersOfLinesReadsEachOrderOnceInTheLinesOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string][2]int{"p": {1000, 0}, "q": {1000, 0}}, 1000)
	ctx, st := ctxT(t), f.env.Store
	placed := time.Now().Add(-48 * time.Hour).UTC().Truncate(time.Millisecond)
	const n = 130 // more than one batch
	var past []store.PastOrder
	for i := range n {
		number := "FF-" + string([]byte{"23456789ABCDEFGHJKMNPQRSTWXYZ"[i/29%29], "23456789ABCDEFGHJKMNPQRSTWXYZ"[i%29]}) + "2345"
		o := store.PastOrder{Number: number, CustomerID: "cust-1", Buyer: store.Buyer{Name: "Ada", Email: "ada@example.com"},
			PlacedAt: placed.Add(time.Duration(i) * time.Minute), ShipTo: request("", "").ShipTo, Card: f.card,
			Items: []store.OrderItem{{ProductID: "p", ProductName: "Product p", Price: eur(1000), Quantity: 1, Allocations: []store.Allocation{{WarehouseID: "w1", Quantity: 1}}}}}
		if i%10 == 0 { // some orders have a line of q too
			o.Items = append(o.Items, store.OrderItem{ProductID: "q", ProductName: "Product q", Price: eur(1000), Quantity: 1, Allocations: []store.Allocation{{WarehouseID: "w1", Quantity: 1}}})
		}
		past = append(past, o)
	}
	if got, err := st.SeedOrders(ctx, past, nil, nil); err != nil || got != n {
		t.Fatalf("seed: %d, %v", got, err)
	}
	lines := must(st.ProductOrders(ctx, "p", placed.Add(-time.Hour), placed.Add(time.Duration(n)*time.Minute), 200, "")).Items
	if len(lines) != n {
		t.Fatalf("%d lines of p, want %d", len(lines), n)
	}
	// The lines again (an order named twice) and a line of no order.
	asked := append(slices.Clone(lines), lines[0], store.OrderItem{OrderID: "gone", CustomerID: "cust-1"})
	f.env.Counter.Reset()
	orders, err := st.OrdersOfLines(ctx, asked)
	if err != nil {
		t.Fatal(err)
	}
	if ops := f.env.Counter.Ops(); ops["BatchGetItem"] != 2 || f.env.Counter.Total() != 2 {
		t.Errorf("read %d orders with %v, want two BatchGetItem", n, ops)
	}
	if len(orders) != n {
		t.Fatalf("%d orders, want %d, each once", len(orders), n)
	}
	for i, o := range orders {
		if o.ID != lines[i].OrderID || o.Number == "" || o.Total.Amount == 0 {
			t.Fatalf("order %d: %+v, want the order of line %d (%s)", i, o, i, lines[i].OrderID)
		}
	}
}
