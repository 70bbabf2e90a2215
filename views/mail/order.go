package mail

import (
	"fmt"
	"strconv"
	"strings"

	"shop/store"
	"shop/store/carrier"
	"shop/views"
	"shop/views/lang"
)

// itemLine is "2 × Name" of an order line, named in the mail's language.
func itemLine(l lang.Lang, it store.OrderItem) string {
	return fmt.Sprintf("%d × %s", it.Quantity, it.NameIn(string(l)))
}

func lineTotal(it store.OrderItem) store.Money {
	return store.Money{Amount: it.Price.Amount * int64(it.Quantity), Currency: it.Price.Currency}
}

func addressLine(a store.Address) string {
	parts := []string{strings.TrimSpace(a.Street + " " + a.Number), strings.TrimSpace(a.ZipCode + " " + a.City), a.Country}
	if a.Name != "" {
		parts = append([]string{a.Name}, parts...)
	}
	return strings.Join(parts, ", ")
}

func shipmentLine(l lang.Lang, sh store.Shipment) string {
	var its []string
	for _, it := range sh.Items {
		its = append(its, fmt.Sprintf("%d × %s", it.Quantity, it.NameIn(string(l))))
	}
	switch {
	case len(its) == 0 && sh.Number == "":
		return lang.In(l, "mail.parcel")
	case len(its) == 0:
		return lang.In(l, "mail.parcel_numbered", "Number", sh.Number)
	case sh.Number == "":
		return lang.In(l, "mail.parcel_items", "Items", strings.Join(its, ", "))
	}
	return lang.In(l, "mail.parcel_numbered_items", "Number", sh.Number, "Items", strings.Join(its, ", "))
}

// OrderPlaced is the order's confirmation, in the buyer's language at
// checkout; its id makes it once per order.
func (m Links) OrderPlaced(o store.Order, items []store.OrderItem, inv store.Invoice) store.Mail {
	l := lang.OrEnglish(o.Buyer.Lang)
	link, linkMsg := m.orderLink(o)
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n%s\n\n", lang.In(l, "mail.hello_name", "Name", o.Buyer.Name), lang.In(l, "mail.order.thanks", "Order", o.Label()))
	for _, it := range items {
		fmt.Fprintf(&b, "  %s  %s\n", itemLine(l, it), lang.MoneyIn(l, lineTotal(it)))
	}
	if o.Discount.Amount > 0 {
		fmt.Fprintf(&b, "  %s  −%s\n", discountLabel(l, inv), lang.MoneyIn(l, o.Discount))
	}
	if amount, ok := deliveryAmount(l, o); ok {
		fmt.Fprintf(&b, "  %s  %s\n", lang.In(l, "mail.order.delivery"), amount)
	}
	fmt.Fprintf(&b, "  %s  %s\n\n", lang.In(l, "mail.order.total"), lang.MoneyIn(l, o.Total))
	if paid := paidWith(inv); len(paid) > 0 {
		fmt.Fprintf(&b, "%s\n", lang.In(l, "mail.order.paid_with"))
		for _, p := range paid {
			fmt.Fprintf(&b, "  %s  %s\n", views.PaymentLabelIn(l, p), lang.MoneyIn(l, p.Amount))
		}
		b.WriteString("\n")
	}
	if estimate := deliveryEstimate(l, o); estimate != "" {
		fmt.Fprintf(&b, "%s\n\n", estimate)
	}
	fmt.Fprintf(&b, "%s\n\n%s\n%s", lang.In(l, "mail.order.ship_to", "Address", addressLine(o.ShipTo)), lang.In(l, linkMsg, "Link", link), signature)
	return store.Mail{
		ID: store.MailID("order", o.ID), To: o.Buyer.Email, Kind: store.MailOrderPlaced,
		Subject: lang.In(l, "mail.order.subject", "Order", o.Label()), Text: b.String(), HTML: Render(orderPlacedHTML(l, o, items, inv, link)),
		CustomerID: o.CustomerID, CreatedAt: o.PlacedAt, Status: store.MailPending,
		AttachOrder: o.ID, // its invoice, rendered when sent
	}
}

