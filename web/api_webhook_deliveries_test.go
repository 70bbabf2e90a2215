package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"shop/handlers"
	"shop/store"
)

// refusingReceiver is an integrator's https endpoint answering status.
func refusingReceiver(t *testing.T, status *atomic.Int32) *hookReceiver {
	h := &hookReceiver{}
	h.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.got, h.sig = append(h.got, b), append(h.sig, r.Header.Get("Shop-Signature"))
		h.mu.Unlock()
		w.WriteHeader(int(status.Load()))
		fmt.Fprintf(w, "answered %d", status.Load())
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// deliveries lists the endpoint's attempts through the API.
func deliveries(t *testing.T, c *apiClient, hook, query string) handlers.APIDeliveryList {
	t.Helper()
	r := c.do(http.MethodGet, "/api/v1/webhooks/"+hook+"/deliveries"+query, "")
	r.want(t, "deliveries", http.StatusOK, "")
	var out handlers.APIDeliveryList
	r.decode(t, &out)
	return out
}

// An endpoint's attempts are listed newest first with their state now; a
// resend sends a refused event again at once and both its attempts then
// show it delivered; another integration sees and resends nothing of it.
func TestAPIWebhookDeliveriesListedAndResent(t *testing.T) {
	t.Parallel()
	var status atomic.Int32
	status.Store(http.StatusServiceUnavailable)
	rcv := refusingReceiver(t, &status)
	env, c := apiShop(t, withHooksTo(rcv))
	hook := registerHook(t, c, rcv, `"drop.created"`)
	c.makeDrop(dropBody("Refused", 3))
	rcv.wait(t, 1)

	var list handlers.APIDeliveryList
	for deadline := time.Now().Add(5 * time.Second); len(list.Deliveries) == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		list = deliveries(t, c, hook.ID, "")
	}
	if len(list.Deliveries) != 1 || list.Next != "" {
		t.Fatalf("deliveries %+v", list)
	}
	d := list.Deliveries[0]
	if d.Status != 503 || d.Answer != "answered 503" || d.Type != "drop.created" || !strings.HasPrefix(d.Event, "evt_") ||
		d.State != "pending" || d.NextAt.Before(d.At) || d.DurationMS < 1 || time.Since(d.At) > time.Minute {
		t.Fatalf("delivery %+v", d)
	}

	// Another integration: neither the list nor a resend, of its endpoint
	// or through one of its own.
	other := newAPIClient(t, c.base, newAPIKey(t, env.Store, "other"))
	waitForKey(t, other)
	otherHook := registerHook(t, other, rcv, `"drop.created"`)
	other.do(http.MethodGet, "/api/v1/webhooks/"+hook.ID+"/deliveries", "").want(t, "other's list", http.StatusNotFound, "not_found")
	other.do(http.MethodPost, "/api/v1/webhooks/"+hook.ID+"/deliveries/"+d.Event+"/resend", "").want(t, "other resends", http.StatusNotFound, "not_found")
	other.do(http.MethodPost, "/api/v1/webhooks/"+otherHook.ID+"/deliveries/"+d.Event+"/resend", "").want(t, "other resends to its own", http.StatusNotFound, "not_found")
	c.do(http.MethodPost, "/api/v1/webhooks/"+hook.ID+"/deliveries/evt_nosuchevent/resend", "").want(t, "no such event", http.StatusNotFound, "not_found")
	c.do(http.MethodPost, "/api/v1/webhooks/"+hook.ID+"/deliveries/"+strings.TrimPrefix(d.Event, "evt_")+"/resend", "").want(t, "a bare id", http.StatusNotFound, "not_found")
	c.do(http.MethodGet, "/api/v1/webhooks/"+hook.ID+"/deliveries?limit=0", "").want(t, "limit 0", http.StatusBadRequest, "bad_request")

	status.Store(http.StatusOK)
	r := c.do(http.MethodPost, "/api/v1/webhooks/"+hook.ID+"/deliveries/"+d.Event+"/resend", "")
	r.want(t, "resend", http.StatusAccepted, "")
	var resent handlers.APIResent
	r.decode(t, &resent)
	if resent.Event != d.Event || resent.State != "pending" || time.Since(resent.NextAt) > time.Minute {
		t.Fatalf("resent %+v", resent)
	}
	rcv.wait(t, 2) // at once: the resend wakes the deliverer
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		list = deliveries(t, c, hook.ID, "")
		if len(list.Deliveries) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("deliveries %+v", list)
		}
	}
	if n, o := list.Deliveries[0], list.Deliveries[1]; n.Status != 200 || n.State != "delivered" || o.Status != 503 || o.State != "delivered" ||
		!n.At.After(o.At) || n.Event != d.Event || !n.NextAt.IsZero() {
		t.Fatalf("after the resend %+v", list.Deliveries)
	}

	// Paged: one a page.
	first := deliveries(t, c, hook.ID, "?limit=1")
	if len(first.Deliveries) != 1 || first.Next == "" || first.Deliveries[0].Status != 200 {
		t.Fatalf("first page %+v", first)
	}
	second := deliveries(t, c, hook.ID, "?limit=1&after="+first.Next)
	if len(second.Deliveries) != 1 || second.Deliveries[0].Status != 503 {
		t.Fatalf("second page %+v", second)
	}
	c.do(http.MethodGet, "/api/v1/webhooks/"+hook.ID+"/deliveries?after=bogus", "").want(t, "a bad cursor", http.StatusBadRequest, "bad_request")

	// A delivered event resent goes again.
	c.do(http.MethodPost, "/api/v1/webhooks/"+hook.ID+"/deliveries/"+d.Event+"/resend", "").want(t, "resend again", http.StatusAccepted, "")
	rcv.wait(t, 3)
}

