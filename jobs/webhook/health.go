package webhook

import (
	"context"
	"strconv"
	"strings"

	"shop/store"
	"shop/views/mail"
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
	disabled, err := d.store.DisableWebhook(ctx, hook, a.At, why, mail.WebhookDisabled(d.cfg.StaffMail, hook, a.At, why))
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
