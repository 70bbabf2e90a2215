package jobs

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/a-h/templ"

	"shop/store"
	"shop/web/paths"
)

func longDate(d time.Time) string { return d.Format("2 January 2006") }

func render(c templ.Component) string {
	var b bytes.Buffer
	if err := c.Render(context.Background(), &b); err != nil {
		return ""
	}
	return b.String()
}

func (r *Runner) link(path string) string { return strings.TrimRight(r.cfg.BaseURL, "/") + path }

// mailReminder is the reminder of a subscription's next payment; its id
// makes it once per payment.
func (r *Runner) mailReminder(s store.Subscription) *store.Mail {
	manage := r.link(paths.Subscriptions)
	return &store.Mail{
		ID: "reminder-" + s.ID + "-" + store.FormatDate(s.NextPaymentDate), To: s.Email, Kind: store.MailReminder,
		Subject:    fmt.Sprintf("Your payment for %s on %s", s.ProductName, longDate(s.NextPaymentDate)),
		Text:       fmt.Sprintf("Hello,\n\nOn %s we will charge %s to your %s for %s.\n\nManage your subscription: %s\n\nFika & Field\n", longDate(s.NextPaymentDate), s.Amount(), s.Card.Label(), s.ProductName, manage),
		HTML:       render(reminderHTML(s, manage)),
		CustomerID: s.AccountID, SubscriptionID: s.ID, CreatedAt: r.store.Now(), Status: store.MailPending,
	}
}

func (r *Runner) mailReceipt(rec store.Receipt) *store.Mail {
	link := r.link(paths.Receipt(rec.Number))
	return &store.Mail{
		ID: "receipt-" + rec.SubscriptionID + "-" + rec.Number, To: rec.Email, Kind: store.MailReceipt,
		Subject: fmt.Sprintf("Receipt %s: %s", rec.Number, rec.ProductName),
		Text: fmt.Sprintf("Hello,\n\nWe charged %s to your %s for %s, %s to %s.\n\nReceipt %s: %s\n\nFika & Field\n",
			rec.Amount, rec.Card.Label(), rec.ProductName, longDate(rec.PeriodStart), longDate(rec.PeriodEnd), rec.Number, link),
		HTML:       render(receiptHTML(rec, link)),
		CustomerID: rec.AccountID, SubscriptionID: rec.SubscriptionID, CreatedAt: r.store.Now(), Status: store.MailPending,
	}
}

// mailFailed tells of a decline: the retry date and a link to change the
// card, or, after the last retry, that the subscription ended.
func (r *Runner) mailFailed(s store.Subscription, reason string) *store.Mail {
	if s.Status == store.SubscriptionCancelled {
		return r.mailEnded(s, fmt.Sprintf("We could not charge %s to your %s after %d tries (%s), so the subscription is cancelled.", s.Amount(), s.Card.Label(), s.Attempt, reason))
	}
	link := r.link(paths.Subscriptions)
	return &store.Mail{
		ID: fmt.Sprintf("payfail-%s-%s-a%d", s.ID, store.FormatDate(s.NextPaymentDate), s.Attempt), To: s.Email, Kind: store.MailPaymentFailed,
		Subject: fmt.Sprintf("Your payment for %s did not go through", s.ProductName),
		Text: fmt.Sprintf("Hello,\n\nWe could not charge %s to your %s: %s.\nWe will try again on %s. Change the card and we try at once: %s\n\nFika & Field\n",
			s.Amount(), s.Card.Label(), reason, longDate(s.RetryDate), link),
		HTML:       render(failedHTML(s, reason, link)),
		CustomerID: s.AccountID, SubscriptionID: s.ID, CreatedAt: r.store.Now(), Status: store.MailPending,
	}
}

func (r *Runner) mailCancelled(s store.Subscription) *store.Mail {
	return r.mailEnded(s, "Your subscription ended at the end of its paid period, as you asked.")
}

func (r *Runner) mailEnded(s store.Subscription, reason string) *store.Mail {
	link := r.link(paths.Product(s.ProductID))
	return &store.Mail{
		ID: "cancelled-" + s.ID, To: s.Email, Kind: store.MailCancelled,
		Subject:    fmt.Sprintf("Your subscription to %s has ended", s.ProductName),
		Text:       fmt.Sprintf("Hello,\n\n%s\n\nSubscribe again whenever you like: %s\n\nFika & Field\n", reason, link),
		HTML:       render(cancelledHTML(s, reason, link)),
		CustomerID: s.AccountID, SubscriptionID: s.ID, CreatedAt: r.store.Now(), Status: store.MailPending,
	}
}
