package webhook

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"shop/store"
)

// answered reports whether an attempt got a 2xx.
func answered(a store.WebhookAttempt) bool { return a.Status >= 200 && a.Status < 300 }

// health keeps the endpoint's record of failing after attempt a, writing
// only when it changes: a 2xx forgets its refusals; its first refusal
// since one is noted; a refusal DisableAfter past that disables it and
// mails staff, once (the store's condition). It reports whether this
// attempt disabled the endpoint.
func (d *Deliverer) health(ctx context.Context, hook store.WebhookEndpoint, a store.WebhookAttempt) (bool, error) {
	switch {
	case answered(a):
		if hook.FailingSince.IsZero() {
			return false, nil
		}
		return false, d.store.MarkWebhookAnswering(ctx, hook.Integration, hook.ID)
	case hook.FailingSince.IsZero():
		return false, d.store.MarkWebhookFailing(ctx, hook.Integration, hook.ID, a.At)
	case a.At.Sub(hook.FailingSince) < d.cfg.DisableAfter:
		return false, nil
	}
	why := lastError(a)
	disabled, err := d.store.DisableWebhook(ctx, hook, a.At, why, d.disabledMail(hook, a.At, why))
	if err != nil {
		return false, err
	}
	if disabled {
		d.cfg.Log.Warn("webhook endpoint disabled", "endpoint", hook.ID, "owner", hook.Integration, "url", hook.URL,
			"failing_since", hook.FailingSince, "last_error", why)
	}
	return disabled, nil
}

// lastError is how an attempt failed, in a line: the status and the
// answer's first bytes, or why no answer came.
func lastError(a store.WebhookAttempt) string {
	answer := strings.Join(strings.Fields(a.Answer), " ")
	if a.Status == 0 {
		return "no answer: " + answer
	}
	if answer == "" {
		return "HTTP " + strconv.Itoa(a.Status)
	}
	return "HTTP " + strconv.Itoa(a.Status) + ": " + answer
}

// disabledMail is staff's mail about a disabled endpoint: which, whose,
// failing since when, and its last error. Its id is the endpoint's and
// the time, so a retried transaction cannot mail twice.
func (d *Deliverer) disabledMail(hook store.WebhookEndpoint, at time.Time, why string) store.Mail {
	subject := fmt.Sprintf("Webhook endpoint disabled: %s", hook.URL)
	text := fmt.Sprintf("The webhook endpoint %s of %s (id %s) has refused every delivery since %s and is disabled: "+
		"no events are sent to it any more.\n\nIts last error, at %s:\n%s\n\n"+
		"Enable it again on the console's page of the endpoint, or through the API (POST /api/v1/webhooks/%s/enable), "+
		"then resend the deliveries it missed.\n",
		hook.URL, hook.Integration, hook.ID, hook.FailingSince.UTC().Format(time.RFC1123), at.UTC().Format(time.RFC1123), why, hook.ID)
	return store.Mail{ID: store.MailID("webhook-disabled", hook.ID, strconv.FormatInt(at.UnixMilli(), 10)), To: d.cfg.StaffMail,
		Kind: store.MailWebhookDisabled, Subject: subject, Text: text, CreatedAt: at, Status: store.MailPending}
}
