package jobs

import (
	"context"
	"fmt"
	"html"
	"strings"
	"time"

	"github.com/a-h/templ"

	"shop/views/lang"
)

// The mails are written in the customer's language, copied onto the
// subscription, receipt or order like the email (see MailLang), so that
// no mail reads the customer's record to know it.

// mailLang is the language of a mail to a record's customer: English for a
// record from before languages ("").
func mailLang(code string) lang.Lang {
	if l, ok := lang.Parse(code); ok {
		return l
	}
	return lang.English
}

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

// strong is a value the HTML part of a mail shows in bold.
type strong string

// anchor is a value the HTML part shows as a link, its text a message of
// its own.
type anchor struct{ URL, Text string }

// rich is a message as HTML: its text escaped, strong values in bold and
// anchors as links. The values go in as markers and are put in after
// escaping, so a message never needs HTML in the catalogue.
func rich(l lang.Lang, id string, args ...any) templ.Component {
	marked := make([]any, len(args))
	put := map[string]string{}
	for i, a := range args {
		if i%2 == 0 {
			marked[i] = a
			continue
		}
		marker := fmt.Sprintf("\uE000%d\uE001", i/2)
		marked[i] = marker
		switch a := a.(type) {
		case strong:
			put[marker] = "<strong>" + html.EscapeString(string(a)) + "</strong>"
		case anchor:
			put[marker] = `<a href="` + html.EscapeString(a.URL) + `">` + html.EscapeString(a.Text) + "</a>"
		default:
			put[marker] = html.EscapeString(fmt.Sprint(a))
		}
	}
	s := html.EscapeString(lang.In(l, id, marked...))
	for marker, v := range put {
		s = strings.ReplaceAll(s, marker, v)
	}
	return templ.Raw(s)
}
