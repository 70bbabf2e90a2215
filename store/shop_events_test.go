package store_test

import (
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"shop/store"
	"shop/store/rules"
)

// staffHooks has st write the shop events of the given types for one
// staff endpoint "ep-staff"; it counts the deliverer's wake-ups.
func staffHooks(st *store.Store, types ...string) *atomic.Int32 {
	var wakes atomic.Int32
	st.AnnounceShopEvents(store.ShopHooks{
		Subscribed: func(owner, typ string) []string {
			if owner == store.StaffWebhooks && slices.Contains(types, typ) {
				return []string{"ep-staff"}
			}
			return nil
		},
		Wake: func() { wakes.Add(1) },
	})
	return &wakes
}

// shopEventsOf are the customer's shop events by type, and each one's
// data, as the privacy export finds them.
func shopEventsOf(t *testing.T, st *store.Store, customer string) (map[string]int, map[string]json.RawMessage) {
	t.Helper()
	events, err := st.CustomerWebhookEvents(ctxT(t), customer)
	if err != nil {
		t.Fatal(err)
	}
	n, data := map[string]int{}, map[string]json.RawMessage{}
	for _, ce := range events {
		e := ce.Event
		var body struct {
			ID   string          `json:"id"`
			Type string          `json:"type"`
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(e.Body, &body); err != nil {
			t.Fatal(err)
		}
		if body.Type != e.Type || body.ID != "evt_"+e.ID || e.Integration != store.StaffWebhooks || e.Customer != customer {
			t.Fatalf("event %+v with body %s", e, e.Body)
		}
		if d := e.Deliveries["ep-staff"]; d.Status != store.DeliveryPending || len(e.Deliveries) != 1 {
			t.Fatalf("%s: deliveries %+v", e.Type, e.Deliveries)
		}
		n[e.Type]++
		data[e.Type] = body.Data
	}
	return n, data
}

// An order's three events are written by its checkout, its dispatch and
// its refund, each in the change's own transaction, only once a staff
// endpoint wants them; each write wakes the deliverer. The data is the
// order as the API would show it, the customer's name, email and address
// with it.
func TestOrderEventsAreWrittenWithTheirChange(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string][2]int{"a": {10, 0}}, 1000)
	st, ctx := f.env.Store, ctxT(t)
	order := func(key string) store.OrderDetails {
		req := request(key, "cust-ev", store.CheckoutLine{ProductID: "a", Quantity: 2})
		req.Buyer = store.Buyer{Name: "Ada Lindqvist", Email: "ada@example.com"}
		o, err := f.pay.Checkout(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		shs, err := st.CreateShipments(ctx, o.ID, "Standard")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.ChangeShipment(ctx, o.ID, shs[0].ID, store.ShipmentStep{To: store.ShipmentShipped, Carrier: "ups", Tracking: "1Z999AA10123456784", Version: 1}, sam); err != nil {
			t.Fatal(err)
		}
		if _, err := st.RefundOrder(ctx, store.OrderRefundRequest{OrderID: o.ID, Key: "rf-" + key, Reason: "Arrived broken",
			Lines: []store.RefundLine{{ProductID: "a", Quantity: 1}}, By: sam}, f.pay.Refunds()); err != nil {
			t.Fatal(err)
		}
		d, err := st.OrderDetails(ctx, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}

	order("no-endpoint")
	if n, _ := shopEventsOf(t, st, "cust-ev"); len(n) != 0 {
		t.Fatalf("without an endpoint: %v", n)
	}

	wakes := staffHooks(st, store.EventOrderPlaced, store.EventOrderShipped, store.EventOrderRefunded)
	d := order("with-endpoint")
	n, data := shopEventsOf(t, st, "cust-ev")
	if n[store.EventOrderPlaced] != 1 || n[store.EventOrderShipped] != 1 || n[store.EventOrderRefunded] != 1 || len(n) != 3 {
		t.Fatalf("events %v", n)
	}
	if w := wakes.Load(); w < 3 {
		t.Errorf("the deliverer was woken %d times for 3 events", w)
	}
	var placed store.EventOrder
	if err := json.Unmarshal(data[store.EventOrderPlaced], &placed); err != nil {
		t.Fatal(err)
	}
	if placed.ID != d.Order.ID || placed.Number != d.Order.Number || placed.Customer.Email != "ada@example.com" || placed.Customer.Name != "Ada Lindqvist" ||
		placed.ShipTo.City != "Boras" || placed.Total.Amount != d.Order.Total.Amount || len(placed.Lines) != 1 || placed.Lines[0].Quantity != 2 {
		t.Errorf("order.placed data %s", data[store.EventOrderPlaced])
	}
	var shipped store.EventShipment
	if err := json.Unmarshal(data[store.EventOrderShipped], &shipped); err != nil {
		t.Fatal(err)
	}
	if shipped.Order.ID != d.Order.ID || shipped.Tracking != "1Z999AA10123456784" || shipped.Carrier != "ups" || len(shipped.Items) != 1 {
		t.Errorf("order.shipped data %s", data[store.EventOrderShipped])
	}
	var refunded store.EventRefund
	if err := json.Unmarshal(data[store.EventOrderRefunded], &refunded); err != nil {
		t.Fatal(err)
	}
	if refunded.ID != "rf-with-endpoint" || refunded.Amount.Amount != 1000 || refunded.Order.Refunded.Amount != 1000 || len(refunded.Lines) != 1 {
		t.Errorf("order.refunded data %s", data[store.EventOrderRefunded])
	}
}

// A subscription's four events: created by its start, renewed by a paid
// period, payment_failed by a declined charge, cancelled when its last
// retry fails (with payment_failed beside it), none without an endpoint.
func TestSubscriptionEventsAreWrittenWithTheirChange(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 5, 18, 9, 0, 0, 0, time.UTC))
	st, ctx := f.env.Store, ctxT(t)
	quiet := f.subscribe(t, "cust-quiet", 18, 1)
	f.renew(t, quiet, quiet.NextPaymentDate)
	if n, _ := shopEventsOf(t, st, "cust-quiet"); len(n) != 0 {
		t.Fatalf("without an endpoint: %v", n)
	}

	staffHooks(st, store.ShopEventTypes...)
	f.clock.Set(time.Date(2026, 5, 18, 10, 0, 0, 0, time.UTC))
	sub := f.subscribe(t, "cust-sub", 18, 1)
	sub, receipt := f.renew(t, sub, sub.NextPaymentDate)
	today := rules.DateOf(f.clock.Now(), time.UTC)
	sub, err := st.FailPayment(ctx, sub, today, []int{3}, nil)
	if err != nil || sub.Status != store.SubscriptionPastDue {
		t.Fatalf("first decline: %v, %+v", err, sub)
	}
	if sub, err = st.FailPayment(ctx, sub, today.AddDate(0, 0, 3), []int{3}, nil); err != nil || sub.Status != store.SubscriptionCancelled {
		t.Fatalf("last decline: %v, %+v", err, sub)
	}
	n, data := shopEventsOf(t, st, "cust-sub")
	want := map[string]int{store.EventSubscriptionCreated: 1, store.EventSubscriptionRenewed: 1, store.EventSubscriptionPaymentFailed: 2, store.EventSubscriptionCancelled: 1}
	if len(n) != len(want) {
		t.Fatalf("events %v, want %v", n, want)
	}
	for typ, k := range want {
		if n[typ] != k {
			t.Fatalf("events %v, want %v", n, want)
		}
	}
	var renewed, cancelled store.EventSubscription
	if err := json.Unmarshal(data[store.EventSubscriptionRenewed], &renewed); err != nil {
		t.Fatal(err)
	}
	if renewed.ID != sub.ID || renewed.Customer.Email != "cust-sub@example.com" || renewed.Receipt == nil || renewed.Receipt.Number != receipt.Number || renewed.Status != "active" {
		t.Errorf("subscription.renewed data %s", data[store.EventSubscriptionRenewed])
	}
	if err := json.Unmarshal(data[store.EventSubscriptionCancelled], &cancelled); err != nil {
		t.Fatal(err)
	}
	if cancelled.Status != "cancelled" || cancelled.CancelledOn == "" {
		t.Errorf("subscription.cancelled data %s", data[store.EventSubscriptionCancelled])
	}
}

