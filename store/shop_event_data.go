package store

import (
	"time"

	"shop/store/rules"
)

// The data of the shop's events: each object as an API would show it
// (documented in the OpenAPI document's webhooks and components). Money
// is {"amount": minor units, "currency"}; dates are RFC 3339, billing
// days YYYY-MM-DD.

// EventMoney is an amount in the currency's minor units.
type EventMoney struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

// eventMoney and eventAddress convert: the event's types are the store's
// fields with their JSON names, so a field added there fails here.
func eventMoney(m Money) EventMoney { return EventMoney(m) }

// EventCustomer is who an order or a subscription is of.
type EventCustomer struct {
	ID    string `json:"id"`
	Name  string `json:"name,omitempty"`
	Email string `json:"email"`
	Guest bool   `json:"guest,omitempty"`
}

// EventAddress is where an order goes.
type EventAddress struct {
	Name    string `json:"name,omitempty"`
	Street  string `json:"street"`
	Number  string `json:"number"`
	ZipCode string `json:"zip_code"`
	City    string `json:"city"`
	County  string `json:"county,omitempty"`
	Country string `json:"country"`
}

func eventAddress(a Address) EventAddress {
	return EventAddress(a)
}

// EventOrderLine is a line of an order.
type EventOrderLine struct {
	Product   string     `json:"product"`
	Name      string     `json:"name"`
	Quantity  int        `json:"quantity"`
	UnitPrice EventMoney `json:"unit_price"`
	Total     EventMoney `json:"total"`
	Drop      string     `json:"drop,omitempty"`
}

// EventOrder is an order: order.placed's data, and within order.shipped's
// and order.refunded's.
type EventOrder struct {
	ID       string           `json:"id"`
	Number   string           `json:"number,omitempty"`
	Status   string           `json:"status"`
	Placed   time.Time        `json:"placed"`
	Customer EventCustomer    `json:"customer"`
	ShipTo   EventAddress     `json:"ship_to"`
	Subtotal EventMoney       `json:"subtotal"`
	Discount EventMoney       `json:"discount"`
	Shipping EventMoney       `json:"shipping"`
	Total    EventMoney       `json:"total"`
	Refunded EventMoney       `json:"refunded"`
	Lines    []EventOrderLine `json:"lines,omitempty"`
}

// eventOrder is o as an event shows it, with its lines when given.
func eventOrder(o Order, items []OrderItem) EventOrder {
	out := EventOrder{ID: o.ID, Number: o.Number, Status: string(o.Status), Placed: o.PlacedAt.UTC(),
		Customer: EventCustomer{ID: o.CustomerID, Name: o.Buyer.Name, Email: o.Buyer.Email, Guest: o.Buyer.Guest},
		ShipTo:   eventAddress(o.ShipTo), Subtotal: eventMoney(o.Subtotal), Discount: eventMoney(o.Discount),
		Shipping: eventMoney(o.Shipping), Total: eventMoney(o.Total), Refunded: eventMoney(o.Refunded)}
	for _, it := range items {
		out.Lines = append(out.Lines, EventOrderLine{Product: it.ProductID, Name: it.ProductName, Quantity: it.Quantity,
			UnitPrice: eventMoney(it.Price), Total: eventMoney(it.LineTotal()), Drop: it.DropID})
	}
	return out
}

// EventShipment is order.shipped's data: the parcel that left, and its
// order (without lines).
type EventShipment struct {
	ID       string              `json:"id"`
	Number   string              `json:"number,omitempty"`
	Order    EventOrder          `json:"order"`
	Carrier  string              `json:"carrier,omitempty"`
	Tracking string              `json:"tracking,omitempty"`
	Shipped  time.Time           `json:"shipped"`
	ShipTo   EventAddress        `json:"ship_to"`
	Items    []EventShipmentItem `json:"items"`
}

// EventShipmentItem is what a parcel holds of a product.
type EventShipmentItem struct {
	Product  string `json:"product"`
	Name     string `json:"name"`
	Quantity int    `json:"quantity"`
}

