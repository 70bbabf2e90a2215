package jobs

import (
	"context"
	"log/slog"
	"time"

	"shop/store"
	"shop/store/payment"
	"shop/views/mail"
)

// RefundEventStore applies the providers' refund events (the store).
type RefundEventStore interface {
	Now() time.Time
	ApplyRefundEvent(ctx context.Context, ev store.RefundEvent) (store.RefundEventOutcome, error)
}

// RefundEvents applies the card providers' refund events (charge.refunded,
// refund.updated) to the refunds that wait on them: a refund the provider
// answered pending is confirmed (a receipt's with its mail, as the card
// refunds job would), or its failure recorded, once per event. The
// payment events' settler hands it those two types.
type RefundEvents struct {
	Store   RefundEventStore
	BaseURL string // for the links in a receipt refund's mail
}

// ApplyRefundEvent applies one verified refund event of provider; an
// event that names none of the shop's waiting refunds is acknowledged and
// ignored. An error means it was not applied: the provider sends it again.
func (r RefundEvents) ApplyRefundEvent(ctx context.Context, provider string, ev payment.Event) error {
	re, ok := payment.RefundEventOf(provider, ev)
	if !ok {
		return nil
	}
	base := r.BaseURL
	if base == "" {
		base = defaultBaseURL
	}
	re.ReceiptMail = func(rc store.Receipt) *store.Mail { return mail.ReceiptRefund(base, r.Store.Now(), rc) }
	outcome, err := r.Store.ApplyRefundEvent(ctx, re)
	if err != nil {
		return err
	}
	if outcome == store.RefundEventFailed {
		slog.WarnContext(ctx, "the card provider reports a refund failed: it waits for staff", "provider", provider, "refund", re.RefundRef, "event", ev.ID)
	}
	return nil
}
