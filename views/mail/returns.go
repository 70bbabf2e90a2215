package mail

import (
	"fmt"
	"strings"

	"shop/store"
	"shop/views/lang"
	"shop/web/paths"
)

// ReturnRequested tells the customer, in the language of the order,
// each return's number, where to send its parcel, what to put in it and
// where to print its slip: one mail for the returns of one ask (one a
// warehouse the units go back to). The store makes it from the returns as
// written.
func ReturnRequested(base string) func([]store.Return) *store.Mail {
	return func(rs []store.Return) *store.Mail {
		r := rs[0]
		if r.Buyer.Email == "" {
			return nil // nobody to write to; the order's page says it all
		}
		l := lang.OrEnglish(r.Buyer.Lang)
		numbers := make([]string, len(rs))
		for i, p := range rs {
			numbers[i] = p.Number
		}
		var b strings.Builder
		subject := lang.In(l, "mail.return_requested.subject", "Number", r.Number)
		if len(rs) == 1 {
			fmt.Fprintf(&b, "%s\n\n%s\n\n", Hello(l, r.Buyer.Name), lang.In(l, "mail.return_requested.intro", "Number", r.Number, "Order", r.OrderLabel()))
		} else {
			subject = lang.In(l, "mail.return_requested.subject_parts", "Numbers", strings.Join(numbers, ", "), "Parts", len(rs))
			fmt.Fprintf(&b, "%s\n\n%s\n\n", Hello(l, r.Buyer.Name), lang.In(l, "mail.return_requested.intro_parts", "Order", r.OrderLabel(), "Parts", len(rs)))
		}
		for _, p := range rs {
			if len(rs) > 1 {
				fmt.Fprintf(&b, "%s\n\n", lang.In(l, "mail.return_requested.part", "Part", p.Part, "Parts", p.Parts, "Number", p.Number))
			}
			writeReturnParcel(&b, l, base, p)
		}
		fmt.Fprintf(&b, "%s\n\nFika & Field\n", lang.In(l, "mail.return_requested.next"))
		return &store.Mail{
			To: r.Buyer.Email, Kind: store.MailReturnRequested, CustomerID: r.CustomerID, CreatedAt: r.RequestedAt, Status: store.MailPending,
			Subject: subject, Text: b.String(),
		}
	}
}

// writeReturnParcel writes where one return's parcel goes, what goes in it
// and where its slip is.
func writeReturnParcel(b *strings.Builder, l lang.Lang, base string, r store.Return) {
	fmt.Fprintf(b, "%s\n%s\n\n", lang.In(l, "mail.return_requested.send_to"), indent(returnAddress(r.SendTo)))
	fmt.Fprintf(b, "%s\n", lang.In(l, "mail.return_requested.parcel"))
	for _, line := range r.Lines {
		fmt.Fprintf(b, "  %d × %s\n", line.Quantity, line.NameIn(string(l)))
	}
	fmt.Fprintf(b, "  %s\n\n", lang.In(l, "mail.return_requested.slip_in_parcel", "Number", r.Number))
	fmt.Fprintf(b, "%s\n%s\n\n", lang.In(l, "mail.return_requested.print"), strings.TrimRight(base, "/")+paths.OrderReturnSlip(r.OrderID, r.ID))
}

// returnAddress is where a return goes, as it reads on a parcel.
func returnAddress(w store.Warehouse) []string {
	a := w.Address
	lines := []string{"Fika & Field, " + w.Name}
	for _, l := range []string{strings.TrimSpace(a.Street + " " + a.Number), strings.TrimSpace(a.ZipCode + " " + a.City), a.Country} {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

func indent(lines []string) string { return "  " + strings.Join(lines, "\n  ") }

// ReturnReceived tells the customer their parcel arrived, in the
// language of the order it came from.
func ReturnReceived(r store.Return, to string) store.Mail {
	l := lang.OrEnglish(r.Buyer.Lang)
	var lines strings.Builder
	for _, line := range r.Lines {
		fmt.Fprintf(&lines, "  %d × %s\n", line.Quantity, line.NameIn(string(l)))
	}
	label := r.OrderLabel()
	return store.Mail{
		To: to, Kind: store.MailReturnReceived, CustomerID: r.CustomerID, CreatedAt: r.ReceivedAt, Status: store.MailPending,
		Subject: lang.In(l, "mail.return.subject", "Number", r.Number, "Order", label),
		Text: fmt.Sprintf("%s\n\n%s\n\n%s\n%s\n\nFika & Field\n", Hello(l, r.Buyer.Name), lang.In(l, "mail.return.arrived", "Order", label),
			lines.String(), lang.In(l, "mail.return.look")),
	}
}

// ReturnRefunded tells the customer what came back, and to what, in the
// order's language.
func ReturnRefunded(rf store.Refund, o store.Order) *store.Mail {
	to := o.Buyer.Email
	if to == "" {
		return nil
	}
	l := lang.OrEnglish(o.Buyer.Lang)
	amount := lang.MoneyIn(l, rf.Amount)
	var where string
	switch gift, card := lang.MoneyIn(l, rf.GiftCard), lang.MoneyIn(l, rf.Card); {
	case rf.GiftCard.Amount > 0 && rf.Card.Amount > 0:
		where = lang.In(l, "mail.return_refund.both", "GiftCard", gift, "Card", card)
	case rf.GiftCard.Amount > 0:
		where = lang.In(l, "mail.return_refund.giftcard", "GiftCard", gift)
	case rf.Card.Amount > 0:
		where = lang.In(l, "mail.return_refund.card", "Card", card)
	}
	return &store.Mail{
		ID: store.MailID("refund", o.ID, rf.ID), To: to, Kind: store.MailRefund, CustomerID: o.CustomerID, CreatedAt: rf.At, Status: store.MailPending,
		Subject: lang.In(l, "mail.return_refund.subject", "Amount", amount, "Order", o.Label()),
		Text: fmt.Sprintf("%s\n\n%s\n\nFika & Field\n", Hello(l, o.Buyer.Name),
			lang.In(l, "mail.return_refund.body", "Amount", amount, "Order", o.Label(), "Where", where)),
	}
}
