package store

import (
	"strings"
	"time"

	"shop/store/rules"
)

// OrderStatus is where an order is on its way to the customer.
type OrderStatus string

const (
	OrderPlaced    OrderStatus = "placed"
	OrderShipping  OrderStatus = "shipping" // shipments created, not all gone
	OrderShipped   OrderStatus = "shipped"
	OrderDelivered OrderStatus = "delivered"
	OrderCancelled OrderStatus = "cancelled" // by the customer before shipping, and refunded
	// OrderAwaitingStock is a subscription's order placed when no stock
	// could fill it: nothing taken, waiting for staff to allocate it.
	OrderAwaitingStock OrderStatus = "awaiting_stock"
	// OrderAwaitingPayment is a checkout's order held while its card part
	// is paid on the provider's hosted page (checkout_hold.go): its stock,
	// codes, gift card and ticket are taken, but it is not sold yet (no
	// invoice, not in the day's totals, nothing to ship) until its payment
	// places it.
	OrderAwaitingPayment OrderStatus = "awaiting_payment"
	// OrderExpired is a held order whose payment never came: everything it
	// held was given back, and it is in no list, total or figure.
	OrderExpired OrderStatus = "expired"
)

// Buyer is who placed an order, as they were at checkout. The order, its
// items and its invoice keep a copy (as they keep the address), so staff
// lists name the customer without reading each customer's record.
type Buyer struct {
	Name  string
	Email string
	// Lang is the language the order's mails are written in, the
	// customer's at checkout; "" (an order from before) reads as English.
	Lang string
	// Guest: the order was placed by a guest checkout, without an account;
	// its mails carry a signed link to its page that needs no sign-in.
	Guest bool
}

// Label names the buyer for staff: the name, else the email, else the
// customer id (an order placed before orders kept their buyer).
func (b Buyer) Label(customerID string) string {
	switch {
	case b.Name != "":
		return b.Name
	case b.Email != "":
		return b.Email
	}
	return customerID
}

// Order is one checkout of a customer.
type Order struct {
	ID         string
	Number     string // "FF-7K3Q92"; "" for an order from before numbers
	CustomerID string
	Buyer      Buyer
	PlacedAt   time.Time
	Status     OrderStatus
	Subtotal   Money
	Discount   Money
	Total      Money
	// Shipping is what delivery cost, part of Total (after the discount,
	// which is off the goods only).
	Shipping Money
	// ShippingDaysMin and ShippingDaysMax are its zone's estimate of
	// delivery when it was placed, as its confirmation says it (0: an
	// order without a zone).
	ShippingDaysMin, ShippingDaysMax int
	ShipTo                           Address
	Lines                            int
	// Refunded is what its refunds gave back, of which RefundedGiftCard
	// to the gift card and RefundedCard to the card.
	Refunded, RefundedGiftCard, RefundedCard Money
	// RefundedShipping is what a refund gave back of Shipping: delivery is
	// refunded once, whole (refund_shipping.go); zero while it is not.
	RefundedShipping Money
	// SubscriptionID marks an order a subscription's paid period made; its
	// money is on the receipt ReceiptNumber (it has no invoice of its own).
	SubscriptionID string
	ReceiptNumber  string
	// Hold is the card payment a checkout's order waited for on the
	// provider's page (awaiting_payment, then placed or expired); nil for
	// an order paid at checkout.
	Hold *PaymentHold
	// ToPick is what each warehouse picks of it, as its lines were
	// allocated less what was refunded before it was packed (to_pack.go).
	ToPick []PickLine

	// unitRefunds counts the refunds that took units back while the order
	// was placed: CreateShipments ships on condition it is unchanged.
	unitRefunds int
}

// Refundable is what is left to refund: the total less the refunds.
func (o Order) Refundable() Money { return refundable(o) }

// FromSubscription reports whether a subscription's payment made the order.
func (o Order) FromSubscription() bool { return o.SubscriptionID != "" }

// Allocation is how many units of an order line leave from one warehouse
// (rules.Allocation; an order line's item keeps it as a map of its two
// fields, named as they are).
type Allocation = rules.Allocation

// OrderItem is one line of an order.
type OrderItem struct {
	OrderID     string
	CustomerID  string
	Buyer       Buyer
	ProductID   string
	ProductName string // in English, as staff read it
	// Names is the product's name in the shop's other languages when it
	// was sold: what its buyer reads (NameIn).
	Names       ProductNames
	Price       Money // per unit
	Quantity    int
	PlacedAt    time.Time
	Allocations []Allocation
	// DropID marks a line bought with a product drop's ticket: one unit at
	// the drop's price, its stock set aside when the drop was made.
	DropID string
	// Refunded counts the units refunded.
	Refunded int
	// VATRate is the rate of its product's category when it was sold.
	VATRate rules.VATRate
	// Expired: its order's hold was released (the order is expired).
	Expired bool
	// redeemWithin is the drop's, for the ticket's condition at checkout.
	redeemWithin time.Duration
}

