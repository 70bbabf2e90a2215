package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"shop/store"
)

// hookWithDeliveries registers an endpoint of partner at a refusing
// receiver and has one drop.created refused there.
func hookWithDeliveries(t *testing.T, s *shop, rcv *hookReceiver) (string, string) {
	t.Helper()
	api := newAPIClient(t, s.base, newAPIKey(t, s.env.Store, "partner"))
	waitForKey(t, api)
	hook := registerHook(t, api, rcv, `"drop.created"`)
	api.makeDrop(dropBody("Refused", 3))
	rcv.wait(t, 1)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		log, err := s.env.Store.WebhookAttempts(context.Background(), hook.ID, 1, "")
		if err != nil || time.Now().After(deadline) {
			t.Fatalf("no attempt: %v", err)
		}
		if len(log.Items) == 1 {
			return hook.ID, log.Items[0].EventID
		}
	}
}

// Staff open an integration's endpoint from its API keys card: its URL,
// its state and its attempts newest first with the answer's status and
// first bytes; Resend sends the event again at once (htmx swaps the row's
// state; without JavaScript a 303 back), another owner's path is a 404,
// and a disabled endpoint says since when and why, and is enabled again.
func TestAdminWebhookDeliveriesResendAndEnable(t *testing.T) {
	t.Parallel()
	var status atomic.Int32
	status.Store(http.StatusServiceUnavailable)
	rcv := refusingReceiver(t, &status)
	s := newShop(t, withHooksTo(rcv))
	hook, event := hookWithDeliveries(t, s, rcv)
	b := s.staff(t)
	path := "/admin/webhooks/partner/" + hook

	p := b.get("/admin/api-keys")
	if href, _ := p.testid("integration-webhook-link").Attr("href"); href != path {
		t.Fatalf("the integration's card links %q, want %q", href, path)
	}
	p = b.get(path)
	wantStatus(t, "endpoint", p, http.StatusOK)
	if !strings.Contains(p.testid("webhook-url").Text(), "https://partner.example.com:") || !strings.HasPrefix(p.testid("webhook-state").Text(), "Enabled") ||
		!strings.Contains(p.testid("webhook-failing").Text(), "refusing every delivery since") {
		t.Fatalf("the endpoint's head: %q %q", p.testid("webhook-url").Text(), p.testid("webhook-status").Text())
	}
	rows := p.testid("delivery-row")
	if rows.Length() != 1 || p.testid("delivery-status").Text() != "503" || p.testid("delivery-answer").Text() != "answered 503" ||
		p.testid("delivery-type").Text() != "drop.created" || p.testid("delivery-state").Text() != "pending" || !strings.HasPrefix(p.testid("delivery-next").Text(), "next ") {
		t.Fatalf("the attempt: %q", strings.Join(strings.Fields(rows.Text()), " "))
	}

	for _, bad := range []string{"/admin/webhooks/other/" + hook, "/admin/webhooks/partner/nosuchhook", "/admin/webhooks/partner/no..such"} {
		wantStatus(t, bad, b.get(bad), http.StatusNotFound)
	}
	wantStatus(t, "resend of no event", b.post(path+"/deliveries/nosuchevent/resend", url.Values{}), http.StatusNotFound)
	wantStatus(t, "resend through another owner", b.post("/admin/webhooks/other/"+hook+"/deliveries/"+event+"/resend", url.Values{}), http.StatusNotFound)

	// Resend with htmx: the row's state is swapped, the event sent at once.
	status.Store(http.StatusOK)
	p = b.post(path+"/deliveries/"+event+"/resend", url.Values{}, "HX-Request", "true")
	wantStatus(t, "resend (htmx)", p, http.StatusOK)
	if p.testid("delivery-resent").Length() != 1 || p.testid("delivery-state").AttrOr("data-state", "") != "pending" || p.testid("delivery-resend-form").Length() != 1 {
		t.Fatalf("the resend's answer: %s", p.body)
	}
	rcv.wait(t, 2)
	// Without JavaScript: 303 back to the page, which says so.
	p = b.post(path+"/deliveries/"+event+"/resend", url.Values{})
	wantStatus(t, "resend", p, http.StatusSeeOther)
	if loc := p.header.Get("Location"); loc != path {
		t.Fatalf("resend goes to %q", loc)
	}
	rcv.wait(t, 3)
	p = b.get(path)
	if !strings.Contains(p.testid("flash").Text(), "drop.created event is being sent again") {
		t.Fatalf("flash %q", p.testid("flash").Text())
	}
	for deadline := time.Now().Add(5 * time.Second); p.testid("delivery-row").Length() < 3; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d rows", p.testid("delivery-row").Length())
		}
		p = b.get(path)
	}
	if got := p.testid("delivery-state").First().AttrOr("data-state", ""); got != "delivered" || p.testid("delivery-status").First().Text() != "200" {
		t.Fatalf("the newest attempt: %q", strings.Join(strings.Fields(p.testid("delivery-row").First().Text()), " "))
	}

	// Disabled: since when and why; enabled again by staff.
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	if err := s.env.Store.MarkWebhookFailing(ctx, "partner", hook, now.Add(-73*time.Hour)); err != nil {
		t.Fatal(err)
	}
	e, err := s.env.Store.Webhook(ctx, "partner", hook)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := s.env.Store.DisableWebhook(ctx, e, now, "HTTP 503: answered 503", store.Mail{ID: "webhook-test-" + hook, To: "ops@shop.example",
		Kind: store.MailWebhookDisabled, Subject: "disabled", Text: "disabled", CreatedAt: now, Status: store.MailPending}); !ok || err != nil {
		t.Fatalf("disable: %v %v", ok, err)
	}
	p = b.get(path)
	if !strings.HasPrefix(p.testid("webhook-state").Text(), "Disabled since") || p.testid("webhook-last-error").Text() != "HTTP 503: answered 503" {
		t.Fatalf("disabled: %q", strings.Join(strings.Fields(p.testid("webhook-status").Text()), " "))
	}
	if p := b.get("/admin/api-keys"); p.testid("integration-webhook-disabled").Length() != 1 {
		t.Fatal("the integration's card does not say the endpoint is disabled")
	}
	p = b.post(path+"/enable", url.Values{})
	wantStatus(t, "enable", p, http.StatusSeeOther)
	p = b.get(path)
	if !strings.HasPrefix(p.testid("webhook-state").Text(), "Enabled") || p.testid("webhook-failing").Length() != 0 {
		t.Fatalf("enabled: %q", strings.Join(strings.Fields(p.testid("webhook-status").Text()), " "))
	}
}

