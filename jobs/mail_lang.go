package jobs

import (
	"context"
	"time"

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

// longDateIn is a day as a mail writes it: in full in English, as
// lang.DateIn writes it in the others.
func longDateIn(l lang.Lang, d time.Time) string {
	if l == lang.English {
		return d.Format("2 January 2006")
	}
	return lang.DateIn(l, d)
}
