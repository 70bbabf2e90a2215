package web_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"shop/store"
	"shop/store/demo"
)

// Staff open an endpoint disabled after days of refusals, resend its
// event from its row (htmx), and enable it; at 1280 and 390 px wide.
// SHOP_SCREENSHOTS keeps the pages.
func TestBrowserWebhookDeliveries(t *testing.T) {
	t.Parallel()
	var status atomic.Int32
	status.Store(http.StatusServiceUnavailable)
	rcv := refusingReceiver(t, &status)
	s := newShop(t, withHooksTo(rcv))
	hook, event := hookWithDeliveries(t, s, rcv)
	ctx := context.Background()
	ev, err := s.env.Store.WebhookEvent(ctx, event)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now()
	for i, a := range []store.WebhookAttempt{
		{Status: 0, Answer: `Post "https://partner.example.com/shop": dial tcp 203.0.113.9:443: i/o timeout`, Duration: 10 * time.Second},
		{Status: 502, Answer: "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>", Duration: 41 * time.Millisecond},
	} {
		a.At = at.Add(time.Duration(i+1) * time.Second)
		if ev, err = s.env.Store.RecordWebhookAttempt(ctx, ev, hook, ev.Deliveries[hook], &a); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.env.Store.MarkWebhookFailing(ctx, "partner", hook, at.Add(-72*time.Hour)); err != nil {
		t.Fatal(err)
	}
	e, err := s.env.Store.Webhook(ctx, "partner", hook)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.env.Store.DisableWebhook(ctx, e, at, "HTTP 502: <html><head><title>502 Bad Gateway</title>", store.Mail{ID: "webhook-test-" + hook,
		To: "ops@shop.example", Kind: store.MailWebhookDisabled, Subject: "disabled", Text: "disabled", CreatedAt: at, Status: store.MailPending}); err != nil {
		t.Fatal(err)
	}
	path := "/admin/webhooks/partner/" + hook

	j := newJourney(t, s.base)
	j.signInAt(path, demo.StaffEmail, demo.StaffPassword, "webhook-status")
	j.htmxReady("the endpoint")
	j.shot("webhook-1-disabled-1280")
	j.do("enable it", chromedp.Click(sel("webhook-enable")), chromedp.WaitVisible(`ins[data-testid="webhook-state"]`))
	j.htmxReady("the endpoint enabled")
	status.Store(http.StatusOK)
	j.do("resend the oldest attempt's event", chromedp.Click(`tr[data-testid="delivery-row"]:last-child `+sel("delivery-resend")),
		chromedp.WaitVisible(sel("delivery-resent")))
	rcv.wait(t, 2)
	j.shot("webhook-2-resent-1280")
	j.do("a phone's width", chromedp.EmulateViewport(390, 844), chromedp.Navigate(s.base+path), chromedp.WaitVisible(sel("deliveries")))
	j.shot("webhook-3-390")
}
