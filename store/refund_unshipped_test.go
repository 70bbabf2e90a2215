package store_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"shop/store"
)

// unshippedOrder places 5 × p, allocated over w1 (2 in stock) and w2 (3),
// paid by card.
func unshippedOrder(t *testing.T, f shopFixture, key string) store.OrderDetails {
	t.Helper()
	req := request(key, "cust-1", store.CheckoutLine{ProductID: "p", Quantity: 5})
	d := f.checkoutInOneTransaction(t, req)
	if len(d.Items) != 1 || len(d.Items[0].Allocations) != 2 {
		t.Fatalf("order of 5 over two warehouses: %+v", d.Items)
	}
	return d
}

// levelsOf is the product's stock per warehouse.
func levelsOf(t *testing.T, f shopFixture, product string) map[string]int {
	t.Helper()
	levels, err := f.env.Store.ProductStock(ctxT(t), product)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, l := range levels {
		out[l.WarehouseID] = l.Quantity
	}
	return out
}

// restockedIn is what the warehouse's adjustment log put back of the
// product, and how many lines.
func restockedIn(t *testing.T, f shopFixture, warehouse, product string) (units, lines int) {
	t.Helper()
	page, err := f.env.Store.StockAdjustments(ctxT(t), warehouse, 100, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range page.Items {
		if a.ProductID == product {
			units += a.Delta
			lines++
		}
	}
	return units, lines
}

// shippedFrom is what the order's shipments carry, per warehouse.
func shippedFrom(d store.OrderDetails) map[string]int {
	out := map[string]int{}
	for _, sh := range d.Shipments {
		for _, si := range sh.Items {
			out[sh.WarehouseID] += si.Quantity
		}
	}
	return out
}

// Staff refund 2 of 5 units of an order not shipped yet, allocated over two
// warehouses: the 2 go back into the last allocation's warehouse (not the
// warehouse the request names), with an adjustment log line, and the
// shipments then carry the 3 left.
func TestRefundOfUnshippedUnitsRestocksWhereAllocated(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string][2]int{"p": {2, 3}}, 1000)
	ctx := ctxT(t)
	d := unshippedOrder(t, f, "place-u")
	allocs := d.Items[0].Allocations
	last := allocs[len(allocs)-1]
	if last.Quantity < 2 {
		t.Fatalf("allocations %v", allocs)
	}
	before := levelsOf(t, f, "p")

	rf, err := f.env.Store.RefundOrder(ctx, store.OrderRefundRequest{OrderID: d.Order.ID, Key: "rf-u", Reason: "Changed their mind",
		RestockWarehouse: allocs[0].WarehouseID, By: refunder, Lines: []store.RefundLine{{ProductID: "p", Quantity: 2}}}, f.pay.Refunds())
	if err != nil {
		t.Fatal(err)
	}
	if !rf.BackWhereAllocated || rf.RestockWarehouse != "" || rf.Amount != eur(2000) {
		t.Fatalf("refund %+v", rf)
	}
	after := levelsOf(t, f, "p")
	for _, a := range allocs {
		want := before[a.WarehouseID]
		if a.WarehouseID == last.WarehouseID {
			want += 2
		}
		if after[a.WarehouseID] != want {
			t.Fatalf("%s holds %d after the refund, want %d (before %v)", a.WarehouseID, after[a.WarehouseID], want, before)
		}
	}
	if units, lines := restockedIn(t, f, last.WarehouseID, "p"); units != 2 || lines != 1 {
		t.Fatalf("%s's log puts back %d units in %d lines", last.WarehouseID, units, lines)
	}
	if units, lines := restockedIn(t, f, allocs[0].WarehouseID, "p"); units != 0 || lines != 0 {
		t.Fatalf("%s's log puts back %d units in %d lines", allocs[0].WarehouseID, units, lines)
	}
	d, err = f.env.Store.OrderDetails(ctx, d.Order.ID)
	if err != nil || d.Order.Status != store.OrderPlaced || len(d.Refunds) != 1 || !d.Refunds[0].BackWhereAllocated {
		t.Fatalf("after the refund: %+v, %+v, %v", d.Order, d.Refunds, err)
	}
	if got, want := fmt.Sprint(d.Items[0].ToShip()), fmt.Sprint([]store.Allocation{allocs[0], {WarehouseID: last.WarehouseID, Quantity: last.Quantity - 2}}); got != want && last.Quantity > 2 {
		t.Fatalf("to ship %s, want %s", got, want)
	}

	shs, err := f.env.Store.CreateShipments(ctx, d.Order.ID, "Standard")
	if err != nil {
		t.Fatal(err)
	}
	shipped := 0
	for _, sh := range shs {
		for _, si := range sh.Items {
			if si.Quantity <= 0 {
				t.Fatalf("shipment %s carries %d", sh.ID, si.Quantity)
			}
			shipped += si.Quantity
		}
	}
	d, err = f.env.Store.OrderDetails(ctx, d.Order.ID)
	if err != nil {
		t.Fatal(err)
	}
	if shipped != 3 || shippedFrom(d)[allocs[0].WarehouseID] != allocs[0].Quantity || shippedFrom(d)[last.WarehouseID] != last.Quantity-2 {
		t.Fatalf("shipments carry %d (%v), want 3", shipped, shippedFrom(d))
	}

	// Shipping now: a refund of a unit is as before, nowhere unless a
	// warehouse is chosen, and not back where allocated.
	rf, err = f.env.Store.RefundOrder(ctx, store.OrderRefundRequest{OrderID: d.Order.ID, Key: "rf-s", Reason: "Broken",
		By: refunder, Lines: []store.RefundLine{{ProductID: "p", Quantity: 1}}}, f.pay.Refunds())
	if err != nil || rf.BackWhereAllocated {
		t.Fatalf("refund of a shipping order: %+v, %v", rf, err)
	}
	if got := levelsOf(t, f, "p"); fmt.Sprint(got) != fmt.Sprint(after) {
		t.Fatalf("a refund of a shipping order without a warehouse restocked: %v, was %v", got, after)
	}
	// A form made while the order was placed is refused now it ships.
	_, err = f.env.Store.RefundOrder(ctx, store.OrderRefundRequest{OrderID: d.Order.ID, Key: "rf-late", Reason: "Broken", SawPlaced: true,
		By: refunder, Lines: []store.RefundLine{{ProductID: "p", Quantity: 1}}}, f.pay.Refunds())
	if !errors.Is(err, store.ErrShippingStarted) {
		t.Fatalf("a refund seen while placed, sent while shipping: %v", err)
	}
}

