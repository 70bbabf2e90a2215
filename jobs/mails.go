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

func (r *Runner) link(path string) string { return link(r.cfg.BaseURL, path) }

func link(base, path string) string { return strings.TrimRight(base, "/") + path }

func monthYear(t time.Time) string { return t.UTC().AddDate(0, 0, -1).Format("January 2006") }

// mailReminder is the reminder of a subscription's next payment; its id
// makes it once per payment.
func (r *Runner) mailReminder(s store.Subscription) *store.Mail {
	manage := r.link(paths.Subscriptions)
	return &store.Mail{
		ID: "reminder-" + s.ID + "-" + store.FormatDate(s.NextPaymentDate), To: s.Email, Kind: store.MailReminder,
		Subject:    fmt.Sprintf("Your payment for %s on %s", s.ProductName, longDate(s.NextPaymentDate)),
		Text:       fmt.Sprintf("Hello,\n\nOn %s we will charge %s to your %s for %s.\n\nManage your subscription: %s\n\nFika & Field\n", longDate(s.NextPaymentDate), s.AmountFor(s.NextPaymentDate), s.Card.Label(), s.ProductName, manage),
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

// mailCardExpiring warns that the card stops paying before the next
// payment; its id names the subscription, the card and the payment, so it
// goes once per card per payment.
func (r *Runner) mailCardExpiring(s store.Subscription, expires time.Time) *store.Mail {
	manage := r.link(paths.Subscriptions)
	return &store.Mail{
		ID: "cardexp-" + s.ID + "-" + s.Card.Last4 + "-" + store.FormatDate(s.NextPaymentDate), To: s.Email, Kind: store.MailCardExpiring,
		Subject: fmt.Sprintf("Your %s expires before your payment for %s", s.Card.Label(), s.ProductName),
		Text: fmt.Sprintf("Hello,\n\nYour %s expires at the end of %s, before your payment of %s for %s on %s.\nAdd a new card so the payment goes through: %s\n\nFika & Field\n",
			s.Card.Label(), monthYear(expires), s.AmountFor(s.NextPaymentDate), s.ProductName, longDate(s.NextPaymentDate), manage),
		HTML:       render(cardExpiringHTML(s, monthYear(expires), manage)),
		CustomerID: s.AccountID, SubscriptionID: s.ID, CreatedAt: r.store.Now(), Status: store.MailPending,
	}
}

// mailPriceChange announces a product's new monthly price to a subscriber,
// once per subscription and change (its id).
func (r *Runner) mailPriceChange(s store.Subscription, c store.PriceChange, from time.Time) *store.Mail {
	manage := r.link(paths.Subscriptions)
	sub := s
	sub.NewPrice, sub.NewPriceFrom = c.New, from
	return &store.Mail{
		ID: "price-" + c.ProductID + "-" + store.FormatDate(c.EffectiveOn) + "-" + s.ID, To: s.Email, Kind: store.MailPriceChange,
		Subject: fmt.Sprintf("%s: a new price from %s", s.ProductName, longDate(from)),
		Text: fmt.Sprintf("Hello,\n\nThe monthly price of %s changes from %s to %s. Your payments on or after %s are %s each.\nYou can change or cancel your subscription before then: %s\n\nFika & Field\n",
			s.ProductName, s.MonthlyPrice, c.New, longDate(from), sub.AmountFor(from), manage),
		HTML:       render(priceChangeHTML(s, c.New, sub.AmountFor(from), longDate(from), manage)),
		CustomerID: s.AccountID, SubscriptionID: s.ID, CreatedAt: r.store.Now(), Status: store.MailPending,
	}
}

// ReceiptRefundMail is the mail of a receipt's refund, to its customer;
// the receipt page links it. Staff's refunds and cancellations send it.
func ReceiptRefundMail(baseURL string, now time.Time, rec store.Receipt) *store.Mail {
	if rec.Refund == nil {
		return nil
	}
	if baseURL == "" {
		baseURL = Config{}.withDefaults().BaseURL
	}
	l := link(baseURL, paths.Receipt(rec.Number))
	return &store.Mail{
		ID: "subrefund-" + rec.Number, To: rec.Email, Kind: store.MailReceiptRefund,
		Subject: fmt.Sprintf("Refund of %s: receipt %s", rec.Refund.Amount, rec.Number),
		Text: fmt.Sprintf("Hello,\n\nWe refunded %s of your payment of %s for %s to your %s (%s). It shows on your statement within a few days.\n\nReceipt %s: %s\n\nFika & Field\n",
			rec.Refund.Amount, rec.Amount, rec.ProductName, rec.Card.Label(), rec.Refund.Reason, rec.Number, l),
		HTML:       render(receiptRefundHTML(rec, l)),
		CustomerID: rec.AccountID, SubscriptionID: rec.SubscriptionID, CreatedAt: now, Status: store.MailPending,
	}
}
