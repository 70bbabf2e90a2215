package jobs

import (
	"shop/store"
	"shop/views/lang"
	"shop/web/paths"
)

// mailTrialEnding is the reminder of a subscription still in its free
// trial: when the trial ends and what its first payment takes on which
// day. Its id names the trial's end, so it goes once (the reminder job
// writes it with the moved reminder date, as every reminder).
func (r *Runner) mailTrialEnding(s store.Subscription) *store.Mail {
	l := lang.OrEnglish(s.Lang)
	manage := r.link(paths.Subscriptions)
	until, date := longDateIn(l, s.NextPaymentDate.AddDate(0, 0, -1)), longDateIn(l, s.NextPaymentDate)
	amount := lang.MoneyIn(l, s.AmountFor(s.NextPaymentDate))
	return &store.Mail{
		ID: store.MailID("trial", s.ID, store.FormatDate(s.TrialEnds)), To: s.Email, Kind: store.MailReminder,
		Subject: lang.In(l, "mail.trial.subject", "Product", s.ProductName, "Until", until),
		Text: mailText(l, lang.In(l, "mail.trial.body", "Product", s.ProductName, "Until", until, "Date", date, "Amount", amount, "Card", s.Card.Label()),
			lang.In(l, "mail.reminder.manage", "Link", manage)),
		HTML:       render(trialHTML(l, s, manage)),
		CustomerID: s.AccountID, SubscriptionID: s.ID, CreatedAt: r.store.Now(), Status: store.MailPending,
	}
}
