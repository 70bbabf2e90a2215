package mail

import (
	"time"

	"shop/store"
	"shop/views/lang"
	"shop/web/paths"
)

// TrialEnding is the reminder of a subscription still in its free trial:
// when the trial ends and what its first payment takes on which day. Its
// id names the trial's end, so it goes once (the reminder job writes it
// with the moved reminder date, as every reminder).
func TrialEnding(base string, now time.Time, s store.Subscription) *store.Mail {
	l := lang.OrEnglish(s.Lang)
	manage := linkTo(base, paths.Subscriptions)
	until, date := longDateIn(l, s.NextPaymentDate.AddDate(0, 0, -1)), longDateIn(l, s.NextPaymentDate)
	amount := lang.MoneyIn(l, s.AmountFor(s.NextPaymentDate))
	return &store.Mail{
		ID: store.MailID("trial", s.ID, store.FormatDate(s.TrialEnds)), To: s.Email, Kind: store.MailReminder,
		Subject: lang.In(l, "mail.trial.subject", "Product", s.NameIn(string(l)), "Until", until),
		Text: text(l, lang.In(l, "mail.trial.body", "Product", s.NameIn(string(l)), "Until", until, "Date", date, "Amount", amount, "Card", s.Card.Label()),
			lang.In(l, "mail.reminder.manage", "Link", manage)),
		HTML:       Render(trialHTML(l, s, manage)),
		CustomerID: s.AccountID, SubscriptionID: s.ID, CreatedAt: now, Status: store.MailPending,
	}
}

// TrialStarted is the mail of a subscription started with a free trial,
// written with its receipt rec (nothing charged): until when the trial is
// free, and what its first payment takes on which day, in the
// subscriber's language.
func TrialStarted(base string, now time.Time, s store.Subscription, rec store.Receipt) *store.Mail {
	l := lang.OrEnglish(s.Lang)
	manage, receipt := linkTo(base, paths.Subscriptions), linkTo(base, paths.Receipt(rec.Number))
	until, date := longDateIn(l, s.NextPaymentDate.AddDate(0, 0, -1)), longDateIn(l, s.NextPaymentDate)
	amount := lang.MoneyIn(l, s.AmountFor(s.NextPaymentDate))
	return &store.Mail{
		ID: store.MailID("trialstart", s.ID), To: s.Email, Kind: store.MailReceipt,
		Subject: lang.In(l, "mail.trialstart.subject", "Product", s.NameIn(string(l)), "Until", until),
		Text: text(l, lang.In(l, "mail.trialstart.body", "Product", s.NameIn(string(l)), "Until", until, "Date", date, "Amount", amount, "Card", s.Card.Label()),
			lang.In(l, "mail.receipt.link", "Number", rec.NumberInBooks(), "Link", receipt), lang.In(l, "mail.reminder.manage", "Link", manage)),
		HTML:       Render(trialStartHTML(l, s, until, date, amount, manage)),
		CustomerID: s.AccountID, SubscriptionID: s.ID, CreatedAt: now, Status: store.MailPending,
	}
}
