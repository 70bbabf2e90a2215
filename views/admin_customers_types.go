package views

import (
	"context"
	"strings"

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
	// OrderNumbers are the numbers of the orders the rows name, by id.
	OrderNumbers map[string]string
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
func (a AdminCustomerAccess) RoleButtons(ctx context.Context) []RoleButton {
	var out []RoleButton
	for _, r := range []store.Role{store.RoleOwner, store.RoleStaff, store.RoleCustomer} {
		if r == a.Customer.Role {
			continue
		}
		label := t(ctx, "admin.customers.make", "Role", roleName(ctx, r))
		if r.Demotes(a.Customer.Role) {
			label = t(ctx, "admin.customers.demote", "Role", roleName(ctx, r))
		}
		out = append(out, RoleButton{Role: r, Label: label, TestID: "role-make-" + string(r)})
	}
	return out
}

var roleIDs = map[store.Role]string{
	store.RoleOwner:    "admin.customers.role.owner",
	store.RoleStaff:    "admin.customers.role.staff",
	store.RoleCustomer: "admin.customers.role.customer",
}

func roleName(ctx context.Context, r store.Role) string {
	if id, ok := roleIDs[r]; ok {
		return t(ctx, id)
	}
	return string(r)
}

// RoleChangeText says what a change did to the person named, as a
// sentence: "Ada is now staff (was customer).", "Ada was deactivated.".
func RoleChangeText(ctx context.Context, name string, c store.RoleChange) string {
	switch c.Action {
	case store.ActionDeactivate:
		return t(ctx, "admin.customers.changed.deactivated", "Name", name)
	case store.ActionReactivate:
		return t(ctx, "admin.customers.changed.reactivated", "Name", name)
	}
	return t(ctx, "admin.customers.changed.role", "Name", name, "To", roleName(ctx, c.To), "From", roleName(ctx, c.From))
}

// roleChangeLine is one change in the account's history.
func roleChangeLine(ctx context.Context, c store.RoleChange) string {
	switch c.Action {
	case store.ActionDeactivate:
		return t(ctx, "admin.customers.change.deactivated")
	case store.ActionReactivate:
		return t(ctx, "admin.customers.change.reactivated")
	}
	return roleName(ctx, c.From) + " → " + roleName(ctx, c.To)
}

// adminCustomerName is customerName (account_privacy_types.go, another
// area's) in the page's language.
func adminCustomerName(ctx context.Context, c store.Customer) string {
	switch {
	case c.Deleted():
		return t(ctx, "admin.customers.deleted_account")
	case c.Closing:
		return t(ctx, "admin.customers.closing_account")
	}
	return c.Name
}

// adminDeletedNote is deletedNote in the page's language.
func adminDeletedNote(ctx context.Context, c store.Customer) string {
	if c.Deleted() {
		return t(ctx, "admin.customers.deleted_on", "Day", adminDay(ctx, c.DeletedAt))
	}
	return t(ctx, "admin.customers.deletion_under_way")
}

// adminCardLabel is a card as store.Card.Label shows it, "no card" in the
// page's language.
func adminCardLabel(ctx context.Context, c store.Card) string {
	if c.Last4 == "" {
		return t(ctx, "admin.subs.no_card")
	}
	return c.Label()
}

// adminAroundMark stands for an element inside a translated sentence, so the
// page can put the element (a <code>, a link) where the language puts it.
const adminAroundMark = "\ue000"

// adminTextAround is a sentence's text before and after its element.
type adminTextAround struct{ Before, After string }

// adminAround is message id with the value named mark being the element: the
// text either side of it.
func adminAround(ctx context.Context, id, mark string, args ...any) adminTextAround {
	before, after, _ := strings.Cut(t(ctx, id, append(args, mark, adminAroundMark)...), adminAroundMark)
	return adminTextAround{before, after}
}

// adminTextAround2 is a sentence's text around two elements, in the order
// every language's message keeps them.
type adminTextAround2 struct{ Before, Between, After string }

const adminAroundMark2 = "\ue001"

// adminAround2 is message id with the values named first and second being
// elements, first before second.
func adminAround2(ctx context.Context, id, first, second string, args ...any) adminTextAround2 {
	s := t(ctx, id, append(args, first, adminAroundMark, second, adminAroundMark2)...)
	before, rest, _ := strings.Cut(s, adminAroundMark)
	between, after, _ := strings.Cut(rest, adminAroundMark2)
	return adminTextAround2{before, between, after}
}

// invoiceRefundTotal is what an invoice's refunds (its negative payments)
// gave back, and whether that was all it was paid.
type invoiceRefundTotal struct {
	Amount store.Money // positive: what went back
	Paid   store.Money // what its payments took
}

// invoiceRefunds adds up inv's refunds: the invoice already carries them,
// so the customer's page needs no read more to show them.
func invoiceRefunds(inv store.Invoice) invoiceRefundTotal {
	r := invoiceRefundTotal{Amount: store.Money{Currency: inv.Amount.Currency}, Paid: store.Money{Currency: inv.Amount.Currency}}
	for _, p := range inv.Payments {
		if p.IsRefund() {
			r.Amount.Amount -= p.Amount.Amount
		} else {
			r.Paid.Amount += p.Amount.Amount
		}
	}
	return r
}

// Any says whether anything was refunded.
func (r invoiceRefundTotal) Any() bool { return r.Amount.Amount > 0 }

// Status is "Partly refunded" or "Refunded in full", as the order's page
// says it.
func (r invoiceRefundTotal) Status(ctx context.Context) string {
	if r.Amount.Amount >= r.Paid.Amount {
		return t(ctx, "admin.refunds.refunded_all")
	}
	return t(ctx, "admin.refunds.refunded_part")
}