// A line fully refunded while the order is placed gets no shipment item,
// and a warehouse left with nothing to ship gets no shipment.
func TestCreateShipmentsLeavesOutRefundedLines(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string][2]int{"p": {5, 0}, "q": {0, 5}}, 1000)
	ctx := ctxT(t)
	req := request("place-l", "cust-1", store.CheckoutLine{ProductID: "p", Quantity: 2}, store.CheckoutLine{ProductID: "q", Quantity: 1})
	d := f.checkoutInOneTransaction(t, req)
	if _, err := f.env.Store.RefundOrder(ctx, store.OrderRefundRequest{OrderID: d.Order.ID, Key: "rf-q", Reason: "Out of fashion",
		By: refunder, Lines: []store.RefundLine{{ProductID: "q", Quantity: 1}}}, f.pay.Refunds()); err != nil {
		t.Fatal(err)
	}
	if got := levelsOf(t, f, "q"); got["w2"] != 5 {
		t.Fatalf("q back in stock: %v", got)
	}
	shs, err := f.env.Store.CreateShipments(ctx, d.Order.ID, "Standard")
	if err != nil {
		t.Fatal(err)
	}
	if len(shs) != 1 || shs[0].WarehouseID != "w1" || len(shs[0].Items) != 1 || shs[0].Items[0].ProductID != "p" || shs[0].Items[0].Quantity != 2 {
		t.Fatalf("shipments %+v", shs)
	}
}

