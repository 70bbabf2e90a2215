package jobs

import (
	"strings"

	"shop/store"
	"shop/views/mail"
)

// The jobs decide when each mail goes and write it with what it tells of;
// what a mail says is views/mail's. These hand the store the mails it
// writes with a change of its own, made when it writes them.

func link(base, path string) string { return strings.TrimRight(base, "/") + path }

func (r *Runner) mailReceipt(rec store.Receipt) *store.Mail {
	return mail.Receipt(r.cfg.BaseURL, r.store.Now(), rec)
}

func (r *Runner) mailCancelled(s store.Subscription) *store.Mail {
	return mail.Cancelled(r.cfg.BaseURL, r.store.Now(), s)
}

func (r *Runner) mailReceiptRefund(rec store.Receipt) *store.Mail {
	return mail.ReceiptRefund(r.cfg.BaseURL, r.store.Now(), rec)
}