// The attempts come a page at a time, newest first; "Show more" brings the
// next page's rows (htmx) or the page after (without JavaScript).
func TestAdminWebhookDeliveriesPaged(t *testing.T) {
	t.Parallel()
	var status atomic.Int32
	status.Store(http.StatusInternalServerError)
	rcv := refusingReceiver(t, &status)
	s := newShop(t, withHooksTo(rcv))
	hook, event := hookWithDeliveries(t, s, rcv)
	ctx := context.Background()
	ev, err := s.env.Store.WebhookEvent(ctx, event)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(time.Hour)
	for i := range 30 {
		a := store.WebhookAttempt{At: at.Add(time.Duration(i) * time.Second), Status: 500 + i, Answer: "attempt", Duration: time.Millisecond}
		if ev, err = s.env.Store.RecordWebhookAttempt(ctx, ev, hook, ev.Deliveries[hook], &a); err != nil {
			t.Fatal(err)
		}
	}
	b := s.staff(t)
	p := b.get("/admin/webhooks/partner/" + hook)
	if n := p.testid("delivery-row").Length(); n != 25 || p.testid("delivery-status").First().Text() != "529" {
		t.Fatalf("%d rows, the first %q", n, p.testid("delivery-status").First().Text())
	}
	more, _ := p.testid("deliveries-more").Attr("href")
	rows := b.get(more, "HX-Request", "true")
	wantStatus(t, "more", rows, http.StatusOK)
	if n := rows.testid("delivery-row").Length(); n != 6 || rows.testid("deliveries-more").Length() != 0 || rows.testid("delivery-status").Last().Text() != "500" {
		t.Fatalf("the next page: %d rows", n)
	}
	if p := b.get(more); p.testid("delivery-row").Length() != 6 || p.testid("webhook-url").Length() != 1 {
		t.Fatal("without JavaScript the next page is a whole page")
	}
	wantStatus(t, "a bad cursor", b.get("/admin/webhooks/partner/"+hook+"?after=bogus"), http.StatusBadRequest)
}
