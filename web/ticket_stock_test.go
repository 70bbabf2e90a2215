package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"shop/store"
	"shop/web/paths"
)

// Staff see the ticket stock job on the batch-run page with its schedule
// and "Run now": a cancelled product drop's two voided tickets give their
// units back in the run, which counts them, and the drop's page says so.
func TestAdminTicketStockRunNow(t *testing.T) {
	t.Parallel()
	var h *jobsHarness
	s := newShop(t, withJobsScheduler(t, &h, 4))
	ctx := context.Background()
	st := s.env.Store
	if err := st.PutWarehouse(ctx, store.Warehouse{ID: "tsw", Name: "Ticket stock", Address: store.Address{City: "Boras"}}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutProduct(ctx, store.Product{ID: "tstea", Name: "Ticket tea", Category: "c", Price: store.Money{Amount: 2000, Currency: "EUR"}}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutStockLevel(ctx, store.StockLevel{ProductID: "tstea", ProductName: "Ticket tea", WarehouseID: "tsw", WarehouseName: "Ticket stock", Quantity: 3}); err != nil {
		t.Fatal(err)
	}
	now := st.Now()
	d, err := st.CreateDrop(ctx, store.NewDrop{Title: "Tea for two", Quantity: 3, Opens: now.Add(-time.Minute), Closes: now.Add(time.Hour),
		ProductID: "tstea", Price: store.Money{Amount: 1500, Currency: "EUR"}, RedeemWithin: store.DefaultRedeemWithin, StaffID: "staff-1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{"ts-ada", "ts-bob"} {
		if _, err := st.Claim(ctx, store.ClaimRequest{DropID: d.ID, Client: who, CustomerID: who, DropTitle: d.Title, RedeemWithin: d.TicketRedeemWithin()}, false); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.CancelDrop(ctx, d.ID); err != nil {
		t.Fatal(err)
	}

	staff := s.staff(t)
	p := staff.get("/admin/jobs")
	wantStatus(t, "jobs console", p, http.StatusOK)
	wantText(t, "schedule", p.testid("job-ticket-stock").Find(`[data-testid="job-schedule"]`), "*/15 * * * *")
	if p.testid("run-now-ticket-stock").Length() != 1 {
		t.Fatal("no Run now for the ticket stock job")
	}
	r := staff.post("/admin/jobs/ticket-stock/run", url.Values{"date": {store.FormatDate(st.Today())}})
	wantStatus(t, "run now", r, http.StatusSeeOther)
	loc := r.header.Get("Location")
	if !strings.HasPrefix(loc, "/admin/jobs/ticket-stock/runs/") {
		t.Fatalf("run now went to %q", loc)
	}
	done := pollRun(t, staff, loc, func(p page) bool { return squash(p.testid("run-page-outcome").Text()) != store.RunRunning })
	wantText(t, "outcome", done.testid("run-page-outcome"), store.RunCompleted)
	if got := squash(done.testid("count-returned").Text()); got != "2" {
		t.Fatalf("returned %q, want 2", got)
	}
	levels, err := st.ProductStock(ctx, "tstea")
	if err != nil || len(levels) != 1 || levels[0].Quantity != 3 {
		t.Fatalf("stock %+v %v, want all 3 back", levels, err)
	}
	wantText(t, "the drop's page", staff.get(paths.AdminDrop(d.ID)).testid("admin-drop-returned"), "Returned to stock: 2")
}
