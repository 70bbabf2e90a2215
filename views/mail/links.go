package mail

import (
	"shop/store"
	"shop/web/paths"
)

// Links are where the mails of accounts and orders link to; its methods
// are those mails, which the web handlers (and the settler of held orders)
// put in the outbox with the writes that cause them. BaseURL starts every
// link.
type Links struct {
	BaseURL string
	// GuestOrderLink is the path of a guest's signed link to an order's
	// page, which needs no account (nil: guests' mails link the order's
	// page as customers' do).
	GuestOrderLink func(store.Order) string
}

func (m Links) link(path string) string { return linkTo(m.BaseURL, path) }

// orderLink is the link an order's mails carry, and the message that
// says it: a guest's order's page by its signed link.
func (m Links) orderLink(o store.Order) (link, msgID string) {
	if o.Buyer.Guest && m.GuestOrderLink != nil {
		return m.link(m.GuestOrderLink(o)), "mail.order.guest_link"
	}
	return m.link(paths.Order(o.ID)), "mail.order.link"
}
