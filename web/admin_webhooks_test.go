package web_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/jobs/webhook"
	"shop/store"
)

// hookURL is the receiver's address as the app's client reaches it.
func hookURL(rcv *hookReceiver) string {
	_, port, _ := net.SplitHostPort(rcv.srv.Listener.Addr().String())
	return "https://partner.example.com:" + port + "/shop"
}

// registerStaffHook registers a staff endpoint for events through the
// console's form and reads its secret off the page after (shown once).
func registerStaffHook(t *testing.T, staff *browser, u string, events ...string) string {
	t.Helper()
	wantStatus(t, "webhooks page", staff.get("/admin/webhooks"), http.StatusOK)
	made := staff.post("/admin/webhooks", url.Values{"url": {u}, "events": events})
	wantStatus(t, "register", made, http.StatusSeeOther)
	if loc := made.header.Get("Location"); loc != "/admin/webhooks" {
		t.Fatalf("registered, sent to %q", loc)
	}
	after := staff.get("/admin/webhooks")
	secret := attr(after.testid("webhook-secret"), "value")
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("no secret after registering:\n%s", trim(after.body))
	}
	if again := staff.get("/admin/webhooks"); again.testid("webhook-secret").Length() != 0 {
		t.Fatal("the secret is shown twice")
	}
	return secret
}

// A staff endpoint registered in the console gets order.placed within a
// moment of a customer's checkout (the payment's process wakes its
// deliverer), signed with its secret, with the order and the customer's
// name, email and address as an API would show them.
func TestStaffWebhookGetsOrderPlacedSigned(t *testing.T) {
	t.Parallel()
	rcv := newHookReceiver(t)
	s := newShop(t, withHooksTo(rcv))
	secret := registerStaffHook(t, s.staff(t), hookURL(rcv), store.EventOrderPlaced)

	b, customer := s.cartOf(t, "Vera Webhook", "cf-light", 2)
	placed := s.placeOrder(t, b, b.freshCheckoutForm())
	wantStatus(t, "place the order", placed, http.StatusSeeOther)
	bodies, sigs := rcv.wait(t, 1)
	if err := webhook.Verify(secret, sigs[0], bodies[0], 5*time.Minute, time.Now()); err != nil {
		t.Fatalf("signature: %v", err)
	}
	var ev struct {
		ID, Type string
		Data     store.EventOrder
	}
	if err := json.Unmarshal(bodies[0], &ev); err != nil {
		t.Fatal(err)
	}
	o := ev.Data
	if ev.Type != store.EventOrderPlaced || !strings.HasPrefix(ev.ID, "evt_") || o.Customer.ID != customer ||
		o.Customer.Email != "vera.webhook@example.com" || o.Customer.Name != "Vera Webhook" || o.ShipTo.City == "" ||
		len(o.Lines) != 1 || o.Lines[0].Product != "cf-light" || o.Lines[0].Quantity != 2 || o.Total.Amount <= 0 {
		t.Fatalf("order.placed: %s", bodies[0])
	}
	d := s.order(t, o.ID)
	if d.Order.Number != o.Number || d.Order.Total.Amount != o.Total.Amount || o.Status != string(store.OrderPlaced) {
		t.Fatalf("order.placed says %+v, the order is %+v", o, d.Order)
	}
	time.Sleep(300 * time.Millisecond)
	if got, _ := rcv.wait(t, 1); len(got) != 1 {
		t.Fatalf("%d deliveries, want 1", len(got))
	}
}

