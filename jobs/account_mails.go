package jobs

import (
	"fmt"
	"strings"
	"time"

	"shop/store"
	"shop/store/carrier"
	"shop/web/paths"
)

// ShopMail builds the mails of accounts and orders, which the web handlers
// put in the outbox with the writes that cause them; the deliverer sends
// them like the billing jobs' mails. BaseURL starts every link.
type ShopMail struct {
	BaseURL string
}

func (m ShopMail) link(path string) string { return strings.TrimRight(m.BaseURL, "/") + path }

func itemLine(it store.OrderItem) string { return fmt.Sprintf("%d × %s", it.Quantity, it.ProductName) }

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

func shipmentLine(sh store.Shipment) string {
	var its []string
	for _, it := range sh.Items {
		its = append(its, fmt.Sprintf("%d × %s", it.Quantity, it.ProductName))
	}
	if len(its) == 0 {
		return "Your parcel"
	}
	return "Your parcel (" + strings.Join(its, ", ") + ")"
}

const mailSignature = "\nFika & Field\n"

// OrderPlaced is the order's confirmation; its id makes it once per order.
func (m ShopMail) OrderPlaced(o store.Order, items []store.OrderItem) store.Mail {
	link := m.link(paths.Order(o.ID))
	var b strings.Builder
	fmt.Fprintf(&b, "Hello %s,\n\nThank you for your order %s.\n\n", o.Buyer.Name, o.Label())
	for _, it := range items {
		fmt.Fprintf(&b, "  %s  %s\n", itemLine(it), lineTotal(it))
	}
	if o.Discount.Amount > 0 {
		fmt.Fprintf(&b, "  Discount  −%s\n", o.Discount)
	}
	fmt.Fprintf(&b, "  Total  %s\n\nWe ship it to %s. We mail you again when it leaves the warehouse.\n\nYour order: %s\n%s",
		o.Total, addressLine(o.ShipTo), link, mailSignature)
	return store.Mail{
		ID: "order-" + o.ID, To: o.Buyer.Email, Kind: store.MailOrderPlaced,
		Subject: fmt.Sprintf("Your order %s", o.Label()), Text: b.String(), HTML: render(orderPlacedHTML(o, items, link)),
		CustomerID: o.CustomerID, CreatedAt: o.PlacedAt, Status: store.MailPending,
	}
}

// ShipmentStep is the mail of a shipment's step forward, as sh will be
// after it: shipped (carrier and tracking link) or delivered. Its id names
// the shipment's version, so one change is mailed once.
func (m ShopMail) ShipmentStep(o store.Order, sh store.Shipment) *store.Mail {
	link := m.link(paths.Order(o.ID))
	id := fmt.Sprintf("%s-v%d", sh.ID, sh.Version)
	switch sh.Status {
	case store.ShipmentShipped:
		name, tracking := carrier.Name(sh.Carrier), carrier.TrackingURL(sh.Carrier, sh.Tracking)
		follow := ""
		if tracking != "" {
			follow = fmt.Sprintf("Follow the parcel at %s: %s\n", name, tracking)
		}
		return &store.Mail{
			ID: "shipped-" + id, To: o.Buyer.Email, Kind: store.MailOrderShipped,
			Subject: fmt.Sprintf("Your order %s is on its way", o.Label()),
			Text: fmt.Sprintf("Hello %s,\n\n%s left the warehouse with %s, tracking number %s.\n%s\nYour order: %s\n%s",
				o.Buyer.Name, shipmentLine(sh), name, sh.Tracking, follow, link, mailSignature),
			HTML:       render(orderShippedHTML(o, sh, name, tracking, link)),
			CustomerID: o.CustomerID, CreatedAt: sh.ShippedAt, Status: store.MailPending,
		}
	case store.ShipmentDelivered:
		return &store.Mail{
			ID: "delivered-" + id, To: o.Buyer.Email, Kind: store.MailDelivered,
			Subject: fmt.Sprintf("Your order %s was delivered", o.Label()),
			Text: fmt.Sprintf("Hello %s,\n\n%s was delivered on %s.\n\nAnything not right? Your order: %s\n%s",
				o.Buyer.Name, shipmentLine(sh), longDate(sh.DeliveredAt), link, mailSignature),
			HTML:       render(orderDeliveredHTML(o, sh, link)),
			CustomerID: o.CustomerID, CreatedAt: sh.DeliveredAt, Status: store.MailPending,
		}
	}
	return nil
}

// VerifyEmail mails the verification link (path holds the signed token).
func (m ShopMail) VerifyEmail(c store.Customer, l store.AccountLink, path string, loc *time.Location) store.Mail {
	link := m.link(path)
	until := l.ValidUntil.In(loc).Format("2 January 2006, 15:04")
	return store.Mail{
		ID: "verify-" + l.CustomerID + "-" + l.CreatedAt.Format("20060102T150405.000"), To: l.Email, Kind: store.MailVerifyEmail,
		Subject: "Confirm your email address at Fika & Field",
		Text: fmt.Sprintf("Welcome, %s.\n\nConfirm that this is your email address, so we know our mail reaches you:\n%s\n\nThe link works once, until %s. If you did not sign up, ignore this mail.\n%s",
			c.Name, link, until, mailSignature),
		HTML:       render(verifyEmailHTML(c.Name, link, until)),
		CustomerID: l.CustomerID, CreatedAt: l.CreatedAt, Status: store.MailPending,
	}
}

// PasswordReset mails the reset link (path holds the signed token).
func (m ShopMail) PasswordReset(name string, l store.AccountLink, path string) store.Mail {
	link := m.link(path)
	return store.Mail{
		ID: "reset-" + l.CustomerID + "-" + l.CreatedAt.Format("20060102T150405.000"), To: l.Email, Kind: store.MailPasswordReset,
		Subject: "Set a new password at Fika & Field",
		Text: fmt.Sprintf("Hello %s,\n\nSomeone (we hope you) asked to set a new password for your account:\n%s\n\nThe link works once, for an hour. If you did not ask, ignore this mail: your password stays as it is.\n%s",
			name, link, mailSignature),
		HTML:       render(passwordResetHTML(name, link)),
		CustomerID: l.CustomerID, CreatedAt: l.CreatedAt, Status: store.MailPending,
	}
}
