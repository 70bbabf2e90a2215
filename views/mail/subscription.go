package mail

import (
	"fmt"
	"time"

	"shop/store"
	"shop/views/lang"
	"shop/web/paths"
)

// The mails of a subscription's payments, in its language (copied onto
// it, so no mail reads the customer's record). The jobs decide when each
// goes; base starts their links and now is when each was written. Each
// id makes the mail once: per payment, per attempt, per card.

// Reminder is the reminder of a subscription's next payment; its id makes
// it once per payment.
func Reminder(base string, now time.Time, s store.Subscription) *store.Mail {
	l := lang.OrEnglish(s.Lang)
	manage := linkTo(base, paths.Subscriptions)
	date, amount := longDateIn(l, s.NextPaymentDate), lang.MoneyIn(l, s.AmountFor(s.NextPaymentDate))
	return &store.Mail{
		ID: store.MailID("reminder", s.ID, store.FormatDate(s.NextPaymentDate)), To: s.Email, Kind: store.MailReminder,
		Subject: lang.In(l, "mail.reminder.subject", "Product", s.NameIn(string(l)), "Date", date),
		Text: text(l, lang.In(l, "mail.reminder.body", "Date", date, "Amount", amount, "Card", s.Card.Label(), "Product", s.NameIn(string(l))),
			lang.In(l, "mail.reminder.manage", "Link", manage)),
		HTML:       Render(reminderHTML(l, s, manage)),
		CustomerID: s.AccountID, SubscriptionID: s.ID, CreatedAt: now, Status: store.MailPending,
	}
}

// PaymentFailed tells of a decline: the retry date and a link to change
// the card, or, after the last retry, that the subscription ended.
func PaymentFailed(base string, now time.Time, s store.Subscription, reason string) *store.Mail {
	l := lang.OrEnglish(s.Lang)
	if s.Status == store.SubscriptionCancelled {
		return ended(base, now, s, lang.In(l, "mail.failed.gave_up", "Amount", lang.MoneyIn(l, s.Amount()), "Card", s.Card.Label(), "Tries", s.Attempt, "Reason", reason))
	}
	link := linkTo(base, paths.Subscriptions)
	return &store.Mail{
		ID: store.MailID("payfail", s.ID, store.FormatDate(s.NextPaymentDate), fmt.Sprintf("a%d", s.Attempt)), To: s.Email, Kind: store.MailPaymentFailed,
		Subject: lang.In(l, "mail.failed.subject", "Product", s.NameIn(string(l))),
		Text: text(l, lang.In(l, "mail.failed.declined", "Amount", lang.MoneyIn(l, s.Amount()), "Card", s.Card.Label(), "Reason", reason)+"\n"+
			lang.In(l, "mail.failed.retry", "Date", longDateIn(l, s.RetryDate), "Link", link)),
		HTML:       Render(failedHTML(l, s, reason, link)),
		CustomerID: s.AccountID, SubscriptionID: s.ID, CreatedAt: now, Status: store.MailPending,
	}
}

// Cancelled tells that a subscription ended as its customer asked.
func Cancelled(base string, now time.Time, s store.Subscription) *store.Mail {
	return ended(base, now, s, lang.In(lang.OrEnglish(s.Lang), "mail.cancelled.as_asked"))
}

// ended tells that a subscription ended, and why (reason, in its words).
func ended(base string, now time.Time, s store.Subscription, reason string) *store.Mail {
	l := lang.OrEnglish(s.Lang)
	link := linkTo(base, paths.Product(s.ProductID))
	return &store.Mail{
		ID: store.MailID("cancelled", s.ID), To: s.Email, Kind: store.MailCancelled,
		Subject:    lang.In(l, "mail.cancelled.subject", "Product", s.NameIn(string(l))),
		Text:       text(l, reason, lang.In(l, "mail.cancelled.again", "Link", link)),
		HTML:       Render(cancelledHTML(l, s, reason, link)),
		CustomerID: s.AccountID, SubscriptionID: s.ID, CreatedAt: now, Status: store.MailPending,
	}
}