// The console lists every endpoint, an integration's and staff's, each
// with its owner, URL, events and when it was made; registering refuses
// an empty or local URL and no events field by field, keeping what was
// typed; an endpoint is deleted after a confirmation, and staff's events
// stop going to it.
func TestAdminWebhooksListRegisterDelete(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := context.Background()
	name := "shopsync" + store.NewID()[14:]
	newAPIKey(t, s.env.Store, name)
	theirs, err := s.env.Store.CreateWebhook(ctx, name, "https://sync.example.com/hooks", []string{store.EventDropCreated, store.EventTicketClaimed})
	if err != nil {
		t.Fatal(err)
	}
	staff := s.staff(t)
	list := staff.get("/admin/webhooks")
	wantStatus(t, "webhooks page", list, http.StatusOK)
	if list.testid("nav-webhooks").Length() != 1 {
		t.Error("no Webhooks in the console's menu")
	}
	if rows := list.testid("webhook-row"); rows.Length() != 1 || attr(rows, "data-owner") != name ||
		rows.Find(`[data-testid="webhook-events"]`).Text() != "drop.created, ticket.claimed" {
		t.Fatalf("rows %d:\n%s", rows.Length(), trim(list.body))
	}

	for _, tc := range []struct {
		form   url.Values
		errors []string
	}{
		{url.Values{"url": {""}}, []string{"error-url", "error-events"}},
		{url.Values{"url": {"http://localhost:8080/x"}, "events": {store.EventOrderShipped}}, []string{"error-url"}},
		{url.Values{"url": {"https://erp.example.com/in"}, "events": {"drop.created"}}, []string{"error-events"}},
	} {
		p := staff.post("/admin/webhooks", tc.form)
		wantStatus(t, "refused", p, http.StatusUnprocessableEntity)
		for _, id := range tc.errors {
			if p.testid(id).Length() != 1 {
				t.Errorf("%v: no %s", tc.form, id)
			}
		}
		if got := attr(p.testid("field-url"), "value"); got != tc.form.Get("url") {
			t.Errorf("the URL typed %q comes back as %q", tc.form.Get("url"), got)
		}
		if ev := tc.form.Get("events"); ev != "" && store.WebhookEventTypes[0] != ev {
			if _, checked := p.testid("field-event-" + ev).Attr("checked"); !checked {
				t.Errorf("%s no longer chosen", ev)
			}
		}
	}

	registerStaffHook(t, staff, "https://erp.example.com/in", store.EventOrderShipped, store.EventSubscriptionCancelled)
	list = staff.get("/admin/webhooks")
	rows := list.testid("webhook-row")
	if rows.Length() != 2 || attr(rows.First(), "data-owner") != store.StaffWebhooks || !strings.Contains(rows.First().Text(), "https://erp.example.com/in") {
		t.Fatalf("after registering:\n%s", trim(list.body))
	}
	mine := attr(rows.First(), "data-id")
	if href := attr(rows.First().Find(`[data-testid="webhook-url"]`), "href"); href != "/admin/webhooks/~staff/"+mine {
		t.Errorf("the row links to %q", href)
	}

	// The integration's endpoint too: asked, then deleted.
	confirm := staff.get(attr(list.doc.Find(`[data-owner="`+name+`"] [data-testid="webhook-delete"]`), "href"))
	wantStatus(t, "confirm delete", confirm, http.StatusOK)
	if !strings.Contains(confirm.testid("webhook-facts").Text(), "https://sync.example.com/hooks") {
		t.Fatalf("confirmation:\n%s", trim(confirm.body))
	}
	deleted := staff.post("/admin/webhooks/"+name+"/"+theirs.ID+"/delete", url.Values{})
	wantStatus(t, "delete", deleted, http.StatusSeeOther)
	after := staff.get("/admin/webhooks")
	if after.testid("webhook-row").Length() != 1 || !strings.Contains(after.body, "https://sync.example.com/hooks") {
		t.Fatalf("after deleting:\n%s", trim(after.body))
	}
	if _, err := s.env.Store.Webhook(ctx, name, theirs.ID); err == nil {
		t.Fatal("the integration's endpoint is still stored")
	}
	wantStatus(t, "delete again", staff.post("/admin/webhooks/"+name+"/"+theirs.ID+"/delete", url.Values{}), http.StatusNotFound)
	wantStatus(t, "an owner that is none", staff.get("/admin/webhooks/no.such/"+mine), http.StatusNotFound)
	wantStatus(t, "staff's endpoint", staff.get("/admin/webhooks/~staff/"+mine), http.StatusOK)
	wantStatus(t, "a customer", s.browser(t).get("/admin/webhooks"), http.StatusSeeOther)
}

// A customer's data export lists the shop events that carried their data,
// where each went and how its deliveries went; deleting the account
// deletes the events and their delivery attempts.
func TestShopEventsInTheExportAndErasedWithTheAccount(t *testing.T) {
	t.Parallel()
	rcv := newHookReceiver(t)
	s := newShop(t, withHooksTo(rcv))
	u := hookURL(rcv)
	registerStaffHook(t, s.staff(t), u, store.EventOrderPlaced)
	b, id := s.cartOf(t, "Grace Webhook", "cf-light", 1)
	wantStatus(t, "place the order", s.placeOrder(t, b, b.freshCheckoutForm()), http.StatusSeeOther)
	rcv.wait(t, 1)
	var doc struct {
		WebhookEvents []struct {
			ID, Type string
			Sent     struct{ Data store.EventOrder }
			SentTo   []string
			Attempts []struct{ Status int }
		}
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		p := b.get("/account/data")
		wantStatus(t, "data", p, http.StatusOK)
		if err := json.Unmarshal([]byte(p.body), &doc); err != nil {
			t.Fatal(err)
		}
		if len(doc.WebhookEvents) == 1 && len(doc.WebhookEvents[0].Attempts) == 1 || time.Now().After(deadline) {
			break // the attempt is recorded just after the answer
		}
	}
	if len(doc.WebhookEvents) != 1 {
		t.Fatalf("%d events in the export, want order.placed", len(doc.WebhookEvents))
	}
	ev := doc.WebhookEvents[0]
	if ev.Type != store.EventOrderPlaced || ev.Sent.Data.Customer.Email != "grace.webhook@example.com" || len(ev.SentTo) != 1 || ev.SentTo[0] != u ||
		len(ev.Attempts) != 1 || ev.Attempts[0].Status != http.StatusOK {
		t.Fatalf("export's event %+v", ev)
	}

	orders, err := s.env.Store.CustomerOrders(context.Background(), id, 10, "")
	if err != nil || len(orders.Items) != 1 {
		t.Fatalf("orders %v %v", orders.Items, err)
	}
	shipOrder(t, s.env.Store, orders.Items[0].ID)
	wantStatus(t, "delete", b.post("/account/delete", url.Values{"password": {"a long enough password"}}), http.StatusSeeOther)
	left, err := s.env.Store.CustomerWebhookEvents(context.Background(), id)
	if err != nil || len(left) != 0 {
		t.Fatalf("after erasure: %d events, %v", len(left), err)
	}
	for _, it := range s.env.Items(t) {
		if pk, ok := it["PK"].(*types.AttributeValueMemberS); ok && strings.HasPrefix(pk.Value, "whevent#") {
			t.Fatalf("left after erasure: %v", it["SK"])
		}
	}
}
