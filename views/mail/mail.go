// Package mail is the home of the shop's mails: what each says, in the
// customer's language, as a store.Mail the outbox keeps. Handlers and jobs
// alike take their mails from here, so one mail is written in one place.
// The mails staff's actions send (returns, a drop cancelled) live here
// now; the jobs' mails are to follow them in.
package mail

import (
	"bytes"
	"context"

	"github.com/a-h/templ"

	"shop/views/lang"
)

// Render is a mail's HTML part; a part that fails to render is left out
// (the text part still says it all). The jobs' mails use it too.
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
