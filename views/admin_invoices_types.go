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
}
