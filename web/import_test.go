package web_test

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"

	"shop/store/demo"
)

// After importing the AWS sample model, the admin pages show its answers.
func TestAdminShowsImportedAWSModel(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	f, err := os.Open("../store/testdata/AnOnlineShop_14.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := s.env.Store.ImportWorkbench(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	staff := s.browser(t)
	staff.signIn(demo.StaffEmail, demo.StaffPassword)

	order := staff.get("/admin/orders/12345")
	wantStatus(t, "imported order", order, http.StatusOK)
	if n := order.testid("order-item-row").Length(); n != 2 {
		t.Errorf("order 12345 shows %d items, want 2", n)
	}
	if n := order.testid("order-shipment").Length(); n != 2 {
		t.Errorf("order 12345 shows %d shipments, want 2", n)
	}
	if n := order.testid("order-shipment-item").Length(); n != 3 {
		t.Errorf("order 12345 shows %d shipment items, want 3", n)
	}
	inv := staff.get("/admin/invoices/55443")
	wantStatus(t, "imported invoice", inv, http.StatusOK)
	if got := inv.testid("payment-row").Text(); !strings.Contains(got, "€100.00") || !strings.Contains(got, "€300.00") {
		t.Errorf("invoice payments %q, want €100.00 by gift card and €300.00 by card", got)
	}
	wh := staff.get("/admin/warehouses/12376")
	wantStatus(t, "imported warehouse", wh, http.StatusOK)
	if got := wh.testid("inventory-row").Text(); !strings.Contains(got, "The Book") {
		t.Errorf("warehouse 12376 holds %q, want The Book (p#99887)", got)
	}
	sh := staff.get("/admin/shipments/98765")
	wantStatus(t, "imported shipment", sh, http.StatusOK)
	if n := sh.testid("shipment-item-row").Length(); n != 2 {
		t.Errorf("shipment 98765 shows %d items", n)
	}
	cust := staff.get("/admin/customers/12345?from=2020-06-01&to=2020-06-30")
	wantStatus(t, "imported customer", cust, http.StatusOK)
	if !strings.Contains(cust.body, "55443") {
		t.Error("customer 12345's invoices in June 2020 do not list 55443")
	}
}
