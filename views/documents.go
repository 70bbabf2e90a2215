package views

import (
	"context"

	"shop/store"
)

// docAddressLines is a postal address as a document prints it: the street
// and number, the postcode and city, the county, the country.
func docAddressLines(a store.Address) []string {
	street := a.Street
	if a.Number != "" {
		street += " " + a.Number
	}
	out := []string{street, a.ZipCode + " " + a.City}
	if a.County != "" {
		out = append(out, a.County)
	}
	if a.Country != "" {
		out = append(out, a.Country)
	}
	return out
}

// The words of documents that their PDFs (views/pdfdoc) print as the pages
// do.

// DocAddressLines is docAddressLines, for a PDF.
func DocAddressLines(a store.Address) []string { return docAddressLines(a) }

// PaymentLabel is how a payment reads in the language of ctx: "Visa ending
// in 4242", "Gift card ending FT20".
func PaymentLabel(ctx context.Context, p store.Payment) string { return paymentLabel(ctx, p) }

// ReceiptPeriod is the days a receipt paid for, in the language of ctx.
func ReceiptPeriod(ctx context.Context, r store.Receipt) string { return adminReceiptPeriod(ctx, r) }
