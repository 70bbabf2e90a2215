package mail

import (
	"fmt"
	"strings"
	"time"

	"shop/store"
	"shop/views/lang"
	"shop/web/paths"
)

// OrderRefund is the customer's mail of a refund or cancellation of an
// order, in the buyer's language at checkout, for the store to queue in
// the refund's own transaction (see store.OrderRefundRequest.Mail): its id
// is the refund's, so it is queued once however often the refund is sent.
// baseURL starts its link.
func OrderRefund(baseURL string, now func() time.Time) func(store.Refund, store.Order) *store.Mail {
	return func(r store.Refund, o store.Order) *store.Mail {
		if o.Buyer.Email == "" {
			return nil // an order from before orders kept their buyer: no address to write to
		}
		l := lang.OrEnglish(o.Buyer.Lang)
		link := strings.TrimRight(baseURL, "/") + paths.Order(o.ID)
		var lines strings.Builder
		for _, line := range r.Lines {
			fmt.Fprintf(&lines, "- %d × %s\n", line.Quantity, line.NameIn(string(l)))
		}
		if r.Shipping.Amount > 0 {
			fmt.Fprintf(&lines, "- %s\n", refundDelivery(l, r))
		}
		return &store.Mail{
			ID: store.MailID("refund", o.ID, r.ID), To: o.Buyer.Email, Kind: store.MailRefund,
			Subject: refundSubject(l, r, o),
			Text: fmt.Sprintf("%s\n\n%s\n\n%s\n%s\n\n%s\n\nFika & Field\n", lang.In(l, "mail.hello"), refundOpening(l, r, o), lines.String(),
				refundWhere(l, r), lang.In(l, "mail.refund.see", "Link", link)),
			HTML:       Render(refundHTML(l, r, o, link)),
			CustomerID: o.CustomerID, CreatedAt: now(), Status: store.MailPending,
		}
	}
}

func refundSubject(l lang.Lang, r store.Refund, o store.Order) string {
	if r.Cancel {
		return lang.In(l, "mail.refund.subject_cancel", "Order", o.Label())
	}
	return lang.In(l, "mail.refund.subject", "Amount", lang.MoneyIn(l, r.Amount), "Order", o.Label())
}

func refundOpening(l lang.Lang, r store.Refund, o store.Order) string {
	if r.Cancel {
		return lang.In(l, "mail.refund.cancelled", "Order", o.Label())
	}
	return lang.In(l, "mail.refund.refunded", "Amount", lang.MoneyIn(l, r.Amount), "Order", o.Label(), "Reason", r.Reason)
}

// refundWhere says where the money goes back.
func refundWhere(l lang.Lang, r store.Refund) string {
	switch {
	case r.Amount.Amount == 0:
		return lang.In(l, "mail.refund.nothing")
	case r.GiftCard.Amount > 0 && r.Card.Amount > 0:
		return lang.In(l, "mail.refund.split", "GiftCard", lang.MoneyIn(l, r.GiftCard), "Card", lang.MoneyIn(l, r.Card))
	case r.GiftCard.Amount > 0:
		return lang.In(l, "mail.refund.giftcard", "GiftCard", lang.MoneyIn(l, r.GiftCard))
	}
	return lang.In(l, "mail.refund.card", "Card", lang.MoneyIn(l, r.Card))
}

// refundDelivery is the line of delivery given back: "Delivery €4.90".
func refundDelivery(l lang.Lang, r store.Refund) string {
	return lang.In(l, "orders.refund.delivery", "Amount", lang.MoneyIn(l, r.Shipping))
}
