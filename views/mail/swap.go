package mail

import (
	"time"

	"shop/store"
	"shop/store/payment"
	"shop/views/lang"
	"shop/web/paths"
)

// SwapGivenBack tells the subscriber of cur that the swap now paid by pi
// was not made and its payment given back; to, when known, is the line
// it was to change to, and why the lang key of the reason (confirmed too
// late, the subscription moved). Its id names the payment, so it goes
// once whoever gives it back.
func SwapGivenBack(base string, now time.Time, cur store.Subscription, pi payment.PaymentIntent, to, why string) *store.Mail {
	l := lang.OrEnglish(cur.Lang)
	manage := linkTo(base, paths.Subscriptions)
	amount, card := lang.MoneyIn(l, pi.Amount), cur.Card.Label()
	subject := lang.In(l, "mail.swapback.subject", "Amount", amount)
	if to != "" {
		subject = lang.In(l, "mail.swapback.subject_to", "To", to, "Amount", amount)
	}
	if why != "" {
		why = lang.In(l, why, "To", to, "Date", longDateIn(l, now))
	}
	body := lang.In(l, "mail.swapback.body", "Product", cur.LineName(), "Amount", amount, "Card", card)
	paragraphs := []string{body, lang.In(l, "mail.swapback.again", "Link", manage)}
	if why != "" {
		paragraphs = append([]string{why}, paragraphs...)
	}
	return &store.Mail{
		ID: store.MailID("swapback", pi.ID), To: cur.Email, Kind: store.MailRefund, Subject: subject,
		Text:       text(l, paragraphs...),
		HTML:       Render(swapBackHTML(l, subject, why, body, manage)),
		CustomerID: cur.AccountID, SubscriptionID: cur.ID, CreatedAt: now, Status: store.MailPending,
	}
}
