package jobs_test

import (
	"testing"
	"time"

	"shop/store"
)

// A product drop that reaches its deadline unattended is closed by the
// reconcile step, which gives its unclaimed units back to stock; a drop
// still running, or one without a product, is left alone.
func TestCloseEndedDropsReturnsUnclaimedStock(t *testing.T) {
	t.Parallel()
	b := newBilling(t, "2026-06-01")
	ctx := ctxT(t)
	st := b.env.Store
	if err := st.PutWarehouse(ctx, store.Warehouse{ID: "w1", Name: "Warehouse 1", Address: store.Address{City: "Göteborg"}}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutProduct(ctx, store.Product{ID: "tea", Name: "Tea", Category: "c", Price: eur(2000)}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutStockLevel(ctx, store.StockLevel{ProductID: "tea", ProductName: "Tea", WarehouseID: "w1", WarehouseName: "Warehouse 1", Quantity: 10}); err != nil {
		t.Fatal(err)
	}
	now := b.clock.Now()
	ending, err := st.CreateDrop(ctx, store.NewDrop{Title: "Tea drop", Quantity: 6, Opens: now, Closes: now.Add(time.Hour), Published: true,
		ProductID: "tea", Price: eur(1500), RedeemWithin: store.DefaultRedeemWithin})
	if err != nil {
		t.Fatal(err)
	}
	running, err := st.CreateDrop(ctx, store.NewDrop{Title: "Later tea", Quantity: 2, Opens: now, Closes: now.Add(48 * time.Hour), Published: true,
		ProductID: "tea", Price: eur(1500), RedeemWithin: store.DefaultRedeemWithin})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateDrop(ctx, store.NewDrop{Title: "Seats", Quantity: 5, Opens: now, Closes: now.Add(time.Hour), Published: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Claim(ctx, store.ClaimRequest{DropID: ending.ID, Client: "ada", CustomerID: "ada"}, false); err != nil {
		t.Fatal(err)
	}
	stock := func() int {
		t.Helper()
		levels, err := st.ProductStock(ctx, "tea")
		if err != nil || len(levels) != 1 {
			t.Fatalf("stock: %+v, %v", levels, err)
		}
		return levels[0].Quantity
	}
	if got := stock(); got != 2 {
		t.Fatalf("stock after setting 8 aside: %d", got)
	}
	r := b.runner("r")
	if n, err := r.CloseEndedDrops(ctx); err != nil || n != 0 {
		t.Fatalf("before the deadline: closed %d, %v", n, err)
	}
	b.clock.Set(now.Add(2 * time.Hour))
	if n, err := r.CloseEndedDrops(ctx); err != nil || n != 1 {
		t.Fatalf("after the deadline: closed %d, %v", n, err)
	}
	if got := stock(); got != 7 { // 5 unclaimed back; Ada's unit and the running drop's 2 stay aside
		t.Fatalf("stock after closing: %d, want 7", got)
	}
	if d, err := st.DropConsistent(ctx, running.ID); err != nil || d.Status != store.DropOpen {
		t.Fatalf("the running drop: %+v, %v", d.Status, err)
	}
	if n, err := r.CloseEndedDrops(ctx); err != nil || n != 0 {
		t.Fatalf("a second pass closed %d, %v", n, err)
	}
}
