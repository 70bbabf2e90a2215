package jobs

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"shop/store"
	"shop/views/lang"
	"shop/views/mail"
	"shop/web/paths"
)

func longDate(d time.Time) string { return d.Format("2 January 2006") }

func (r *Runner) link(path string) string { return link(r.cfg.BaseURL, path) }

func link(base, path string) string { return strings.TrimRight(base, "/") + path }

// mailText is a mail's plain-text part: a greeting, the paragraphs and
// the shop's name.
func mailText(l lang.Lang, paragraphs ...string) string {
	return lang.In(l, "mail.hello") + "\n\n" + strings.Join(paragraphs, "\n\n") + "\n\nFika & Field\n"
}

// mailReminder is the reminder of a subscription's next payment; its id
// makes it once per payment.
func (r *Runner) mailReminder(s store.Subscription) *store.Mail {
	l := lang.OrEnglish(s.Lang)
	manage := r.link(paths.Subscriptions)
	date, amount := longDateIn(l, s.NextPaymentDate), lang.MoneyIn(l, s.AmountFor(s.NextPaymentDate))
	return &store.Mail{
		ID: store.MailID("reminder", s.ID, store.FormatDate(s.NextPaymentDate)), To: s.Email, Kind: store.MailReminder,
		Subject: lang.In(l, "mail.reminder.subject", "Product", s.NameIn(string(l)), "Date", date),
		Text: mailText(l, lang.In(l, "mail.reminder.body", "Date", date, "Amount", amount, "Card", s.Card.Label(), "Product", s.NameIn(string(l))),
			lang.In(l, "mail.reminder.manage", "Link", manage)),
		HTML:       mail.Render(reminderHTML(l, s, manage)),
		CustomerID: s.AccountID, SubscriptionID: s.ID, CreatedAt: r.store.Now(), Status: store.MailPending,
	}
}

func (r *Runner) mailReceipt(rec store.Receipt) *store.Mail {
	return receiptMail(r.cfg.BaseURL, r.store.Now(), rec)
}

