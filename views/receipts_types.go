package views

import (
	"context"
	"slices"
	"strings"
	"time"

	"shop/store"
	"shop/views/lang"
)

// ReceiptsPage is one page of what a customer paid in the last six months.
type ReceiptsPage struct {
	Lines   []store.StatementLine
	NextURL string
	Loc     *time.Location // the shop's time zone: dates are its days
}

// ReceiptPage is one receipt, printable.
type ReceiptPage struct {
	Receipt store.Receipt
	Loc     *time.Location
	Seller  store.Seller // who sells, printed on it
}

// invoiceCard sums up how an order was paid: "Visa •••• 4242",
// "Gift card + Visa •••• 4242".
func invoiceCard(ctx context.Context, inv store.Invoice) string {
	var parts []string
	for _, p := range inv.Payments {
		if p.Amount.Amount <= 0 {
			continue // a refund goes back to what paid: said beside the amount
		}
		label := p.Type
		switch _, last4, ok := strings.Cut(p.Reference, "••••"); {
		case p.Type == "GiftCard":
			label = lang.T(ctx, "receipts.gift_card")
		case ok && len(last4) == 4:
			label = store.Card{Brand: p.Type, Last4: last4}.Label()
		}
		if !slices.Contains(parts, label) {
			parts = append(parts, label)
		}
	}
	return strings.Join(parts, " + ")
}

// invoiceRefunded is what the invoice's refunds gave back (zero: none).
func invoiceRefunded(inv store.Invoice) store.Money {
	return store.Money{Amount: inv.Amount.Amount - inv.Paid().Amount, Currency: inv.Amount.Currency}
}

// receiptTime is an instant on a receipt in the shop's time zone, as the
// page's language writes it: "22 Nov 2026, 02:31 CET".
func receiptTime(ctx context.Context, t time.Time, loc *time.Location) string {
	return lang.DateTime(ctx, InZone(t, loc))
}

// receiptKindWords says what a receipt of a new subscriber's first days,
// or of a swap now, paid for; "" for a whole period.
func receiptKindWords(ctx context.Context, r store.Receipt) string {
	switch r.Kind {
	case store.ReceiptFirstDays:
		return lang.T(ctx, "receipts.kind.first_days")
	case store.ReceiptFreeDays:
		return lang.T(ctx, "receipts.kind.free_days")
	case store.ReceiptChange:
		return lang.T(ctx, "receipts.kind.change", "Line", r.NameIn(langOf(ctx)))
	case store.ReceiptTrial:
		return lang.T(ctx, "receipts.kind.trial")
	}
	return ""
}

// receiptRefundWords is a receipt's refund in a row of receipts: the
// customer's statement and staff's list of a customer's receipts.
func receiptRefundWords(ctx context.Context, r *store.ReceiptRefund) string {
	switch {
	case r == nil:
		return ""
	case r.Status == store.ReceiptRefundPending:
		return lang.T(ctx, "receipts.row.refund_pending", "Amount", lang.Money(ctx, r.Amount))
	}
	return lang.T(ctx, "receipts.row.refunded", "Amount", lang.Money(ctx, r.Amount))
}
