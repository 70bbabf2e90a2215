package mail

import (
	"slices"
	"time"

	"shop/store"
	"shop/views/lang"
	"shop/web/paths"
)

// Receipt is a subscription payment's receipt's mail, once per receipt
// (its id); the receipt itself is attached when it is sent.
func Receipt(base string, now time.Time, rec store.Receipt) *store.Mail {
	l := lang.OrEnglish(rec.Lang)
	link := linkTo(base, paths.Receipt(rec.Number))
	return &store.Mail{
		ID: store.MailID("receipt", rec.SubscriptionID, rec.Number), To: rec.Email, Kind: store.MailReceipt,
		Subject: lang.In(l, "mail.receipt.subject", "Number", rec.NumberInBooks(), "Product", rec.NameIn(string(l))),
		Text: text(l, slices.DeleteFunc([]string{
			lang.In(l, "mail.receipt.charged", "Amount", lang.MoneyIn(l, rec.Amount), "Card", rec.Card.Label(), "Product", rec.NameIn(string(l)),
				"From", longDateIn(l, rec.PeriodStart), "To", longDateIn(l, rec.PeriodEnd)),
			receiptCodeLine(l, rec), receiptDeliveryLine(l, rec),
			lang.In(l, "mail.receipt.link", "Number", rec.NumberInBooks(), "Link", link)}, func(p string) bool { return p == "" })...),
		HTML:       Render(receiptHTML(l, rec, link)),
		CustomerID: rec.AccountID, SubscriptionID: rec.SubscriptionID, CreatedAt: now, Status: store.MailPending,
		AttachReceipt: rec.Number, // the receipt, rendered when sent
	}
}

// receiptDeliveryLine is the delivery a receipt's payment carried, as
// the receipt's page shows it; "" for none.
func receiptDeliveryLine(l lang.Lang, rec store.Receipt) string {
	if rec.Shipping.Amount <= 0 {
		return ""
	}
	return lang.In(l, "mail.receipt.delivery", "Amount", lang.MoneyIn(l, rec.Shipping))
}

// receiptCodeLine names the discount code a receipt's payment took, as
// the receipt's page does; "" for none.
func receiptCodeLine(l lang.Lang, rec store.Receipt) string {
	if rec.DiscountCode == "" || rec.Discount.Amount <= 0 {
		return ""
	}
	return lang.In(l, "mail.receipt.code", "Code", rec.DiscountCode, "Amount", lang.MoneyIn(l, rec.Discount))
}

// ReceiptRefund is the mail of a receipt's refund, to its customer; the
// receipt page links it. Staff's refunds and cancellations send it, and
// so do the card refunds as the provider confirms them. A cancellation's
// refund from two receipts sends one, the receipt's whose refund names
// the other's part (With): the total, and what goes back from which
// receipt to which card; the other's sends none. A top-up says what came
// back of the payment in all.
func ReceiptRefund(base string, now time.Time, rec store.Receipt) *store.Mail {
	if rec.Refund == nil || rec.Refund.MailedWith != "" {
		return nil
	}
	l := lang.OrEnglish(rec.Lang)
	link := linkTo(base, paths.Receipt(rec.Number))
	t := receiptRefundTexts(l, rec)
	id := store.MailID("subrefund", rec.Number)
	if rec.RefundedBefore.Amount > 0 { // a top-up: a refund of its own after the receipt's first
		id = store.MailID("subrefund", rec.Number, rec.Refund.Key)
	}
	return &store.Mail{
		ID: id, To: rec.Email, Kind: store.MailReceiptRefund, Subject: t.subject,
		Text:       text(l, slices.DeleteFunc([]string{t.body, t.inAll, lang.In(l, "mail.receipt.link", "Number", rec.NumberInBooks(), "Link", link)}, func(p string) bool { return p == "" })...),
		HTML:       Render(receiptRefundHTML(l, rec, t, link)),
		CustomerID: rec.AccountID, SubscriptionID: rec.SubscriptionID, CreatedAt: now, Status: store.MailPending,
	}
}

// refundTexts are a receipt refund mail's words: what was refunded in all
// (total), the subject, the body and, after a top-up, what came back of
// the payment in all.
type refundTexts struct{ total, subject, body, inAll string }

func receiptRefundTexts(l lang.Lang, rec store.Receipt) refundTexts {
	rf := rec.Refund
	refund := lang.MoneyIn(l, rf.Amount)
	t := refundTexts{total: refund, subject: lang.In(l, "mail.subrefund.subject", "Amount", refund, "Number", rec.NumberInBooks()),
		body: lang.In(l, "mail.subrefund.body", "Refund", refund, "Amount", lang.MoneyIn(l, rec.Amount), "Product", rec.NameIn(string(l)),
			"Card", rec.Card.Label(), "Reason", rf.Reason)}
	if w := rf.With; w != nil {
		t.total = lang.MoneyIn(l, store.Money{Amount: rf.Amount.Amount + w.Amount.Amount, Currency: rf.Amount.Currency})
		t.subject = lang.In(l, "mail.subrefund.subject_two", "Amount", t.total, "Number", rec.NumberInBooks(), "Other", w.Number)
		t.body = lang.In(l, "mail.subrefund.body_two", "Total", t.total, "Product", rec.NameIn(string(l)), "Reason", rf.Reason,
			"Refund", refund, "Number", rec.NumberInBooks(), "Card", rec.Card.Label(), "OtherRefund", lang.MoneyIn(l, w.Amount), "Other", w.Number, "OtherCard", w.Card)
	}
	if rec.RefundedBefore.Amount > 0 {
		t.inAll = lang.In(l, "mail.subrefund.in_all", "Before", lang.MoneyIn(l, rec.RefundedBefore), "Total", lang.MoneyIn(l, rec.Refunded()), "Amount", lang.MoneyIn(l, rec.Amount))
	}
	return t
}
