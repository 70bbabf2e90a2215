package views

import (
	"shop/store"
	"shop/store/rules"
)

// CheckoutForm is the checkout form as typed. The card is typed on the
// card provider's page, never here.
type CheckoutForm struct {
	Key      string
	Name     string
	Street   string
	Number   string
	ZipCode  string
	City     string
	Country  string // an ISO 3166-1 alpha-2 code
	Discount string
	GiftCard string
	Total    string // the total shown, in cents: the order is placed only at it
	// SaveAddress keeps the address in the customer's address book once
	// the order is placed.
	SaveAddress bool
	// Guest: a visitor checking out without an account, by Email.
	// EmailTaken: the email has an account, whose owner signs in instead.
	Guest      bool
	Email      string
	EmailTaken bool
	Errors     FieldErrors
}

// CheckoutSummary is what the order will cost and how it will be paid.
type CheckoutSummary struct {
	Items    []store.OrderItem
	Tender   rules.Tender
	Discount string // the code applied, if any
	GiftCard string // the gift card used, if any
	Problem  string // why the order cannot be placed as it stands
	Errors   FieldErrors
	// Zone delivers to the address's country (nil: none does, or no
	// country yet); Zones are the shop's (none: delivery is free).
	Zone  *store.ShippingZone
	Zones []store.ShippingZone
}

// CheckoutPage is the checkout: summary and form.
type CheckoutPage struct {
	Form    CheckoutForm
	Summary CheckoutSummary
	// Saved are the customer's saved addresses, offered as links that
	// fill the form in; Chosen is the one filled in.
	Saved  []store.SavedAddress
	Chosen string
	// CanSave offers to save the typed address (the book has room).
	CanSave bool
}