// An endpoint disabled for failing shows so in the list, is left out of
// new events, and is enabled again through the API.
func TestAPIWebhookDisabledAndEnabled(t *testing.T) {
	t.Parallel()
	var status atomic.Int32
	status.Store(http.StatusOK)
	rcv := refusingReceiver(t, &status)
	env, c := apiShop(t, withHooksTo(rcv), withAPIKeysEvery(100*time.Millisecond))
	hook := registerHook(t, c, rcv, `"drop.created"`)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	if err := env.Store.MarkWebhookFailing(ctx, "partner", hook.ID, now.Add(-73*time.Hour)); err != nil {
		t.Fatal(err)
	}
	e, err := env.Store.Webhook(ctx, "partner", hook.ID)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := env.Store.DisableWebhook(ctx, e, now, "HTTP 503", store.Mail{ID: "webhook-test-" + hook.ID, To: "ops@shop.example", Kind: store.MailWebhookDisabled,
		Subject: "disabled", Text: "disabled", CreatedAt: now, Status: store.MailPending}); !ok || err != nil {
		t.Fatalf("disable: %v %v", ok, err)
	}
	r := c.do(http.MethodGet, "/api/v1/webhooks", "")
	var list handlers.APIWebhookList
	r.decode(t, &list)
	if len(list.Webhooks) != 1 || !list.Webhooks[0].Disabled || !list.Webhooks[0].DisabledAt.Equal(now) {
		t.Fatalf("list %+v", list)
	}
	time.Sleep(400 * time.Millisecond) // the key cache reloads (every 100 ms here)
	c.makeDrop(dropBody("Unannounced", 3))
	time.Sleep(300 * time.Millisecond)
	if n := len(rcv.events(t, hook.Secret)); n != 0 {
		t.Fatalf("a disabled endpoint got %d events", n)
	}

	other := newAPIClient(t, c.base, newAPIKey(t, env.Store, "other"))
	waitForKey(t, other)
	other.do(http.MethodPost, "/api/v1/webhooks/"+hook.ID+"/enable", "").want(t, "other enables", http.StatusNotFound, "not_found")
	r = c.do(http.MethodPost, "/api/v1/webhooks/"+hook.ID+"/enable", "")
	r.want(t, "enable", http.StatusOK, "")
	var enabled handlers.APIWebhook
	r.decode(t, &enabled)
	if enabled.Disabled || enabled.ID != hook.ID || strings.Contains(string(r.body), "disabled_at") {
		t.Fatalf("enabled %s", r.body)
	}
	c.makeDrop(dropBody("Announced", 3))
	rcv.wait(t, 1)
}
