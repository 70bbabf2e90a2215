package views

import (
	"fmt"

	"shop/store"
)

// AddToCart is the product page's add-to-cart form and what it last did.
type AddToCart struct {
	ProductID string
	Quantity  string
	Error     string
	Added     string // "2 × Hand Grinder", after a successful add
	CartUnits int
	CSRF      string
	Available int
}

// CartPage is the cart with its lines.
type CartPage struct {
	Cart     store.Cart
	Error    string // about one line, after a failed change
	ErrorFor string // the product the error is about
}

// CheckoutForm is the checkout form as typed; the card's number and security
// code are never echoed back.
type CheckoutForm struct {
	Key      string
	Name     string
	Street   string
	Number   string
	ZipCode  string
	City     string
	Country  string
	Discount string
	GiftCard string
	Expiry   string
	Total    string // the total shown, in cents: the order is placed only at it
	Errors   FieldErrors
}

// CheckoutSummary is what the order will cost and how it will be paid.
type CheckoutSummary struct {
	Items    []store.OrderItem
	Tender   store.Tender
	Discount string // the code applied, if any
	GiftCard string // the gift card used, if any
	Problem  string // why the order cannot be placed as it stands
	Errors   FieldErrors
}

// CheckoutPage is the checkout: summary and form.
type CheckoutPage struct {
	Form    CheckoutForm
	Summary CheckoutSummary
}

// OrdersPage lists a customer's orders.
type OrdersPage struct {
	Orders  []store.Order
	NextURL string
}

// OrderPage is one order, as its customer sees it.
type OrderPage struct {
	Details store.OrderDetails
}

func unitsWord(n int) string {
	if n == 1 {
		return "1 item"
	}
	return fmt.Sprintf("%d items", n)
}

func orderStatusLabel(s store.OrderStatus) string {
	switch s {
	case store.OrderPlaced:
		return "Placed, being packed"
	case store.OrderShipping:
		return "Packed, on its way out"
	case store.OrderShipped:
		return "Shipped"
	case store.OrderDelivered:
		return "Delivered"
	}
	return string(s)
}

func shipmentStatusLabel(s store.ShipmentStatus) string {
	switch s {
	case store.ShipmentPending:
		return "Being packed"
	case store.ShipmentShipped:
		return "Shipped"
	case store.ShipmentDelivered:
		return "Delivered"
	}
	return string(s)
}

func dateLabel(t interface{ Format(string) string }) string { return t.Format("2 Jan 2006, 15:04") }
