package views

import (
	"shop/store"
)

// AdminCustomerList is a page of customers and the find-by-email form.
type AdminCustomerList struct {
	Customers []store.Customer
	NextURL   string
	Email     string
	Errors    FieldErrors
}

// AdminCustomerActivity is a customer's invoices and ordered products in a
// date range: the part of the page the date filter swaps.
type AdminCustomerActivity struct {
	CustomerID   string
	Filter       AdminDateFilter
	Invoices     []store.Invoice
	InvoicesNext string
	Products     []store.OrderItem
	ProductsNext string
}

// AdminCustomerBilling is a customer's subscriptions and a page of their
// receipts of the last six months, newest first.
type AdminCustomerBilling struct {
	CustomerID    string
	Subscriptions []store.Subscription
	Receipts      []store.Receipt
	ReceiptsNext  string
}

// AdminCustomerPage is one customer for staff.
type AdminCustomerPage struct {
	Customer store.Customer
	Billing  AdminCustomerBilling
	Activity AdminCustomerActivity
}
