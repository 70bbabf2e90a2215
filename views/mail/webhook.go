package mail

import (
	"fmt"
	"strconv"
	"time"

	"shop/store"
)

// WebhookDisabled is staff's mail (to the address staff) about an
// endpoint disabled at at: which, whose, failing since when, and its last
// error (why). Its id is the endpoint's and the time, so a retried
// transaction cannot mail twice.
func WebhookDisabled(staff string, hook store.WebhookEndpoint, at time.Time, why string) store.Mail {
	subject := fmt.Sprintf("Webhook endpoint disabled: %s", hook.URL)
	text := fmt.Sprintf("The webhook endpoint %s of %s (id %s) has refused every delivery since %s and is disabled: "+
		"no events are sent to it any more.\n\nIts last error, at %s:\n%s\n\n"+
		"Enable it again on the console's page of the endpoint, or through the API (POST /api/v1/webhooks/%s/enable), "+
		"then resend the deliveries it missed.\n",
		hook.URL, hook.Integration, hook.ID, hook.FailingSince.UTC().Format(time.RFC1123), at.UTC().Format(time.RFC1123), why, hook.ID)
	return store.Mail{ID: store.MailID("webhook-disabled", hook.ID, strconv.FormatInt(at.UnixMilli(), 10)), To: staff,
		Kind: store.MailWebhookDisabled, Subject: subject, Text: text, CreatedAt: at, Status: store.MailPending}
}