// The shop events carrying a customer's data are in their export with
// their delivery attempts, and their erasure deletes both, the event
// still waiting for a delivery too.
func TestCustomerShopEventsAreExportedAndErased(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string][2]int{"a": {10, 0}}, 1000)
	st, ctx := f.env.Store, ctxT(t)
	ada := signUp(t, st, "Ada Lindqvist", "ada@example.com")
	staffHooks(st, store.EventOrderPlaced, store.EventOrderShipped)
	req := request("ada-1", ada.ID, store.CheckoutLine{ProductID: "a", Quantity: 1})
	req.Buyer = store.Buyer{Name: ada.Name, Email: ada.Email}
	o, err := f.pay.Checkout(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	shipWaitingOrders(t, st, ada.ID) // erasure waits for an order to ship
	d, err := st.CustomerData(ctx, ada.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.WebhookEvents) != 2 {
		t.Fatalf("%d events in the export, want order.placed and order.shipped", len(d.WebhookEvents))
	}
	var placed store.WebhookEvent
	for _, ce := range d.WebhookEvents {
		if ce.Event.Type == store.EventOrderPlaced {
			placed = ce.Event
		}
	}
	if placed.ID == "" {
		t.Fatalf("no order.placed in %+v", d.WebhookEvents)
	}
	at := st.Now()
	if _, err := st.RecordWebhookAttempt(ctx, placed, "ep-staff", store.WebhookDelivery{Status: store.DeliveryDelivered, Attempts: 1},
		&store.WebhookAttempt{EventID: placed.ID, Endpoint: "ep-staff", At: at, Status: 204, Answer: "ok", Duration: time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if d, err = st.CustomerData(ctx, ada.ID); err != nil {
		t.Fatal(err)
	}
	attempts := 0
	for _, ce := range d.WebhookEvents {
		if ce.Event.Type == store.EventOrderPlaced && !json.Valid(ce.Event.Body) {
			t.Errorf("body %q", ce.Event.Body)
		}
		for _, a := range ce.Attempts {
			if a.Status != 204 || a.Answer != "ok" || a.EventID != placed.ID {
				t.Errorf("attempt %+v", a)
			}
			attempts++
		}
	}
	if attempts != 1 {
		t.Fatalf("%d attempts in the export, want 1", attempts)
	}
	if !bytesContain(placed.Body, o.ID) || !bytesContain(placed.Body, ada.Email) {
		t.Fatalf("order.placed body %s", placed.Body)
	}

	if err := st.DeleteCustomer(ctx, ada.ID); err != nil {
		t.Fatal(err)
	}
	if left, err := st.CustomerWebhookEvents(ctx, ada.ID); err != nil || len(left) != 0 {
		t.Fatalf("after erasure: %d events, %v", len(left), err)
	}
	if n := f.env.CountEntities(t, "webhookEvent") + f.env.CountEntities(t, "webhookAttempt"); n != 0 {
		t.Fatalf("%d webhook events and attempts left after erasure", n)
	}
}

func bytesContain(b []byte, s string) bool { return s != "" && strings.Contains(string(b), s) }
