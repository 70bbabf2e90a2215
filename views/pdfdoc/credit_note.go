package pdfdoc

import (
	"context"
	"strconv"

	"shop/store"
)

// CreditNote is a refund's credit note as a PDF: its number, the invoice
// it corrects, what was given back (the lines, delivery, an amount) with
// the VAT per rate, and where the money went.
func CreditNote(ctx context.Context, c Common, d store.OrderDetails, inv store.Invoice, rf store.Refund) ([]byte, error) {
	title := words(c).t("doc.credit_note", "Number", rf.CreditNote)
	doc, err := newDoc(ctx, c, title)
	if err != nil {
		return nil, err
	}
	doc.heading(title,
		doc.t("doc.date", "Date", doc.date(rf.CreditNoteAt)),
		doc.t("doc.refers_to", "Invoice", inv.ID, "Date", doc.date(inv.Date)),
		doc.t("doc.order", "Number", d.Order.Label()))
	name := inv.Buyer.Name
	if name == "" {
		name = d.Order.ShipTo.Name
	}
	var billed []string
	if d.Order.ShipTo.Street != "" {
		billed = docAddress(d.Order.ShipTo)
	}
	doc.parties(name, append(billed, inv.Buyer.Email))
	rates := map[string]store.VATRate{}
	for _, it := range d.Items {
		rates[it.ProductID+"\x00"+it.DropID] = it.VATRate
	}
	var rows [][]string
	rest := rf.Amount.Amount - rf.Shipping.Amount
	for _, l := range rf.Lines {
		r := rates[l.ProductID+"\x00"+l.DropID]
		v := store.LineVAT(r, l.Amount)
		unit := store.Money{Amount: l.Amount.Amount / int64(max(l.Quantity, 1)), Currency: l.Amount.Currency}
		rows = append(rows, []string{l.NameIn(string(c.Lang)), strconv.Itoa(-l.Quantity), doc.money(unit), r.String(), doc.money(v.Tax.Negated()), doc.money(l.Amount.Negated())})
		rest -= l.Amount.Amount
	}
	if rf.Shipping.Amount > 0 {
		rows = append(rows, []string{doc.t("checkout.shipping"), "-1", doc.money(rf.Shipping), "", "", doc.money(rf.Shipping.Negated())})
	}
	if rest > 0 {
		amt := store.Money{Amount: rest, Currency: rf.Amount.Currency}
		rows = append(rows, []string{doc.t("doc.credit_amount", "Reason", rf.Reason), "", "", "", "", doc.money(amt.Negated())})
	}
	doc.table(doc.lineColumns(), rows)
	doc.totals([]total{{doc.t("doc.credited"), doc.money(rf.Amount.Negated()), true}})
	vat := d.CreditVAT(rf, inv)
	for i := range vat {
		vat[i].Net, vat[i].Tax, vat[i].Gross = vat[i].Net.Negated(), vat[i].Tax.Negated(), vat[i].Gross.Negated()
	}
	doc.vat(vat)
	var back [][]string
	if rf.GiftCard.Amount > 0 {
		back = append(back, []string{doc.t("orders.payment.gift_card"), doc.money(rf.GiftCard)})
	}
	if rf.Card.Amount > 0 {
		back = append(back, []string{doc.t("doc.to_card"), doc.money(rf.Card)})
	}
	if len(back) > 0 {
		doc.subheading(doc.t("doc.given_back"))
		doc.table([]column{{doc.t("admin.invoices.paid_with"), 0.75, "L"}, {doc.t("doc.col.amount"), 0.25, "R"}}, back)
	}
	return doc.bytes()
}
