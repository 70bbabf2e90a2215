package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"shop/store"
)

// A subscription to a product the shop stocks ships: subscribing with no
// stock places its first period's order awaiting stock. The customer sees
// it under their orders and on the subscription; staff see it among the
// orders (by its status too) and on the console's home, marked as a
// subscription's, and allocate it once stock has arrived, once.
func TestSubscriptionOrdersForTheCustomerAndStaff(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	box := s.coffeeBox(t)
	ctx := context.Background()
	level := store.StockLevel{ProductID: box.ID, ProductName: box.Name, WarehouseID: "gbg", WarehouseName: "Göteborg Harbour"}
	if err := s.env.Store.PutStockLevel(ctx, level); err != nil { // stocked, none left
		t.Fatal(err)
	}
	cust, id := s.newCustomer(t, "Greta Holm")
	cust.subscribe(box.ID, itoa(s.env.Store.Today().Day()), "3") // a whole period: three units
	subs := s.subscriptionsOf(t, id)
	if len(subs) != 1 || len(subs[0].Orders) != 1 {
		t.Fatalf("subscriptions %+v", subs)
	}
	order := subs[0].Orders[0]
	orderPath := "/orders/" + order.OrderID

	// The customer: the subscription links its period's order; the order
	// is in their list, marked, and says it waits for stock.
	p := cust.get("/subscriptions")
	wantStatus(t, "subscriptions", p, http.StatusOK)
	if href, _ := p.testid("sub-order-link").Attr("href"); href != orderPath {
		t.Fatalf("the subscription links %q, want %q", href, orderPath)
	}
	wantText(t, "the period's order", p.testid("sub-order"), order.OrderNumber)
	p = cust.get("/orders")
	wantStatus(t, "orders", p, http.StatusOK)
	wantText(t, "marked in the list", p.testid("order-row").First(), "Subscription")
	p = cust.get(orderPath)
	wantStatus(t, "order", p, http.StatusOK)
	wantText(t, "status", p.testid("order-status"), "Waiting for stock")
	wantText(t, "from the subscription", p.testid("order-subscription"), "subscription")
	wantText(t, "waits for stock", p.testid("awaiting-stock"), "waiting for new stock")
	wantText(t, "no address yet", p.testid("no-address"), "no address")
	if href, _ := p.testid("order-receipt").Attr("href"); href == "" || cust.get(href).status != http.StatusOK {
		t.Fatalf("the order links its receipt %q", href)
	}

	// Staff: among the orders, by its status, and on the console's home.
	b := s.staff(t)
	p = b.get("/admin/orders?status=awaiting_stock")
	wantStatus(t, "orders awaiting stock", p, http.StatusOK)
	if p.testid("admin-order-row").Length() != 1 {
		t.Fatalf("%d orders awaiting stock, want 1", p.testid("admin-order-row").Length())
	}
	wantText(t, "marked", p.testid("admin-order-subscription"), "Subscription order")
	wantText(t, "status", p.testid("admin-order-status"), "Awaiting stock")
	p = b.get("/admin/orders")
	wantText(t, "marked among all", p.testid("admin-order-subscription"), "Subscription order")
	p = b.get("/admin/dashboard/awaiting-stock")
	wantStatus(t, "awaiting stock block", p, http.StatusOK)
	if row := p.testid("awaiting-stock-row"); row.Length() != 1 || row.AttrOr("data-order", "") != order.OrderID {
		t.Fatalf("the block lists %d orders", row.Length())
	}
	adminPath := "/admin/orders/" + order.OrderID
	p = b.get(adminPath)
	wantStatus(t, "staff order page", p, http.StatusOK)
	wantText(t, "subscription", p.testid("order-subscription"), subs[0].ID)
	wantText(t, "no invoice", p.testid("order-no-invoice"), "receipt")
	wantText(t, "no address", p.testid("order-no-address"), "No address")
	if p.testid("allocate-order").Length() != 1 || p.testid("create-shipments").Length() != 0 {
		t.Fatal("an order awaiting stock offers no \"Allocate\", or offers to ship")
	}

	// No stock yet: a 409 that says so, nothing changed.
	p = b.post(adminPath+"/allocate", url.Values{})
	wantStatus(t, "allocate without stock", p, http.StatusConflict)
	wantText(t, "why", p.testid("form-error"), "Not enough stock")
	wantText(t, "still waiting", p.testid("order-status"), "Awaiting stock")

	level.Quantity = 10
	if err := s.env.Store.PutStockLevel(ctx, level); err != nil {
		t.Fatal(err)
	}
	p = b.post(adminPath+"/allocate", url.Values{})
	wantStatus(t, "allocate", p, http.StatusSeeOther)
	p = b.get(adminPath)
	wantText(t, "flash", p.testid("flash"), "Allocated")
	wantText(t, "status", p.testid("order-status"), "Waiting to ship")
	wantText(t, "allocations", p.testid("allocations"), "Göteborg")
	if p.testid("allocate-order").Length() != 0 || p.testid("create-shipments").Length() != 1 {
		t.Fatal("an allocated order still offers \"Allocate\", or no shipments")
	}
	p = b.post(adminPath+"/allocate", url.Values{})
	wantStatus(t, "allocate twice", p, http.StatusConflict)
	wantText(t, "twice", p.testid("form-error"), "allocated already")
	if got := b.get("/admin/dashboard/awaiting-stock").testid("awaiting-stock-none").Length(); got != 1 {
		t.Fatal("the block still lists the allocated order")
	}
	levels, err := s.env.Store.ProductStock(ctx, box.ID)
	if err != nil || len(levels) != 1 || levels[0].Quantity != 7 {
		t.Fatalf("stock after allocating three months' units: %+v (%v)", levels, err)
	}
	wantText(t, "the customer sees it placed", cust.get(orderPath).testid("order-status"), "Placed")
	wantStatus(t, "a customer cannot allocate", cust.post(adminPath+"/allocate", url.Values{}), http.StatusForbidden)
}