// discountLabel names the confirmation's discount by its code, as the
// invoice has it: "Discount, code SUMMER10".
func discountLabel(l lang.Lang, inv store.Invoice) string {
	if inv.DiscountCode == "" {
		return lang.In(l, "mail.order.discount")
	}
	return lang.In(l, "mail.order.discount_code", "Code", inv.DiscountCode)
}

// paidWith is what paid the order, as its invoice has it: the gift card's
// part, then the card's (brand, last four), each with its amount.
func paidWith(inv store.Invoice) []store.Payment {
	var out []store.Payment
	for _, p := range inv.Payments {
		if !p.IsRefund() && p.Amount.Amount > 0 {
			out = append(out, p)
		}
	}
	return out
}

// deliveryAmount is the confirmation's delivery line: what it cost, or
// "Free" from its zone's threshold; none for an order without a zone.
func deliveryAmount(l lang.Lang, o store.Order) (string, bool) {
	switch {
	case o.Shipping.Amount > 0:
		return lang.MoneyIn(l, o.Shipping), true
	case o.ShippingDaysMin > 0:
		return lang.In(l, "checkout.shipping.free"), true
	}
	return "", false
}

// deliveryEstimate is when the order arrives once it ships, as its zone
// said when it was placed: "It arrives in 1–3 days once it ships."; ""
// without a zone.
func deliveryEstimate(l lang.Lang, o store.Order) string {
	if o.ShippingDaysMin <= 0 {
		return ""
	}
	days := strconv.Itoa(o.ShippingDaysMin)
	if o.ShippingDaysMax > o.ShippingDaysMin {
		days += "–" + strconv.Itoa(o.ShippingDaysMax)
	}
	return lang.In(l, "mail.order.estimate", "Days", lang.In(l, "shipping.days", "Days", days))
}

// ShipmentStep is the mail of a shipment's step forward, as sh will be
// after it: shipped (carrier and tracking link) or delivered. Its id names
// the shipment's version, so one change is mailed once.
func (m Links) ShipmentStep(o store.Order, sh store.Shipment) *store.Mail {
	l := lang.OrEnglish(o.Buyer.Lang)
	link, linkMsg := m.orderLink(o)
	version := fmt.Sprintf("v%d", sh.Version)
	hello := lang.In(l, "mail.hello_name", "Name", o.Buyer.Name)
	switch sh.Status {
	case store.ShipmentShipped:
		name, tracking := carrier.Name(sh.Carrier), carrier.TrackingURL(sh.Carrier, sh.Tracking)
		follow := ""
		if tracking != "" {
			follow = lang.In(l, "mail.shipped.follow", "Carrier", name, "Link", tracking) + "\n"
		}
		return &store.Mail{
			ID: store.MailID("shipped", sh.ID, version), To: o.Buyer.Email, Kind: store.MailOrderShipped,
			Subject: lang.In(l, "mail.shipped.subject", "Order", o.Label()),
			Text: fmt.Sprintf("%s\n\n%s\n%s\n%s\n%s", hello,
				lang.In(l, "mail.shipped.body", "Parcel", shipmentLine(l, sh), "Carrier", name, "Tracking", sh.Tracking), follow,
				lang.In(l, linkMsg, "Link", link), signature),
			HTML:       Render(orderShippedHTML(l, o, sh, name, tracking, link)),
			CustomerID: o.CustomerID, CreatedAt: sh.ShippedAt, Status: store.MailPending,
		}
	case store.ShipmentDelivered:
		return &store.Mail{
			ID: store.MailID("delivered", sh.ID, version), To: o.Buyer.Email, Kind: store.MailDelivered,
			Subject: lang.In(l, "mail.delivered.subject", "Order", o.Label()),
			Text: fmt.Sprintf("%s\n\n%s\n\n%s\n%s", hello,
				lang.In(l, "mail.delivered.body", "Parcel", shipmentLine(l, sh), "Date", longDateIn(l, sh.DeliveredAt)),
				lang.In(l, "mail.delivered.wrong", "Link", link), signature),
			HTML:       Render(orderDeliveredHTML(l, o, sh, link)),
			CustomerID: o.CustomerID, CreatedAt: sh.DeliveredAt, Status: store.MailPending,
		}
	}
	return nil
}
