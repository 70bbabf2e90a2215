package views

import "shop/store"

// AdminSellerForm is the seller's details as typed, with the saved ones.
type AdminSellerForm struct {
	Name, Address, VAT string
	Version            int
	Saved              store.Seller
	Error              string
	Errors             FieldErrors
	CSRF               string
}
