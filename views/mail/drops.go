package mail

import (
	"fmt"
	"time"

	"shop/store"
	"shop/views/lang"
)

// DropCancelled tells a ticket's holder the drop is off, in their
// language (their record is read for the address anyway).
func DropCancelled(d store.Drop, t store.Ticket, cust store.Customer, now time.Time, loc *time.Location) store.Mail {
	l := lang.OrEnglish(cust.Lang)
	claimed := t.CreatedAt.In(loc).Format("2 January 2006 at 15:04 MST")
	if l != lang.English {
		claimed = lang.DateTimeIn(l, t.CreatedAt.In(loc))
	}
	return store.Mail{
		ID: store.DropCancelMailID(d.ID, t.Client), To: cust.Email, Kind: store.MailDropCancelled,
		Subject: lang.In(l, "mail.drop.subject", "Drop", d.Title),
		Text: fmt.Sprintf("%s\n\n%s\n\nFika & Field\n", Hello(l, cust.Name),
			lang.In(l, "mail.drop.body", "Drop", d.Title, "Claimed", claimed)),
		CustomerID: cust.ID, CreatedAt: now, Status: store.MailPending,
	}
}
