package pdfdoc

import (
	"context"
	"strconv"

	"shop/store"
	"shop/views"
)

// Invoice is an order's invoice as a PDF: the order's lines each with its
// VAT, the discount, delivery, the total, the VAT per rate and how it was
// paid (refunds are credit notes of their own, not lines here).
func Invoice(ctx context.Context, c Common, d store.OrderDetails, inv store.Invoice) ([]byte, error) {
	title := words(c).t("doc.invoice", "Number", inv.ID)
	doc, err := newDoc(ctx, c, title)
	if err != nil {
		return nil, err
	}
	doc.heading(title,
		doc.t("doc.date", "Date", doc.date(inv.Date)),
		doc.t("doc.order", "Number", d.Order.Label()))
	name := inv.Buyer.Name
	if name == "" {
		name = d.Order.ShipTo.Name
	}
	billed := docAddress(d.Order.ShipTo)
	if d.Order.ShipTo.Street == "" {
		billed = nil
	}
	doc.parties(name, append(billed, inv.Buyer.Email))
	rows := make([][]string, 0, len(d.Items))
	for _, it := range d.Items {
		v := it.VAT()
		rows = append(rows, []string{it.NameIn(string(c.Lang)), strconv.Itoa(it.Quantity), doc.money(it.Price), it.VATRate.String(), doc.money(v.Tax), doc.money(it.LineTotal())})
	}
	if inv.Shipping.Amount > 0 {
		rows = append(rows, []string{doc.t("checkout.shipping"), "1", doc.money(inv.Shipping), "", "", doc.money(inv.Shipping)})
	}
	doc.table(doc.lineColumns(), rows)
	tot := []total{{doc.t("orders.subtotal"), doc.money(d.Order.Subtotal), false}}
	if inv.Discount.Amount > 0 {
		tot = append(tot, total{doc.t("orders.discount", "Code", inv.DiscountCode), doc.money(inv.Discount.Negated()), false})
	}
	if inv.Shipping.Amount > 0 {
		tot = append(tot, total{doc.t("checkout.shipping"), doc.money(inv.Shipping), false})
	}
	tot = append(tot, total{doc.t("orders.col.total"), doc.money(inv.Amount), true})
	doc.totals(tot)
	doc.vat(inv.VAT)
	var paid [][]string
	for _, p := range inv.Payments {
		if !p.IsRefund() {
			paid = append(paid, []string{views.PaymentLabel(doc.ctx, p), doc.money(p.Amount)})
		}
	}
	if len(paid) > 0 {
		doc.subheading(doc.t("doc.payments"))
		doc.table([]column{{doc.t("admin.invoices.paid_with"), 0.75, "L"}, {doc.t("doc.col.amount"), 0.25, "R"}}, paid)
	}
	return doc.bytes()
}

// words is a doc's words before the doc is made (its title).
func words(c Common) *doc { return &doc{c: c} }
