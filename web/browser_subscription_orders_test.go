package web_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"

	"shop/store"
	"shop/store/demo"
	"shop/store/storetest/paytest"
	"shop/web/paths"
)

// Ada subscribes to two coffees the shop stocks, one out of stock: her
// subscriptions link each period's order, the one without stock says it
// waits; staff find it on the console's home and allocate it once stock
// has arrived.
func TestBrowserSubscriptionOrdersShipAndAwaitStock(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := context.Background()
	box := s.coffeeBox(t)
	level := store.StockLevel{ProductID: box.ID, ProductName: box.Name, WarehouseID: "gbg", WarehouseName: "Göteborg Harbour"}
	if err := s.env.Store.PutStockLevel(ctx, level); err != nil {
		t.Fatal(err)
	}
	ada := s.customerID(t, demo.CustomerEmail)
	light, err := s.env.Store.Product(ctx, "cf-light")
	if err != nil {
		t.Fatal(err)
	}
	// Subscribed as the shop does: paid on the test provider's page, the
	// subscription started with that payment.
	pay := paytest.New(t, s.env.Store)
	var waiting store.PeriodOrder
	for _, p := range []store.Product{light, box} {
		sub, _, err := pay.Subscribe(ctx, store.SubscribeRequest{Key: store.NewID(), CustomerID: ada, Email: demo.CustomerEmail,
			Product: p, PaymentDay: s.env.Store.Today().Day(), PeriodMonths: 1}) // a whole period: it ships
		if err != nil || len(sub.Orders) != 1 {
			t.Fatalf("subscribe to %s: %v, orders %v", p.ID, err, sub.Orders)
		}
		waiting = sub.Orders[0]
	}

	j := newJourney(t, s.base)
	j.signInAt("/subscriptions", demo.CustomerEmail, demo.CustomerPassword, "subscription")
	if n := j.count(sel("sub-order-link")); n != 2 {
		t.Fatalf("the subscriptions link %d orders, want 2", n)
	}
	j.shot("60-subscription-orders")
	j.do("open the order awaiting stock",
		chromedp.Click(`[data-testid="sub-order-link"][href="/orders/`+waiting.OrderID+`"]`),
		chromedp.WaitVisible(sel("order-subscription")),
	)
	j.waitText("it waits for stock", sel("order-status"), "Waiting for stock")
	if j.count(sel("no-address")) != 0 {
		t.Fatal("Ada's subscription order has no address: her latest order's was not taken")
	}
	j.shot("61-subscription-order-awaiting-stock")
	j.do("the orders list", chromedp.Navigate(s.base+"/orders"), chromedp.WaitVisible(sel("order-from-subscription")))
	j.shot("62-orders-with-subscription-orders")

	staff := j.tab("staff")
	staff.signInAt("/admin", demo.StaffEmail, demo.StaffPassword, "dashboard")
	staff.waitText("the order awaits stock", `[data-testid="awaiting-stock-row"][data-order="`+waiting.OrderID+`"]`, waiting.OrderNumber)
	staff.shot("63-dashboard-awaiting-stock")
	// The row's link is followed by its address, not clicked: the block
	// refreshes itself every 30 s, and a click that lands as it is swapped
	// goes nowhere (CI waited three minutes on one).
	link, err := chromedp.Run(staff.ctx, chromedp.AttributeValue(`[data-testid="awaiting-stock-row"][data-order="`+waiting.OrderID+`"] a`, "href"))
	if err != nil || link.Value != paths.AdminOrder(waiting.OrderID) {
		t.Fatalf("the awaiting-stock row links to %q (%v), want the order's page %s", link.Value, err, paths.AdminOrder(waiting.OrderID))
	}
	staff.do("open it", chromedp.Navigate(s.base+link.Value), chromedp.WaitVisible(sel("allocate-order")))
	staff.shot("64-admin-order-awaiting-stock")
	level.Quantity = 12
	if err := s.env.Store.PutStockLevel(ctx, level); err != nil {
		t.Fatal(err)
	}
	staff.do("allocate it", chromedp.Click(sel("allocate-order")), chromedp.WaitVisible(sel("create-shipments")))
	staff.waitText("it waits to ship", sel("order-status"), "Waiting to ship")
	staff.shot("65-admin-order-allocated")
	staff.do("the orders", chromedp.Navigate(s.base+"/admin/orders"), chromedp.WaitVisible(sel("admin-order-subscription")))
	staff.shot("66-admin-orders-marked")
}
