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
		return longDate(d)
	}
	return lang.DateIn(l, d)
}

// monthYearIn is the month a card stops paying in (its expiry is the day
// after): "April 2026", "2026년 4월".
func monthYearIn(l lang.Lang, t time.Time) string {
	return lang.Month(lang.With(context.Background(), l), t.UTC().AddDate(0, 0, -1))
}
