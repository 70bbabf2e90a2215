package views

import (
	"shop/store"
)

// AdminCustomerList is a page of customers, newest first, or of those
// whose name or email starts with what staff typed (Finding).
type AdminCustomerList struct {
	Customers []store.Customer
	Finding   bool
	Query     string
	Typed     bool // asked for as staff type (htmx): the results alone
	Matches   []store.CustomerMatch
	NextURL   string
	Email     string // ?email=, a whole address (older links)
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
	Access   AdminCustomerAccess
	Billing  AdminCustomerBilling
	Activity AdminCustomerActivity
}

// AdminCustomerAccess is a customer's account for staff: their role,
// whether they can sign in, the changes owners made, and for an owner
// the buttons that change them.
type AdminCustomerAccess struct {
	Customer  store.Customer
	Changes   []store.RoleChange
	CanManage bool // the viewer is an owner
	Self      bool // the viewer is this customer
	CSRF      string
	Problem   string // what the last change could not do
}

// RoleButton is one role an owner can give the customer from here.
type RoleButton struct {
	Role   store.Role
	Label  string
	TestID string
}

// RoleButtons are the roles the customer does not have, most rights
// first.
func (a AdminCustomerAccess) RoleButtons() []RoleButton {
	var out []RoleButton
	for _, r := range []store.Role{store.RoleOwner, store.RoleStaff, store.RoleCustomer} {
		if r == a.Customer.Role {
			continue
		}
		verb := "Make "
		if r.Demotes(a.Customer.Role) {
			verb = "Demote to "
		}
		out = append(out, RoleButton{Role: r, Label: verb + roleName(r), TestID: "role-make-" + string(r)})
	}
	return out
}

func roleName(r store.Role) string {
	switch r {
	case store.RoleOwner:
		return "owner"
	case store.RoleStaff:
		return "staff"
	case store.RoleCustomer:
		return "customer"
	}
	return string(r)
}

// RoleChangeText says what a change did, after the person's name: "is now
// staff (was a customer)", "was deactivated".
func RoleChangeText(c store.RoleChange) string {
	switch c.Action {
	case store.ActionDeactivate:
		return "was deactivated"
	case store.ActionReactivate:
		return "was reactivated"
	}
	return "is now " + roleName(c.To) + " (was " + roleName(c.From) + ")"
}

// roleChangeLine is one change in the account's history.
func roleChangeLine(c store.RoleChange) string {
	switch c.Action {
	case store.ActionDeactivate:
		return "Deactivated"
	case store.ActionReactivate:
		return "Reactivated"
	}
	return roleName(c.From) + " → " + roleName(c.To)
}