// Staff refund units of a placed order one at a time while others create
// its shipments: every unit bought is shipped or back in stock where it
// was allocated, never both and never neither; the adjustment logs and the
// refunds' records say the same.
//
// Not parallel: beside other tests' writes, DynamoDB Local times out
// the lock waits of a race like this one.
func TestRefundOfUnshippedUnitsRacesShipping(t *testing.T) {
	f := newFixture(t, map[string][2]int{"p": {4, 4}}, 1000)
	ctx := ctxT(t)
	const refunders, shippers = 6, 3
	for round := range 3 {
		// 8 units over two warehouses of 4 each: both allocated in full.
		for _, w := range []string{"w1", "w2"} {
			if err := f.env.Store.PutStockLevel(ctx, store.StockLevel{ProductID: "p", ProductName: "Product p", WarehouseID: w, WarehouseName: "Warehouse " + w, Quantity: 4}); err != nil {
				t.Fatal(err)
			}
		}
		req := request(fmt.Sprintf("place-%d", round), "cust-1", store.CheckoutLine{ProductID: "p", Quantity: 8})
		d := f.checkoutInOneTransaction(t, req)
		bought := d.Items[0].Quantity
		placed := levelsOf(t, f, "p")
		logged := map[string]int{}
		for _, w := range []string{"w1", "w2"} {
			logged[w], _ = restockedIn(t, f, w, "p")
		}

		var wg sync.WaitGroup
		start := make(chan struct{})
		refundErrs, shipErrs := make([]error, refunders), make([]error, shippers)
		for i := range refunders {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, refundErrs[i] = f.env.Store.RefundOrder(ctx, store.OrderRefundRequest{OrderID: d.Order.ID, Key: fmt.Sprintf("r%d-%d", round, i),
					Reason: "Race", By: refunder, SawPlaced: i%2 == 0, Lines: []store.RefundLine{{ProductID: "p", Quantity: 1}}}, f.pay.Refunds())
			}()
		}
		for i := range shippers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				// Later each round, so that refunds land first in some.
				time.Sleep([]time.Duration{0, 300 * time.Millisecond, 1500 * time.Millisecond}[round])
				_, shipErrs[i] = f.env.Store.CreateShipments(ctx, d.Order.ID, "Standard")
			}()
		}
		began := time.Now()
		close(start)
		wg.Wait()
		t.Logf("round %d took %v", round, time.Since(began))
		for _, err := range refundErrs {
			if err != nil && !errors.Is(err, store.ErrShippingStarted) && !errors.Is(err, store.ErrConflict) {
				t.Fatalf("round %d: refund: %v", round, err)
			}
		}
		shipped := 0
		for _, err := range shipErrs {
			switch {
			case err == nil:
				shipped++
			case errors.Is(err, store.ErrShipmentsExist), errors.Is(err, store.ErrRefundedWhileShipping):
			default:
				t.Fatalf("round %d: create shipments: %v", round, err)
			}
		}
		if shipped > 1 {
			t.Fatalf("round %d: shipments created %d times", round, shipped)
		}
		if shipped == 0 {
			// Every try lost to a refund: what is left ships now.
			if _, err := f.env.Store.CreateShipments(ctx, d.Order.ID, "Standard"); err != nil {
				t.Fatalf("round %d: shipping after the race: %v", round, err)
			}
		}

		d, err := f.env.Store.OrderDetails(ctx, d.Order.ID)
		if err != nil {
			t.Fatal(err)
		}
		now, out := levelsOf(t, f, "p"), shippedFrom(d)
		restockedByRefunds := 0
		for _, r := range d.Refunds {
			if r.BackWhereAllocated {
				for _, l := range r.Lines {
					restockedByRefunds += l.Quantity
				}
			}
		}
		restocked := 0
		for _, a := range d.Items[0].Allocations {
			w := a.WarehouseID
			back := now[w] - placed[w]
			units, _ := restockedIn(t, f, w, "p")
			if back+out[w] != a.Quantity || units-logged[w] != back {
				t.Fatalf("round %d: %s: %d allocated, %d shipped, %d back in stock, %d logged", round, w, a.Quantity, out[w], back, units-logged[w])
			}
			restocked += back
		}
		total := 0
		for _, n := range out {
			total += n
		}
		if total+restocked != bought || restocked != restockedByRefunds || d.Items[0].Refunded < restocked {
			t.Fatalf("round %d: bought %d, shipped %d, restocked %d (refunds say %d), refunded %d", round, bought, total, restocked, restockedByRefunds, d.Items[0].Refunded)
		}
		t.Logf("round %d: %d shipped, %d back in stock, %d refunded", round, total, restocked, d.Items[0].Refunded)
	}
}