func eventShipment(sh Shipment, o Order) EventShipment {
	out := EventShipment{ID: sh.ID, Number: sh.Number, Order: eventOrder(o, nil), Carrier: sh.Carrier, Tracking: sh.Tracking,
		Shipped: sh.ShippedAt.UTC(), ShipTo: eventAddress(sh.ShipTo), Items: []EventShipmentItem{}}
	for _, it := range sh.Items {
		out.Items = append(out.Items, EventShipmentItem{Product: it.ProductID, Name: it.ProductName, Quantity: it.Quantity})
	}
	return out
}

// EventRefund is order.refunded's data: the refund, and its order as
// the refund left it (without lines).
type EventRefund struct {
	ID       string           `json:"id"`
	Order    EventOrder       `json:"order"`
	Created  time.Time        `json:"created"`
	Status   string           `json:"status"`
	Amount   EventMoney       `json:"amount"`
	GiftCard EventMoney       `json:"gift_card"`
	Card     EventMoney       `json:"card"`
	Shipping EventMoney       `json:"shipping"`
	Reason   string           `json:"reason,omitempty"`
	Cancel   bool             `json:"cancel"`
	Lines    []EventOrderLine `json:"lines"`
}

func eventRefund(r Refund, o Order) EventRefund {
	out := EventRefund{ID: r.ID, Order: eventOrder(o, nil), Created: r.At.UTC(), Status: string(r.Status), Amount: eventMoney(r.Amount), GiftCard: eventMoney(r.GiftCard),
		Card: eventMoney(r.Card), Shipping: eventMoney(r.Shipping), Reason: r.Reason, Cancel: r.Cancel, Lines: []EventOrderLine{}}
	for _, l := range r.Lines {
		out.Lines = append(out.Lines, EventOrderLine{Product: l.ProductID, Name: l.ProductName, Quantity: l.Quantity, Total: eventMoney(l.Amount), Drop: l.DropID})
	}
	return out
}

// EventSubscription is a subscription: the data of the subscription.*
// events, with the receipt the change paid (renewed, created) when there
// is one.
type EventSubscription struct {
	ID           string        `json:"id"`
	Status       string        `json:"status"`
	Customer     EventCustomer `json:"customer"`
	Product      string        `json:"product"`
	Name         string        `json:"name"`
	Quantity     int           `json:"quantity"`
	MonthlyPrice EventMoney    `json:"monthly_price"`
	PeriodMonths int           `json:"period_months"`
	Shipping     EventMoney    `json:"shipping"`
	ShipTo       string        `json:"ship_to,omitempty"`
	NextPayment  string        `json:"next_payment,omitempty"`
	RetryOn      string        `json:"retry_on,omitempty"`
	Attempt      int           `json:"attempt,omitempty"`
	EndsOn       string        `json:"ends_on,omitempty"`
	CancelledOn  string        `json:"cancelled_on,omitempty"`
	Receipt      *EventReceipt `json:"receipt,omitempty"`
}

// EventReceipt is a subscription's paid period.
type EventReceipt struct {
	Number      string     `json:"number"`
	Amount      EventMoney `json:"amount"`
	Paid        time.Time  `json:"paid"`
	PeriodStart string     `json:"period_start"`
	PeriodEnd   string     `json:"period_end"`
}

// eventDay is a billing day, "" for none.
func eventDay(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(rules.DateLayout)
}

func eventSubscription(sub Subscription, r *Receipt) EventSubscription {
	out := EventSubscription{ID: sub.ID, Status: string(sub.Status), Customer: EventCustomer{ID: sub.AccountID, Email: sub.Email},
		Product: sub.ProductID, Name: sub.ProductName, Quantity: sub.Units(), MonthlyPrice: eventMoney(sub.MonthlyPrice),
		PeriodMonths: max(sub.PeriodMonths, 1), Shipping: eventMoney(sub.Shipping), ShipTo: sub.ShipTo,
		NextPayment: eventDay(sub.NextPaymentDate), RetryOn: eventDay(sub.RetryDate), Attempt: sub.Attempt,
		EndsOn: eventDay(sub.EndsOn), CancelledOn: eventDay(sub.CancelledOn)}
	if r != nil {
		out.Receipt = &EventReceipt{Number: r.Number, Amount: eventMoney(r.Amount), Paid: r.ProcessedAt.UTC(),
			PeriodStart: eventDay(r.PeriodStart), PeriodEnd: eventDay(r.PeriodEnd)}
	}
	return out
}
