package pdfdoc

import (
	"context"

	"shop/store"
	"shop/views"
)

// Receipt is a subscription payment's receipt as a PDF: the product and
// the period it paid, its VAT, the discount and delivery, the amount and
// the card.
func Receipt(ctx context.Context, c Common, r store.Receipt) ([]byte, error) {
	title := words(c).t("doc.receipt", "Number", r.NumberInBooks())
	doc, err := newDoc(ctx, c, title)
	if err != nil {
		return nil, err
	}
	doc.heading(title, doc.t("doc.date", "Date", doc.date(r.ProcessedAt)), doc.t("doc.period", "Period", views.ReceiptPeriod(doc.ctx, r)))
	doc.parties(r.Email, nil)
	var v store.VATLine
	if len(r.VAT) == 1 {
		v = r.VAT[0]
	}
	goods := r.Amount.Amount - r.Shipping.Amount + r.Discount.Amount
	item := r.NameIn(string(c.Lang))
	rows := [][]string{{item, "1", doc.money(store.Money{Amount: goods, Currency: r.Amount.Currency}), rateOf(v), taxOf(doc, v), doc.money(store.Money{Amount: goods, Currency: r.Amount.Currency})}}
	if r.Shipping.Amount > 0 {
		rows = append(rows, []string{doc.t("checkout.shipping"), "1", doc.money(r.Shipping), "", "", doc.money(r.Shipping)})
	}
	doc.table(doc.lineColumns(), rows)
	var tot []total
	if r.Discount.Amount > 0 {
		tot = append(tot, total{doc.t("orders.discount", "Code", r.DiscountCode), doc.money(r.Discount.Negated()), false})
	}
	tot = append(tot, total{doc.t("orders.col.total"), doc.money(r.Amount), true})
	doc.totals(tot)
	doc.vat(r.VAT)
	if r.Amount.Amount > 0 {
		doc.subheading(doc.t("doc.payments"))
		doc.table([]column{{doc.t("admin.invoices.paid_with"), 0.75, "L"}, {doc.t("doc.col.amount"), 0.25, "R"}},
			[][]string{{r.Card.Label() + " · " + r.ChargeID, doc.money(r.Amount)}})
	}
	return doc.bytes()
}

func rateOf(v store.VATLine) string {
	if v.Rate == 0 && v.Gross.Amount == 0 {
		return ""
	}
	return v.Rate.String()
}

func taxOf(d *doc, v store.VATLine) string {
	if v.Gross.Amount == 0 {
		return ""
	}
	return d.money(v.Tax)
}
