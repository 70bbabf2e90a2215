package jobs_test

import (
	"strings"
	"testing"

	"shop/jobs"
	"shop/store"
	"shop/store/payment"
)

// A subscription that ships pays its zone's rate with each period: the
// payments job charges price + delivery at the provider, the receipt and
// its mail show delivery as a line, and the period's order carries it.
func TestPaymentsChargeDeliveryWithEachPeriod(t *testing.T) {
	t.Parallel()
	b := newSubBench(t, "2026-03-15")
	ctx := ctxT(t)
	c := b.customer(t)
	if err := b.env.Store.PutProduct(ctx, store.Product{ID: "beans", Name: "Fika beans", Category: "coffee", Price: eur(1200), Subscribable: true, MonthlyPrice: eur(990)}); err != nil {
		t.Fatal(err)
	}
	if err := b.env.Store.PutStockLevel(ctx, store.StockLevel{ProductID: "beans", ProductName: "Fika beans", WarehouseID: "gbg", WarehouseName: "Göteborg", Quantity: 5}); err != nil {
		t.Fatal(err)
	}
	sub := store.Subscription{ID: store.NewID(), AccountID: c.ID, ProductID: "beans", ProductName: "Fika beans", Email: c.Email,
		MonthlyPrice: eur(990), PeriodMonths: 1, PaymentDay: 15, Status: store.SubscriptionActive, Card: b.savedCard(t, c, payment.CardSucceeds),
		NextPaymentDate: day("2026-03-15"), CreatedAt: day("2026-02-15"), Version: 1, Shipping: eur(490), ShipTo: "SE"}
	if err := b.env.Store.CreateSubscription(ctx, sub); err != nil {
		t.Fatal(err)
	}
	if _, err := b.runner("r").Run(ctx, jobs.JobPayments, day("2026-03-15"), jobs.TriggerCommandLine); err != nil {
		t.Fatal(err)
	}
	paid := b.events(t, payment.EventPaymentSucceeded)
	if len(paid) != 1 || paid[0].Payment.Amount != eur(990+490) {
		t.Fatalf("provider payments: %+v, want one of €14.80", paid)
	}
	recs, err := b.env.Store.RecentReceipts(ctx, c.ID, 10, "")
	if err != nil || len(recs.Items) != 1 {
		t.Fatalf("receipts %+v, %v", recs.Items, err)
	}
	r := recs.Items[0]
	if r.Amount != eur(1480) || r.Shipping != eur(490) {
		t.Fatalf("receipt %v with delivery %v, want €14.80 with €4.90", r.Amount, r.Shipping)
	}
	box, err := b.env.Store.Outbox(ctx, 20, "")
	if err != nil {
		t.Fatal(err)
	}
	mailed := false
	for _, m := range box.Items {
		if m.Kind == store.MailReceipt {
			mailed = strings.Contains(m.Text, "Delivery included: €4.90.") && strings.Contains(m.HTML, "Delivery included: €4.90.")
		}
	}
	if !mailed {
		t.Fatalf("the receipt's mail does not name delivery: %+v", box.Items)
	}
	subs := b.subscriptionsOf(t, c)
	if len(subs) != 1 || len(subs[0].Orders) != 1 {
		t.Fatalf("subscription's orders: %+v", subs)
	}
	d, err := b.env.Store.OrderDetails(ctx, subs[0].Orders[0].OrderID)
	if err != nil || d.Order.Shipping != eur(490) || d.Order.Subtotal != eur(990) || d.Order.Total != eur(1480) {
		t.Fatalf("the period's order: %+v (%v)", d.Order, err)
	}
}
