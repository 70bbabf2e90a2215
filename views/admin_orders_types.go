package views

import (
	"fmt"

	"shop/store"
)

// AdminOrderList is the orders of a date range, newest first.
type AdminOrderList struct {
	Filter  AdminDateFilter
	Orders  []store.Order
	NextURL string
	CSVURL  string
	// Looked is how many orders of the range this screen read; Partial:
	// a status filter stopped short of a screen (see NextURL).
	Looked  int
	Partial bool
	// Customer: the orders are this customer's (any date).
	Customer *store.Customer
	// The find-by-number form.
	Number      string
	NumberError string
}

// AdminOrderPage is one order with everything staff act on.
type AdminOrderPage struct {
	Details       store.OrderDetails
	Warehouses    map[string]string // id -> name
	ShippingTypes []string
	Error         string // why the last action was refused
	CSRF          string
}

func allocationText(a store.Allocation, name string) string {
	return fmt.Sprintf("%d from %s", a.Quantity, name)
}