// NameIn is the product's name as sold, in lang where staff gave one.
func (i OrderItem) NameIn(lang string) string { return i.Names.In(lang, i.ProductName) }

// LineTotal is price times quantity.
func (i OrderItem) LineTotal() Money {
	return Money{Amount: i.Price.Amount * int64(i.Quantity), Currency: i.Price.Currency}
}

// Payment is one tender on an invoice, as in the AWS model.
type Payment struct {
	Type      string // "GiftCard", or the card brand
	Amount    Money
	Reference string // gift card code (masked) or charge id and last four digits
	// Provider is the card payment provider that took a card's payment
	// ("test", "stripe"); "" on a gift card's, and on a card payment
	// recorded before providers had names (the test provider's: ProviderOf).
	Provider string
}

// IsRefund tells a refund's negative payment from a payment.
func (p Payment) IsRefund() bool { return p.Amount.Amount < 0 }

// Label is how a person reads the payment, "Visa ending in 4242" or "Gift
// card ending FT20", never the gateway's reference.
func (p Payment) Label() string {
	kind := p.Type
	if p.Type == "GiftCard" {
		kind = "Gift card"
	}
	if p.IsRefund() {
		if p.Type == "GiftCard" {
			kind = "gift card"
		}
		kind = "Refund to " + kind
	}
	_, end, ok := strings.Cut(p.Reference, "••••")
	if end = strings.TrimSpace(end); !ok || end == "" {
		return kind
	}
	if p.Type == "GiftCard" {
		return kind + " ending " + end
	}
	return kind + " ending in " + end
}

// Invoice is what an order cost and how it was paid.
type Invoice struct {
	// ID is its number in the books ("2026-000123", see books.go) for
	// an invoice written since invoices are numbered; a random id before,
	// and for an imported one.
	ID           string
	OrderID      string
	CustomerID   string
	Buyer        Buyer
	Date         time.Time
	Amount       Money
	Discount     Money
	Shipping     Money // delivery, a line of its own; its VAT is in VAT
	DiscountCode string
	Payments     []Payment // refunds are negative payments, after the payments
	// VAT is what it paid per rate; none on an invoice from before VAT.
	VAT []VATLine
	// giftCardCode is the gift card that paid, to refund it.
	giftCardCode string
}

// Paid is what the payments less the refunds come to.
func (inv Invoice) Paid() Money {
	m := Money{Currency: inv.Amount.Currency}
	for _, p := range inv.Payments {
		m.Amount += p.Amount.Amount
	}
	return m
}

// ShipmentStatus is where a shipment is.
type ShipmentStatus string

const (
	ShipmentPending   ShipmentStatus = "pending"
	ShipmentShipped   ShipmentStatus = "shipped"
	ShipmentDelivered ShipmentStatus = "delivered"
)

// Shipment is one parcel from one warehouse.
type Shipment struct {
	ID string
	// Number is the shipment's own ("SH-7K3Q92", shipment_number.go);
	// OrderNumber its order's, kept on it so that a list of shipments
	// names their orders without reading them. Both "" for a shipment
	// from before numbers.
	Number, OrderNumber string
	OrderID             string
	WarehouseID         string
	Type                string
	Status              ShipmentStatus
	ShipTo              Address
	CreatedAt           time.Time
	ShippedAt           time.Time
	DeliveredAt         time.Time
	Items               []ShipmentItem
	// Carrier (an id of package carrier) and Tracking are what staff gave
	// when it shipped.
	Carrier, Tracking string
	// Version counts the shipment's changes: every change is conditional
	// on the one its maker saw (0: a shipment from before versions).
	Version int
	// Changes are its status changes, oldest first (the order's and the
	// shipment's reads carry them).
	Changes []ShipmentChange
}

// ShipmentItem is how many of a product travel in a shipment.
type ShipmentItem struct {
	ID          string
	ShipmentID  string
	OrderID     string
	ProductID   string
	ProductName string
	Names       ProductNames // as its order line's
	Quantity    int
}

// NameIn is the product's name as sold, in lang where staff gave one.
func (i ShipmentItem) NameIn(lang string) string { return i.Names.In(lang, i.ProductName) }

// OrderDetails is an order's whole item collection.
type OrderDetails struct {
	Order     Order
	Items     []OrderItem
	Invoices  []Invoice
	Shipments []Shipment
	Returns   []Return // oldest first
	Refunds   []Refund // oldest first
}

// Invoice returns the order's invoice (an order has one).
func (d OrderDetails) Invoice() (Invoice, bool) {
	if len(d.Invoices) == 0 {
		return Invoice{}, false
	}
	return d.Invoices[0], true
}