// CardExpiring warns that the card stops paying before the next payment
// (it expires at expires); its id names the subscription, the card and
// the payment, so it goes once per card per payment.
func CardExpiring(base string, now time.Time, s store.Subscription, expires time.Time) *store.Mail {
	l := lang.OrEnglish(s.Lang)
	manage := linkTo(base, paths.Subscriptions)
	month := monthYearIn(l, expires)
	return &store.Mail{
		ID: store.MailID("cardexp", s.ID, s.Card.Last4, store.FormatDate(s.NextPaymentDate)), To: s.Email, Kind: store.MailCardExpiring,
		Subject: lang.In(l, "mail.cardexp.subject", "Card", s.Card.Label(), "Product", s.NameIn(string(l))),
		Text: text(l, lang.In(l, "mail.cardexp.body", "Card", s.Card.Label(), "Month", month, "Amount", lang.MoneyIn(l, s.AmountFor(s.NextPaymentDate)),
			"Product", s.NameIn(string(l)), "Date", longDateIn(l, s.NextPaymentDate))+"\n"+lang.In(l, "mail.cardexp.add", "Link", manage)),
		HTML:       Render(cardExpiringHTML(l, s, month, manage)),
		CustomerID: s.AccountID, SubscriptionID: s.ID, CreatedAt: now, Status: store.MailPending,
	}
}

// PriceChange announces a product's new monthly price to a subscriber,
// paid from the payment on from; once per subscription and change (its
// id).
func PriceChange(base string, now time.Time, s store.Subscription, c store.PriceChange, from time.Time) *store.Mail {
	l := lang.OrEnglish(s.Lang)
	manage := linkTo(base, paths.Subscriptions)
	sub := s
	sub.NewPrice, sub.NewPriceFrom = c.New, from
	date := longDateIn(l, from)
	return &store.Mail{
		ID: store.MailID("price", c.ProductID, store.FormatDate(c.EffectiveOn), s.ID), To: s.Email, Kind: store.MailPriceChange,
		Subject: lang.In(l, "mail.price.subject", "Product", s.NameIn(string(l)), "Date", date),
		Text: text(l, lang.In(l, "mail.price.body", "Product", s.NameIn(string(l)), "Old", lang.MoneyIn(l, s.MonthlyPrice), "New", lang.MoneyIn(l, c.New),
			"Date", date, "Payment", lang.MoneyIn(l, sub.AmountFor(from)))+"\n"+lang.In(l, "mail.price.change", "Link", manage)),
		HTML:       Render(priceChangeHTML(l, s, c.New, sub.AmountFor(from), date, manage)),
		CustomerID: s.AccountID, SubscriptionID: s.ID, CreatedAt: now, Status: store.MailPending,
	}
}

// ConfirmPayment asks the holder to pay the period of the subscription's
// intent on the provider's page, the bank wanting them to confirm it:
// once per period and attempt.
func ConfirmPayment(base string, now time.Time, s store.Subscription) *store.Mail {
	l := lang.OrEnglish(s.Lang)
	in := s.Intent
	link := linkTo(base, paths.Subscriptions)
	amount, date := lang.MoneyIn(l, s.AmountFor(in.Period)), longDateIn(l, in.Period)
	return &store.Mail{
		ID: store.MailID("payconfirm", s.ID, store.FormatDate(in.Period), fmt.Sprintf("a%d", in.Attempt)), To: s.Email, Kind: store.MailPaymentFailed,
		Subject: lang.In(l, "mail.confirm.subject", "Product", s.NameIn(string(l))),
		Text: text(l, lang.In(l, "mail.confirm.body", "Amount", amount, "Card", s.Card.Label(), "Product", s.NameIn(string(l)), "Date", date),
			lang.In(l, "mail.confirm.link", "Link", link)),
		CustomerID: s.AccountID, SubscriptionID: s.ID, CreatedAt: now, Status: store.MailPending,
	}
}

// CardNeeded asks the holder for a new card before the next payment.
func CardNeeded(base string, now time.Time, s store.Subscription) *store.Mail {
	l := lang.OrEnglish(s.Lang)
	link := linkTo(base, paths.Subscriptions)
	amount, date := lang.MoneyIn(l, s.AmountFor(s.NextPaymentDate)), longDateIn(l, s.NextPaymentDate)
	return &store.Mail{
		ID: store.MailID("cardneeded", s.ID, store.FormatDate(s.NextPaymentDate)), To: s.Email, Kind: store.MailCardExpiring,
		Subject: lang.In(l, "mail.cardneeded.subject", "Product", s.NameIn(string(l))),
		Text: text(l, lang.In(l, "mail.cardneeded.body", "Card", s.Card.Label(), "Product", s.NameIn(string(l)), "Amount", amount, "Date", date),
			lang.In(l, "mail.cardneeded.link", "Link", link)),
		CustomerID: s.AccountID, SubscriptionID: s.ID, CreatedAt: now, Status: store.MailPending,
	}
}
