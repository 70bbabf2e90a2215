package pdfdoc

import (
	"context"
	"strconv"

	"shop/store"
	"shop/store/rules"
	"shop/views"
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
	rates := map[string]rules.VATRate{}
	for _, it := range d.Items {
		rates[it.ProductID+"\x00"+it.DropID] = it.VATRate
	}
	var rows [][]string
	rest := rf.Amount.Amount - rf.Shipping.Amount
	for _, l := range rf.Lines {
		r := rates[l.ProductID+"\x00"+l.DropID]
		v := rules.LineVAT(r, l.Amount)
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

// ReceiptCreditNote is the credit note of a receipt's refund as a PDF:
// its number, the receipt it corrects, what was given back with its VAT
// (the receipt's one rate), and the card it went back to.
func ReceiptCreditNote(ctx context.Context, c Common, r store.Receipt, n store.ReceiptCreditNote) ([]byte, error) {
	title := words(c).t("doc.credit_note", "Number", n.Number)
	doc, err := newDoc(ctx, c, title)
	if err != nil {
		return nil, err
	}
	doc.heading(title,
		doc.t("doc.date", "Date", doc.date(n.At)),
		doc.t("doc.refers_to_receipt", "Receipt", r.NumberInBooks(), "Date", doc.date(r.ProcessedAt)),
		doc.t("doc.period", "Period", views.ReceiptPeriod(doc.ctx, r)))
	doc.parties(r.Email, nil)
	var rate rules.VATRate
	if len(r.VAT) == 1 {
		rate = r.VAT[0].Rate
	}
	v := rules.LineVAT(rate, n.Amount)
	v.Net, v.Tax, v.Gross = v.Net.Negated(), v.Tax.Negated(), v.Gross.Negated()
	item := doc.t("doc.credit_amount", "Reason", n.Reason)
	if n.Reason == "" {
		item = r.NameIn(string(doc.c.Lang))
	}
	doc.table(doc.lineColumns(), [][]string{{item, "", "", rateOf(v), taxOf(doc, v), doc.money(n.Amount.Negated())}})
	doc.totals([]total{{doc.t("doc.credited"), doc.money(n.Amount.Negated()), true}})
	if len(r.VAT) == 1 {
		doc.vat([]store.VATLine{v})
	}
	doc.subheading(doc.t("doc.given_back"))
	doc.table([]column{{doc.t("admin.invoices.paid_with"), 0.75, "L"}, {doc.t("doc.col.amount"), 0.25, "R"}},
		[][]string{{r.Card.Label(), doc.money(n.Amount)}})
	return doc.bytes()
}
