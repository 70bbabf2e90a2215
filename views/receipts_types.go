package views

import (
	"strings"
	"time"

	"shop/store"
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
}

// invoiceCard sums up how an order was paid: "Visa •••• 4242",
// "Gift card + Visa •••• 4242".
func invoiceCard(inv store.Invoice) string {
	var parts []string
	for _, p := range inv.Payments {
		if p.Type == "GiftCard" {
			parts = append(parts, "Gift card")
			continue
		}
		label := p.Type
		if _, last4, ok := strings.Cut(p.Reference, "••••"); ok && len(last4) == 4 {
			label = store.Card{Brand: p.Type, Last4: last4}.Label()
		}
		parts = append(parts, label)
	}
	return strings.Join(parts, " + ")
}
