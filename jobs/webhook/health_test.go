package webhook_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"shop/jobs/webhook"
	"shop/store"
)

// refusing runs an endpoint through hours of the test clock, a new event
// every six hours, everything due delivered each hour; ok says whether the
// endpoint answers 2xx in the hour given.
func refusing(t *testing.T, f fixture, rcv *receiver, d *webhook.Deliverer, hook string, hours int, ok func(hour int) bool) {
	t.Helper()
	for h := 0; h <= hours; h++ {
		if h > 0 {
			f.clock.Set(f.clock.Now().Add(time.Hour))
		}
		if h%6 == 0 {
			f.drop(t, hook)
		}
		rcv.status.Store(http.StatusServiceUnavailable)
		if ok(h) {
			rcv.status.Store(http.StatusOK)
		}
		for range 5 {
			sent, failed, err := d.DeliverDue(f.ctx)
			if err != nil {
				t.Fatalf("hour %d: %v", h, err)
			}
			if sent+failed == 0 {
				break
			}
		}
	}
}

func disabledMails(t *testing.T, f fixture) []store.Mail {
	t.Helper()
	out, err := f.st.Outbox(f.ctx, 100, "")
	if err != nil {
		t.Fatal(err)
	}
	var mails []store.Mail
	for _, m := range out.Items {
		if m.Kind == store.MailWebhookDisabled {
			mails = append(mails, m)
		}
	}
	return mails
}

// Three days of refusals disable the endpoint, with one mail to staff
// naming it and its last error; what is still due to it then fails
// without a request, logged; enabled again, it is sent to.
func TestEndpointRefusingThreeDaysIsDisabled(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rcv := newReceiver(t)
	hook, err := f.st.CreateWebhook(f.ctx, "partner", "https://partner.example.com:"+rcv.port()+"/hooks", []string{store.EventDropCreated})
	if err != nil {
		t.Fatal(err)
	}
	d := webhook.New(f.st, webhook.Config{Client: clientFor(rcv), Jitter: func() float64 { return 0 }, StaffMail: "ops@shop.example", Log: quiet})
	start := f.clock.Now()
	refusing(t, f, rcv, d, hook.ID, 71, func(int) bool { return false })
	got, err := f.st.Webhook(f.ctx, "partner", hook.ID)
	if err != nil || got.Disabled || !got.FailingSince.Equal(start) {
		t.Fatalf("after 71 hours: %+v, %v", got, err)
	}
	refusing(t, f, rcv, d, hook.ID, 2, func(int) bool { return false })
	got, err = f.st.Webhook(f.ctx, "partner", hook.ID)
	if err != nil || !got.Disabled || got.DisabledAt.Sub(start) < 72*time.Hour || !strings.Contains(got.LastError, "HTTP 503") {
		t.Fatalf("after three days: %+v, %v", got, err)
	}
	mails := disabledMails(t, f)
	if len(mails) != 1 || mails[0].To != "ops@shop.example" || !strings.Contains(mails[0].Text, hook.URL) ||
		!strings.Contains(mails[0].Text, "HTTP 503") || !strings.Contains(mails[0].Subject, hook.URL) {
		t.Fatalf("mails %+v", mails)
	}
	access, err := f.st.APIAccess(f.ctx)
	if err != nil || len(access.WebhooksFor("partner", store.EventDropCreated)) != 0 {
		t.Fatalf("a disabled endpoint is still addressed: %+v %v", access.Webhooks, err)
	}

	// Still refusing, and more events addressed to it: no request, one mail.
	posts := len(rcv.received())
	refusing(t, f, rcv, d, hook.ID, 12, func(int) bool { return false })
	if n := len(rcv.received()); n != posts {
		t.Fatalf("a disabled endpoint got %d more requests", n-posts)
	}
	if n := len(disabledMails(t, f)); n != 1 {
		t.Fatalf("%d mails", n)
	}
	if due, err := f.st.DueWebhookEvents(f.ctx, 100); err != nil || len(due) != 0 {
		t.Fatalf("still due to a disabled endpoint: %d, %v", len(due), err)
	}
	log, err := f.st.WebhookDeliveries(f.ctx, hook.ID, 1, "")
	if err != nil || len(log.Items) != 1 || log.Items[0].Answer != "not sent: the endpoint is disabled" || log.Items[0].Now != store.DeliveryFailed {
		t.Fatalf("the newest delivery %+v, %v", log.Items, err)
	}

	// Enabled, resent: delivered.
	if _, err := f.st.EnableWebhook(f.ctx, "partner", hook.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.ResendWebhookEvent(f.ctx, "partner", hook.ID, log.Items[0].EventID); err != nil {
		t.Fatal(err)
	}
	rcv.status.Store(http.StatusOK)
	if sent, failed, err := d.DeliverDue(f.ctx); sent != 1 || failed != 0 || err != nil {
		t.Fatalf("after enabling: sent %d failed %d, %v", sent, failed, err)
	}
}

// One 2xx within the three days keeps the endpoint enabled.
func TestEndpointAnsweringOnceStaysEnabled(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rcv := newReceiver(t)
	hook, err := f.st.CreateWebhook(f.ctx, "partner", "https://partner.example.com:"+rcv.port()+"/hooks", []string{store.EventDropCreated})
	if err != nil {
		t.Fatal(err)
	}
	d := webhook.New(f.st, webhook.Config{Client: clientFor(rcv), Jitter: func() float64 { return 0 }, StaffMail: "ops@shop.example", Log: quiet})
	refusing(t, f, rcv, d, hook.ID, 80, func(h int) bool { return h == 48 })
	got, err := f.st.Webhook(f.ctx, "partner", hook.ID)
	if err != nil || got.Disabled || got.FailingSince.IsZero() || f.clock.Now().Sub(got.FailingSince) > 33*time.Hour {
		t.Fatalf("%+v, %v", got, err)
	}
	if n := len(disabledMails(t, f)); n != 0 {
		t.Fatalf("%d mails", n)
	}
}
