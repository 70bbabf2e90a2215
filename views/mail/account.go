package mail

import (
	"fmt"
	"time"

	"shop/store"
	"shop/views/lang"
)

// linkUntil is when a mailed link stops working, in the shop's zone.
func linkUntil(l lang.Lang, t time.Time) string {
	if l == lang.English {
		return t.Format("2 January 2006, 15:04")
	}
	return lang.DateTimeIn(l, t)
}

// linkStamp is when an account link was made, to the millisecond, for its
// mail's id: digits only (20261128T011055808). Ids with the dot of
// "20261128T011055.808" could not be opened in the outbox; the outbox's
// page still accepts those of before (store.OutboxID).
func linkStamp(t time.Time) string {
	return t.UTC().Format("20060102T150405") + fmt.Sprintf("%03d", t.Nanosecond()/1e6)
}

// VerifyEmail mails the verification link (path holds the signed token),
// in the new customer's language.
func (m Links) VerifyEmail(c store.Customer, l store.AccountLink, path string, loc *time.Location) store.Mail {
	lg := lang.OrEnglish(c.Lang)
	link := m.link(path)
	until := linkUntil(lg, l.ValidUntil.In(loc))
	return store.Mail{
		ID: store.MailID("verify", l.CustomerID, linkStamp(l.CreatedAt)), To: l.Email, Kind: store.MailVerifyEmail,
		Subject: lang.In(lg, "mail.verify.subject"),
		Text: fmt.Sprintf("%s\n\n%s\n%s\n\n%s\n%s", lang.In(lg, "mail.verify.welcome", "Name", c.Name), lang.In(lg, "mail.verify.confirm"),
			link, lang.In(lg, "mail.verify.until", "Until", until), signature),
		HTML:       Render(verifyEmailHTML(lg, c.Name, link, until)),
		CustomerID: l.CustomerID, CreatedAt: l.CreatedAt, Status: store.MailPending,
	}
}

// PasswordReset mails the reset link (path holds the signed token) in
// language lg: the page's the person asked on (see Lang).
func (m Links) PasswordReset(lg string, name string, l store.AccountLink, path string) store.Mail {
	in := lang.OrEnglish(lg)
	link := m.link(path)
	return store.Mail{
		ID: store.MailID("reset", l.CustomerID, linkStamp(l.CreatedAt)), To: l.Email, Kind: store.MailPasswordReset,
		Subject: lang.In(in, "mail.reset.subject"),
		Text: fmt.Sprintf("%s\n\n%s\n%s\n\n%s\n%s", lang.In(in, "mail.hello_name", "Name", name), lang.In(in, "mail.reset.asked"),
			link, lang.In(in, "mail.reset.once"), signature),
		HTML:       Render(passwordResetHTML(in, name, link)),
		CustomerID: l.CustomerID, CreatedAt: l.CreatedAt, Status: store.MailPending,
	}
}
