package views

import "shop/store"

// AccountPage is /account: who the customer is, their password and their
// saved addresses, each form with its own errors.
type AccountPage struct {
	Email string
	// EmailUnverified shows the reminder to confirm the address.
	EmailUnverified bool
	Name            NameForm
	Password        PasswordForm
	Addresses       []store.SavedAddress
	NewAddress      AddressForm
	CSRF            string
}

// AddressBookFull reports whether the add form gives way to a note.
func (p AccountPage) AddressBookFull() bool { return len(p.Addresses) >= store.MaxAddresses }

// NameForm changes the customer's name, as typed.
type NameForm struct {
	Name   string
	Errors FieldErrors
}

// PasswordForm changes the password; the passwords are never echoed back.
type PasswordForm struct {
	Errors FieldErrors
}

// AddressForm is a saved address being added (ID "") or edited, as typed;
// Country is an ISO 3166-1 alpha-2 code.
type AddressForm struct {
	ID        string
	Recipient string
	Street    string
	Number    string
	ZipCode   string
	City      string
	Country   string
	Default   bool
	Errors    FieldErrors
}

// AddressEditPage edits one saved address.
type AddressEditPage struct {
	Form AddressForm
}

// addressFields are the address form's fields in their order on the page.
var addressFields = []string{"recipient", "street", "number", "zip", "city", "country"}

// countryName is the name of a country code, or the code itself.
func countryName(code string) string {
	if name, ok := store.CountryName(code); ok {
		return name
	}
	return code
}
