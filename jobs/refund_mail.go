package jobs

import (
	"fmt"
	"strings"
	"time"

	"shop/store"
	"shop/web/paths"
)

// RefundMail is the customer's mail of a refund or cancellation of an
// order, for the store to queue in the refund's own transaction (see
// store.OrderRefundRequest.Mail): its id is the refund's, so it is queued
// once however often the refund is sent. baseURL starts its link.
func RefundMail(baseURL string, now func() time.Time) func(store.Refund, store.Order) *store.Mail {
	return func(r store.Refund, o store.Order) *store.Mail {
		if o.Buyer.Email == "" {
			return nil // an order from before orders kept their buyer: no address to write to
		}
		link := strings.TrimRight(baseURL, "/") + paths.Order(o.ID)
		var lines strings.Builder
		for _, l := range r.Lines {
			fmt.Fprintf(&lines, "- %d × %s\n", l.Quantity, l.ProductName)
		}
		opening := fmt.Sprintf("We have refunded %s on your order %s: %s.", r.Amount, o.Label(), r.Reason)
		if r.Cancel {
			opening = fmt.Sprintf("Your order %s is cancelled, as you asked, and nothing of it will ship.", o.Label())
		}
		return &store.Mail{
			ID: "refund-" + o.ID + "-" + r.ID, To: o.Buyer.Email, Kind: store.MailRefund,
			Subject:    refundSubject(r, o),
			Text:       fmt.Sprintf("Hello,\n\n%s\n\n%s\n%s\n\nSee your order: %s\n\nFika & Field\n", opening, lines.String(), refundWhere(r), link),
			HTML:       render(refundHTML(r, o, link)),
			CustomerID: o.CustomerID, CreatedAt: now(), Status: store.MailPending,
		}
	}
}

func refundSubject(r store.Refund, o store.Order) string {
	if r.Cancel {
		return fmt.Sprintf("Your order %s is cancelled", o.Label())
	}
	return fmt.Sprintf("A refund of %s on your order %s", r.Amount, o.Label())
}

// refundWhere says where the money goes back.
func refundWhere(r store.Refund) string {
	switch {
	case r.Amount.Amount == 0:
		return "Nothing was paid, so nothing is refunded."
	case r.GiftCard.Amount > 0 && r.Card.Amount > 0:
		return fmt.Sprintf("%s goes back to your gift card at once, and %s to your card within a few days.", r.GiftCard, r.Card)
	case r.GiftCard.Amount > 0:
		return fmt.Sprintf("%s goes back to your gift card at once.", r.GiftCard)
	}
	return fmt.Sprintf("%s goes back to your card within a few days.", r.Card)
}
