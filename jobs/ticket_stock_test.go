package jobs_test

import (
	"testing"
	"time"

	"shop/jobs"
	"shop/store"
)

// The ticket stock job gives back the units of a product drop's tickets
// that expired unused: a run before their time finds none due, a run after
// returns each once and counts it, and its lease is given back after each
// run so the day's next tick runs again (and finds nothing left).
func TestTicketStockJobReturnsExpiredUnits(t *testing.T) {
	t.Parallel()
	b := newBilling(t, "2026-05-18")
	ctx, st := ctxT(t), b.env.Store
	if err := st.PutWarehouse(ctx, store.Warehouse{ID: "w1", Name: "Main", Address: store.Address{City: "Boras"}}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutProduct(ctx, store.Product{ID: "tea", Name: "Tea", Category: "c", Price: eur(2000)}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutStockLevel(ctx, store.StockLevel{ProductID: "tea", ProductName: "Tea", WarehouseID: "w1", WarehouseName: "Main", Quantity: 5}); err != nil {
		t.Fatal(err)
	}
	now := b.clock.Now()
	d, err := st.CreateDrop(ctx, store.NewDrop{Title: "Tea drop", Quantity: 3, Opens: now, Closes: now.Add(time.Hour),
		Published: true, ProductID: "tea", Price: eur(1500), RedeemWithin: 2 * time.Hour, StaffID: "staff-1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{"ada", "bob"} {
		if _, err := st.Claim(ctx, store.ClaimRequest{DropID: d.ID, Client: who, CustomerID: who, DropTitle: d.Title,
			RedeemWithin: d.TicketRedeemWithin()}, false); err != nil {
			t.Fatal(err)
		}
	}
	r := b.runner("r1")
	first, err := jobs.RunLeased(ctx, r, st, jobs.JobTicketStock, st.Today(), jobs.TriggerStaff, nil)
	if err != nil || first.Outcome != store.RunCompleted || first.Counts.Due != 0 {
		t.Fatalf("a run before the tickets expire: %+v %v", first, err)
	}
	b.clock.Set(now.Add(3 * time.Hour))
	second, err := jobs.RunLeased(ctx, r, st, jobs.JobTicketStock, st.Today(), jobs.TriggerSchedule, nil)
	if err != nil || second.Outcome != store.RunCompleted || second.Counts.Due != 2 || second.Counts.Returned != 2 || second.Counts.Done() != 2 {
		t.Fatalf("the run after they expired: %+v %v", second, err)
	}
	levels, err := st.ProductStock(ctx, "tea")
	if err != nil || len(levels) != 1 || levels[0].Quantity != 2+2 {
		t.Fatalf("stock %+v %v, want 2 left + 2 returned", levels, err)
	}
	third, err := jobs.RunLeased(ctx, r, st, jobs.JobTicketStock, st.Today(), jobs.TriggerSchedule, nil)
	if err != nil || third.Counts.Due != 0 {
		t.Fatalf("a third run: %+v %v", third, err)
	}
	runs, err := st.Runs(ctx, jobs.JobTicketStock, 10, "")
	if err != nil || len(runs.Items) != 3 {
		t.Fatalf("recorded runs: %+v %v", runs.Items, err)
	}
}
