package jobs

import (
	"context"

	"shop/views/lang"
)

// The mails are written in the customer's language, copied onto the
// subscription, receipt or order like the email (see MailLang), so that
// no mail reads the customer's record to know it (lang.OrEnglish).

// MailLang is the language to copy onto what a customer makes (an order,
// a subscription), for its mails: the customer's own, or the language of
// the page they acted on when their record has none yet.
func MailLang(ctx context.Context, customerLang string) string {
	if l, ok := lang.Parse(customerLang); ok {
		return string(l)
	}
	return string(lang.From(ctx))
}
