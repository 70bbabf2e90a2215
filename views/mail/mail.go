// Package mail is the one home of the shop's mails: what each says (its
// subject, text and HTML, its id and kind), in the customer's language, as
// a store.Mail the outbox keeps. Handlers and jobs alike take their mails
// from here, so one mail is written in one place: they decide when a mail
// goes and pass what it tells of (the base URL its links start with, the
// time, the records); this package imports neither. One file a subject:
// a subscription's payments (subscription.go, trial.go, swap.go), its
// receipts (receipt.go), orders (order.go, refund.go, returns.go), an
// account's links (account.go), drops (drops.go) and staff's mail of a
// disabled webhook endpoint (webhook.go).
package mail

import (
	"bytes"
	"context"
	"strings"
	"time"

	"github.com/a-h/templ"

	"shop/views/lang"
)

// Render is a mail's HTML part; a part that fails to render is left out
// (the text part still says it all).
func Render(c templ.Component) string {
	var b bytes.Buffer
	if err := c.Render(context.Background(), &b); err != nil {
		return ""
	}
	return b.String()
}

// Hello greets the customer by name, or without one.
func Hello(l lang.Lang, name string) string {
	if name == "" {
		return lang.In(l, "mail.hello_anon")
	}
	return lang.In(l, "mail.hello_name", "Name", name)
}

// linkTo is the link to path on the shop at base.
func linkTo(base, path string) string { return strings.TrimRight(base, "/") + path }

// signature ends the plain-text part of the mails of accounts and orders.
const signature = "\nFika & Field\n"

// text is a mail's plain-text part: a greeting, the paragraphs and the
// shop's name.
func text(l lang.Lang, paragraphs ...string) string {
	return lang.In(l, "mail.hello") + "\n\n" + strings.Join(paragraphs, "\n\n") + "\n\nFika & Field\n"
}

// longDateIn is a day as a mail writes it: in full in English, as
// lang.DateIn writes it in the others.
func longDateIn(l lang.Lang, d time.Time) string {
	if l == lang.English {
		return d.Format("2 January 2006")
	}
	return lang.DateIn(l, d)
}

// monthYearIn is the month a card stops paying in (its expiry is the day
// after): "April 2026", "2026년 4월".
func monthYearIn(l lang.Lang, t time.Time) string {
	return lang.Month(lang.With(context.Background(), l), t.UTC().AddDate(0, 0, -1))
}

// The mails are written in the customer's language, copied onto the
// subscription, receipt or order like the email (see Lang), so that no
// mail reads the customer's record to know it (lang.OrEnglish).

// Lang is the language to copy onto what a customer makes (an order, a
// subscription), for its mails: the customer's own, or the language of
// the page they acted on when their record has none yet.
func Lang(ctx context.Context, customerLang string) string {
	if l, ok := lang.Parse(customerLang); ok {
		return string(l)
	}
	return string(lang.From(ctx))
}
