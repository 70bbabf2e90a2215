package views

import (
	"shop/store"
)

// AdminInvoiceLookup is the find-an-invoice form.
type AdminInvoiceLookup struct {
	ID     string
	Errors FieldErrors
}

// AdminInvoicePage is one invoice and its payments.
type AdminInvoicePage struct {
	Invoice store.Invoice
	// Order is the invoice's order: its lines (each with its VAT) and the
	// address it is billed to.
	Order  store.OrderDetails
	Seller store.Seller
}
