package store_test

import (
	"errors"
	"testing"
	"time"

	"shop/store"
	"shop/store/storetest"
)

// An endpoint's deliveries cost one Query and one BatchGetItem, each with
// its delivery's state now; a resend is only the owner's and only of an
// event addressed to that endpoint; disabling is once per failing spell,
// with one mail, and not after a 2xx; enabling forgets it all.
func TestWebhookDeliveriesResendDisable(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	ctx := ctxT(t)
	counter := &storetest.Counter{}
	client, err := store.NewClient(ctx, store.ClientConfig{Endpoint: env.Endpoint}, counter)
	if err != nil {
		t.Fatal(err)
	}
	st := store.New(client, env.Table)
	if _, _, _, err := st.CreateIntegration(ctx, "partner"); err != nil {
		t.Fatal(err)
	}
	hook, err := st.CreateWebhook(ctx, "partner", "https://partner.example.com/h", []string{store.EventDropCreated})
	if err != nil {
		t.Fatal(err)
	}
	other, err := st.CreateWebhook(ctx, "partner", "https://partner.example.com/other", []string{store.EventDropCreated})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	var events []store.WebhookEvent
	for range 2 {
		if _, err := st.CreateDrop(ctx, store.NewDrop{Title: "Hooked", Quantity: 5, Opens: now, Closes: now.Add(time.Hour),
			Audience: store.IntegrationAudience("partner"), CreatedBy: store.IntegrationAudience("partner"),
			Announce: &store.Announcement[store.Drop]{Integration: "partner", Endpoints: []string{hook.ID}, Data: func(d store.Drop) any { return d.ID }}}); err != nil {
			t.Fatal(err)
		}
	}
	events, err = st.DueWebhookEvents(ctx, 10)
	if err != nil || len(events) != 2 {
		t.Fatalf("events %v, %v", events, err)
	}
	// The first refused then delivered, the second refused and given up.
	e := events[0]
	for i, d := range []store.WebhookDelivery{{Status: store.DeliveryPending, Attempts: 1, NextAt: now.Add(time.Minute)}, {Status: store.DeliveryDelivered, Attempts: 2}} {
		a := &store.WebhookAttempt{At: now.Add(time.Duration(i) * time.Second), Status: []int{500, 200}[i], Answer: "x", Duration: time.Millisecond}
		if e, err = st.RecordWebhookAttempt(ctx, e, hook.ID, d, a); err != nil {
			t.Fatal(err)
		}
	}
	a := &store.WebhookAttempt{At: now.Add(3 * time.Second), Status: 0, Answer: "refused"}
	if _, err := st.RecordWebhookAttempt(ctx, events[1], hook.ID, store.WebhookDelivery{Status: store.DeliveryFailed, Attempts: 1}, a); err != nil {
		t.Fatal(err)
	}

	counter.Reset()
	log, err := st.WebhookDeliveries(ctx, hook.ID, 10, "")
	if err != nil {
		t.Fatal(err)
	}
	if ops := counter.Ops(); counter.Total() != 2 || ops["Query"] != 1 || ops["BatchGetItem"] != 1 {
		t.Fatalf("the deliveries cost %v", ops)
	}
	want := []struct {
		event  string
		status int
		now    store.DeliveryStatus
	}{{events[1].ID, 0, store.DeliveryFailed}, {events[0].ID, 200, store.DeliveryDelivered}, {events[0].ID, 500, store.DeliveryDelivered}}
	if len(log.Items) != len(want) {
		t.Fatalf("%d deliveries", len(log.Items))
	}
	for i, w := range want {
		if l := log.Items[i]; l.EventID != w.event || l.Status != w.status || l.Now != w.now || l.Type != store.EventDropCreated {
			t.Errorf("delivery %d: %+v, want %+v", i, l, w)
		}
	}
	if l := log.Items[2]; l.State != store.DeliveryPending {
		t.Errorf("the first attempt left it %s", l.State)
	}

	for _, tc := range []struct{ owner, endpoint, event string }{
		{"other", hook.ID, events[0].ID}, {"partner", other.ID, events[0].ID}, {"partner", hook.ID, "nosuchevent"},
	} {
		if _, err := st.ResendWebhookEvent(ctx, tc.owner, tc.endpoint, tc.event); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("resend %+v: %v", tc, err)
		}
	}
	again, err := st.ResendWebhookEvent(ctx, "partner", hook.ID, events[1].ID)
	if d := again.Deliveries[hook.ID]; err != nil || d.Status != store.DeliveryPending || d.Attempts != 0 || d.Since.IsZero() || !d.NextAt.Equal(d.Since) {
		t.Fatalf("resent: %+v, %v", d, err)
	}
	if due, err := st.DueWebhookEvents(ctx, 10); err != nil || len(due) != 1 || due[0].ID != events[1].ID {
		t.Fatalf("due after the resend: %v, %v", due, err)
	}

	// Disabled once per failing spell, not after a 2xx.
	if err := st.MarkWebhookFailing(ctx, "partner", hook.ID, now.Add(-72*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := st.MarkWebhookFailing(ctx, "partner", hook.ID, now); err != nil { // noted already: kept
		t.Fatal(err)
	}
	failing, err := st.Webhook(ctx, "partner", hook.ID)
	if err != nil || !failing.FailingSince.Equal(now.Add(-72*time.Hour)) {
		t.Fatalf("failing since %v, %v", failing.FailingSince, err)
	}
	mail := func(id string) store.Mail {
		return store.Mail{ID: id, To: "ops@shop.example", Kind: store.MailWebhookDisabled, Subject: "s", Text: "t", CreatedAt: now, Status: store.MailPending}
	}
	if err := st.MarkWebhookAnswering(ctx, "partner", hook.ID); err != nil {
		t.Fatal(err)
	}
	if ok, err := st.DisableWebhook(ctx, failing, now, "HTTP 500", mail("m1")); ok || err != nil {
		t.Fatalf("disabled after a 2xx: %v %v", ok, err)
	}
	if err := st.MarkWebhookFailing(ctx, "partner", hook.ID, now.Add(-72*time.Hour)); err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, false} {
		if ok, err := st.DisableWebhook(ctx, failing, now, "HTTP 500", mail("m"+string(rune('2'+i)))); ok != want || err != nil {
			t.Fatalf("disable %d: %v %v", i, ok, err)
		}
	}
	outbox, err := st.Outbox(ctx, 10, "")
	if err != nil || len(outbox.Items) != 1 || outbox.Items[0].ID != "m2" {
		t.Fatalf("outbox %+v, %v", outbox.Items, err)
	}
	access, err := st.APIAccess(ctx)
	if err != nil || len(access.WebhooksFor("partner", store.EventDropCreated)) != 1 {
		t.Fatalf("addressed %v, %v", access.WebhooksFor("partner", store.EventDropCreated), err)
	}
	enabled, err := st.EnableWebhook(ctx, "partner", hook.ID)
	if err != nil || enabled.Disabled || !enabled.FailingSince.IsZero() || enabled.LastError != "" || enabled.URL != hook.URL {
		t.Fatalf("enabled %+v, %v", enabled, err)
	}
	if _, err := st.EnableWebhook(ctx, "other", hook.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another's: %v", err)
	}
}