// receiptMail is a receipt's mail, once per receipt (its id).
func receiptMail(base string, now time.Time, rec store.Receipt) *store.Mail {
	l := lang.OrEnglish(rec.Lang)
	link := link(base, paths.Receipt(rec.Number))
	return &store.Mail{
		ID: store.MailID("receipt", rec.SubscriptionID, rec.Number), To: rec.Email, Kind: store.MailReceipt,
		Subject: lang.In(l, "mail.receipt.subject", "Number", rec.NumberInBooks(), "Product", rec.NameIn(string(l))),
		Text: mailText(l, slices.DeleteFunc([]string{
			lang.In(l, "mail.receipt.charged", "Amount", lang.MoneyIn(l, rec.Amount), "Card", rec.Card.Label(), "Product", rec.NameIn(string(l)),
				"From", longDateIn(l, rec.PeriodStart), "To", longDateIn(l, rec.PeriodEnd)),
			receiptCodeLine(l, rec), receiptDeliveryLine(l, rec),
			lang.In(l, "mail.receipt.link", "Number", rec.NumberInBooks(), "Link", link)}, func(p string) bool { return p == "" })...),
		HTML:       mail.Render(receiptHTML(l, rec, link)),
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

// mailFailed tells of a decline: the retry date and a link to change the
// card, or, after the last retry, that the subscription ended.
func (r *Runner) mailFailed(s store.Subscription, reason string) *store.Mail {
	l := lang.OrEnglish(s.Lang)
	if s.Status == store.SubscriptionCancelled {
		return r.mailEnded(s, lang.In(l, "mail.failed.gave_up", "Amount", lang.MoneyIn(l, s.Amount()), "Card", s.Card.Label(), "Tries", s.Attempt, "Reason", reason))
	}
	link := r.link(paths.Subscriptions)
	return &store.Mail{
		ID: store.MailID("payfail", s.ID, store.FormatDate(s.NextPaymentDate), fmt.Sprintf("a%d", s.Attempt)), To: s.Email, Kind: store.MailPaymentFailed,
		Subject: lang.In(l, "mail.failed.subject", "Product", s.NameIn(string(l))),
		Text: mailText(l, lang.In(l, "mail.failed.declined", "Amount", lang.MoneyIn(l, s.Amount()), "Card", s.Card.Label(), "Reason", reason)+"\n"+
			lang.In(l, "mail.failed.retry", "Date", longDateIn(l, s.RetryDate), "Link", link)),
		HTML:       mail.Render(failedHTML(l, s, reason, link)),
		CustomerID: s.AccountID, SubscriptionID: s.ID, CreatedAt: r.store.Now(), Status: store.MailPending,
	}
}

func (r *Runner) mailCancelled(s store.Subscription) *store.Mail {
	return r.mailEnded(s, lang.In(lang.OrEnglish(s.Lang), "mail.cancelled.as_asked"))
}

func (r *Runner) mailEnded(s store.Subscription, reason string) *store.Mail {
	l := lang.OrEnglish(s.Lang)
	link := r.link(paths.Product(s.ProductID))
	return &store.Mail{
		ID: store.MailID("cancelled", s.ID), To: s.Email, Kind: store.MailCancelled,
		Subject:    lang.In(l, "mail.cancelled.subject", "Product", s.NameIn(string(l))),
		Text:       mailText(l, reason, lang.In(l, "mail.cancelled.again", "Link", link)),
		HTML:       mail.Render(cancelledHTML(l, s, reason, link)),
		CustomerID: s.AccountID, SubscriptionID: s.ID, CreatedAt: r.store.Now(), Status: store.MailPending,
	}
}

// mailCardExpiring warns that the card stops paying before the next
// payment; its id names the subscription, the card and the payment, so it
// goes once per card per payment.
func (r *Runner) mailCardExpiring(s store.Subscription, expires time.Time) *store.Mail {
	l := lang.OrEnglish(s.Lang)
	manage := r.link(paths.Subscriptions)
	month := monthYearIn(l, expires)
	return &store.Mail{
		ID: store.MailID("cardexp", s.ID, s.Card.Last4, store.FormatDate(s.NextPaymentDate)), To: s.Email, Kind: store.MailCardExpiring,
		Subject: lang.In(l, "mail.cardexp.subject", "Card", s.Card.Label(), "Product", s.NameIn(string(l))),
		Text: mailText(l, lang.In(l, "mail.cardexp.body", "Card", s.Card.Label(), "Month", month, "Amount", lang.MoneyIn(l, s.AmountFor(s.NextPaymentDate)),
			"Product", s.NameIn(string(l)), "Date", longDateIn(l, s.NextPaymentDate))+"\n"+lang.In(l, "mail.cardexp.add", "Link", manage)),
		HTML:       mail.Render(cardExpiringHTML(l, s, month, manage)),
		CustomerID: s.AccountID, SubscriptionID: s.ID, CreatedAt: r.store.Now(), Status: store.MailPending,
	}
}

// mailPriceChange announces a product's new monthly price to a subscriber,
// once per subscription and change (its id).
func (r *Runner) mailPriceChange(s store.Subscription, c store.PriceChange, from time.Time) *store.Mail {
	l := lang.OrEnglish(s.Lang)
	manage := r.link(paths.Subscriptions)
	sub := s
	sub.NewPrice, sub.NewPriceFrom = c.New, from
	date := longDateIn(l, from)
	return &store.Mail{
		ID: store.MailID("price", c.ProductID, store.FormatDate(c.EffectiveOn), s.ID), To: s.Email, Kind: store.MailPriceChange,
		Subject: lang.In(l, "mail.price.subject", "Product", s.NameIn(string(l)), "Date", date),
		Text: mailText(l, lang.In(l, "mail.price.body", "Product", s.NameIn(string(l)), "Old", lang.MoneyIn(l, s.MonthlyPrice), "New", lang.MoneyIn(l, c.New),
			"Date", date, "Payment", lang.MoneyIn(l, sub.AmountFor(from)))+"\n"+lang.In(l, "mail.price.change", "Link", manage)),
		HTML:       mail.Render(priceChangeHTML(l, s, c.New, sub.AmountFor(from), date, manage)),
		CustomerID: s.AccountID, SubscriptionID: s.ID, CreatedAt: r.store.Now(), Status: store.MailPending,
	}
}

// ReceiptRefundMail is the mail of a receipt's refund, to its customer;
// the receipt page links it. Staff's refunds and cancellations send it.
// A cancellation's refund from two receipts sends one, the receipt's whose
// refund names the other's part (With): the total, and what goes back from
// which receipt to which card; the other's sends none. A top-up says what
// came back of the payment in all.
func ReceiptRefundMail(baseURL string, now time.Time, rec store.Receipt) *store.Mail {
	if rec.Refund == nil || rec.Refund.MailedWith != "" {
		return nil
	}
	if baseURL == "" {
		baseURL = Config{}.withDefaults().BaseURL
	}
	l := lang.OrEnglish(rec.Lang)
	link := link(baseURL, paths.Receipt(rec.Number))
	t := receiptRefundTexts(l, rec)
	id := store.MailID("subrefund", rec.Number)
	if rec.RefundedBefore.Amount > 0 { // a top-up: a refund of its own after the receipt's first
		id = store.MailID("subrefund", rec.Number, rec.Refund.Key)
	}
	return &store.Mail{
		ID: id, To: rec.Email, Kind: store.MailReceiptRefund, Subject: t.subject,
		Text:       mailText(l, slices.DeleteFunc([]string{t.body, t.inAll, lang.In(l, "mail.receipt.link", "Number", rec.NumberInBooks(), "Link", link)}, func(p string) bool { return p == "" })...),
		HTML:       mail.Render(receiptRefundHTML(l, rec, t, link)),
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
