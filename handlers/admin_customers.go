package handlers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"
	"golang.org/x/sync/errgroup"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/web/paths"
)

// AdminCustomerStore is what the staff customer pages read.
type AdminCustomerStore interface {
	// Now is the shop's clock (the store's, set in tests).
	Now() time.Time
	Location() *time.Location // the shop's time zone: date filters pick its days
	Customers(ctx context.Context, limit int, cursor string) (store.Page[store.Customer], error)
	Customer(ctx context.Context, id string) (store.Customer, error)
	CredentialsByEmail(ctx context.Context, email string) (store.Credentials, error)
	FindCustomers(ctx context.Context, typed string, limit int, cursor string) (store.Page[store.CustomerMatch], error)
	CustomerInvoices(ctx context.Context, customerID string, from, to time.Time, limit int, cursor string) (store.Page[store.Invoice], error)
	CustomerProducts(ctx context.Context, customerID string, from, to time.Time, limit int, cursor string) (store.Page[store.OrderItem], error)
	// OrderNumbers names the orders of a page of invoices and products.
	OrderNumbers(ctx context.Context, customerID string, orderIDs []string) (map[string]string, error)
	Subscriptions(ctx context.Context, customerID string) ([]store.Subscription, error)
	RecentReceipts(ctx context.Context, customerID string, limit int, cursor string) (store.Page[store.Receipt], error)
	RoleChanges(ctx context.Context, customerID string) ([]store.RoleChange, error)
	// An owner's changes to the account, and ending the sessions of
	// someone whose rights were taken away.
	ChangeRole(ctx context.Context, customerID string, to store.Role, by store.Customer) (store.Customer, store.RoleChange, error)
	Deactivate(ctx context.Context, customerID string, by store.Customer) (store.Customer, store.RoleChange, error)
	Reactivate(ctx context.Context, customerID string, by store.Customer) (store.Customer, store.RoleChange, error)
	EndSessions(ctx context.Context, customerID, keep string) (int, error)
}

// AdminCustomers serves /admin/customers.
type AdminCustomers struct {
	Store AdminCustomerStore
}

// findMaxRunes bounds what the find box takes: nobody types a longer
// start of a name.
const findMaxRunes = 100

// List is the customers, newest first, a page at a time (htmx asks for the
// next page's rows), and finds them by the start of a name or email (?q=,
// as staff type: htmx swaps the results); a whole email that is a
// customer's, sent with the form, goes to that customer (so does ?email=).
func (h *AdminCustomers) List(c *fiber.Ctx) error {
	ctx, after, htmx := c.UserContext(), c.Query("after"), page.IsHTMX(c)
	data := views.AdminCustomerList{Errors: views.FieldErrors{}, Typed: htmx}
	status := fiber.StatusOK
	if c.Context().QueryArgs().Has("email") {
		data.Email = formTextIn(c.UserContext(), data.Errors, "email", c.Query("email"), oneLine)
		status = fiber.StatusUnprocessableEntity
		switch {
		case data.Errors.Has("email"):
		case data.Email == "":
			data.Errors["email"] = page.T(c, "admin.customers.email_empty")
		case len(data.Email) > maxEmailBytes || !strings.Contains(data.Email, "@"):
			data.Errors["email"] = page.T(c, "admin.customers.email_whole")
		default:
			cred, err := h.Store.CredentialsByEmail(ctx, data.Email)
			switch {
			case errors.Is(err, store.ErrNotFound):
				status = fiber.StatusNotFound
				data.Errors["email"] = page.T(c, "admin.customers.email_none", "Email", data.Email)
			case err != nil:
				return err
			default:
				return page.Redirect(c, paths.AdminCustomer(cred.CustomerID))
			}
		}
	}
	if c.Context().QueryArgs().Has("q") {
		data.Finding = true
		data.Query = formTextIn(c.UserContext(), data.Errors, "q", c.Query("q"), oneLine)
		switch {
		case data.Errors.Has("q"):
			status = fiber.StatusUnprocessableEntity
		case utf8.RuneCountInString(data.Query) > findMaxRunes:
			status = fiber.StatusUnprocessableEntity
			data.Errors["q"] = page.T(c, "admin.customers.find_too_long")
		case data.Query == "":
			data.Finding = false // the box emptied: the list again
		default:
			if !htmx && strings.Contains(data.Query, "@") && len(data.Query) <= maxEmailBytes {
				cred, err := h.Store.CredentialsByEmail(ctx, data.Query)
				switch {
				case err == nil:
					return page.Redirect(c, paths.AdminCustomer(cred.CustomerID))
				case !errors.Is(err, store.ErrNotFound):
					return err
				}
			}
			found, err := h.Store.FindCustomers(ctx, data.Query, adminPageSize, after)
			if err != nil {
				return err
			}
			data.Matches = found.Items
			data.NextURL = paths.More(paths.AdminCustomers, found.Next, "q", data.Query)
			if len(found.Items) == 0 && after == "" && !htmx {
				status = fiber.StatusNotFound
			}
		}
	}
	if !data.Finding || data.Errors.Has("q") {
		data.Finding = false
		customers, err := h.Store.Customers(ctx, adminPageSize, after)
		if err != nil {
			return err
		}
		data.Customers = customers.Items
		data.NextURL = paths.More(paths.AdminCustomers, customers.Next)
	}
	partial := views.AdminCustomerResults(data)
	if after != "" {
		partial = views.AdminCustomerRows(data)
	}
	return page.Render(c, status, page.View{Title: page.T(c, "admin.customers.title"), Page: page.Full(views.AdminCustomersView, data), Partial: partial})
}

// Show is one customer with their role and its changes, their
// subscriptions, their receipts of the last six months, their invoices
// (access pattern 15) and the products they ordered (pattern 16) in a date
// range. htmx asks for the section (the date filter) or the next page of
// one of its tables, and only that is read.
func (h *AdminCustomers) Show(c *fiber.Ctx) error {
	id, err := pathID(c, "id", "error.not_found.customer")
	if err != nil {
		return err
	}
	return h.show(c, id, fiber.StatusOK, "")
}

// show renders the customer's page; problem is what an owner's change
// could not do (htmx then gets the account section alone).
func (h *AdminCustomers) show(c *fiber.Ctx, id string, status int, problem string) error {
	if problem != "" && page.IsHTMX(c) {
		return h.showAccess(c, id, status, problem)
	}
	a := views.AdminCustomerActivity{CustomerID: id, Filter: views.AdminDateFilter{
		Action: paths.AdminCustomer(id), Target: "customer-activity", From: c.Query("from"), To: c.Query("to"),
	}}
	rng, rerr := parseDateRange(a.Filter.From, a.Filter.To, h.Store.Now(), h.Store.Location())
	invAfter, prodAfter, recAfter := c.Query("invoices_after"), c.Query("products_after"), c.Query("receipts_after")
	// What htmx asked for: one table's next page, or the date-filtered
	// section; the whole page needs everything.
	htmx := page.IsHTMX(c)
	want := func(table string) bool { return customerTableWanted(table, htmx, invAfter, prodAfter, recAfter) }
	var (
		cust     store.Customer
		changes  []store.RoleChange
		invoices store.Page[store.Invoice]
		products store.Page[store.OrderItem]
		subs     []store.Subscription
		receipts store.Page[store.Receipt]
	)
	g, ctx := errgroup.WithContext(c.UserContext())
	g.Go(func() (err error) {
		cust, err = h.Store.Customer(ctx, id)
		return notFoundAs(err, "error.not_found.customer")
	})
	if !htmx {
		g.Go(func() (err error) { changes, err = h.Store.RoleChanges(ctx, id); return err })
	}
	if rerr == nil && want("invoices") {
		g.Go(func() (err error) {
			invoices, err = h.Store.CustomerInvoices(ctx, id, rng.Start, rng.End, adminPageSize, invAfter)
			return err
		})
	}
	if rerr == nil && want("products") {
		g.Go(func() (err error) {
			products, err = h.Store.CustomerProducts(ctx, id, rng.Start, rng.End, adminPageSize, prodAfter)
			return err
		})
	}
	if want("subscriptions") {
		g.Go(func() (err error) { subs, err = h.Store.Subscriptions(ctx, id); return err })
	}
	if want("receipts") {
		g.Go(func() (err error) {
			receipts, err = h.Store.RecentReceipts(ctx, id, adminPageSize, recAfter)
			return err
		})
	}
	err := g.Wait()
	if err != nil {
		return err
	}
	if rerr != nil {
		status = fiber.StatusUnprocessableEntity
		a.Filter.Errors = rerr.Errors()
	} else {
		a.Filter.From, a.Filter.To = rng.From, rng.To
		a.Invoices, a.Products = invoices.Items, products.Items
		if a.OrderNumbers, err = h.orderNumbers(c.UserContext(), id, a); err != nil {
			return err
		}
		if invoices.Next != "" {
			a.InvoicesNext = paths.WithQuery(paths.AdminCustomer(id), "from", rng.From, "to", rng.To, "invoices_after", invoices.Next)
		}
		if products.Next != "" {
			a.ProductsNext = paths.WithQuery(paths.AdminCustomer(id), "from", rng.From, "to", rng.To, "products_after", products.Next)
		}
	}
	billing := views.AdminCustomerBilling{CustomerID: id, Subscriptions: subs, Receipts: receipts.Items}
	if receipts.Next != "" {
		billing.ReceiptsNext = paths.WithQuery(paths.AdminCustomer(id), "receipts_after", receipts.Next)
	}
	data := views.AdminCustomerPage{Customer: cust, Activity: a, Billing: billing, Access: h.access(c, cust, changes, problem)}
	return page.Render(c, status, page.View{Title: cust.Name, Page: page.Full(views.AdminCustomerView, data),
		Partial: customerPartial(data, invAfter, prodAfter, recAfter)})
}

// customerPartial is what htmx asked of the customer's page: one table's
// next rows, or the date-filtered section.
func customerPartial(data views.AdminCustomerPage, invAfter, prodAfter, recAfter string) templ.Component {
	switch {
	case invAfter != "":
		return views.AdminCustomerInvoiceRows(data.Activity)
	case prodAfter != "":
		return views.AdminCustomerProductRows(data.Activity)
	case recAfter != "":
		return views.AdminCustomerReceiptRows(data.Billing)
	}
	return views.AdminCustomerActivitySection(data.Activity)
}

// customerTableWanted says whether the customer's page reads table: all
// of them for the whole page; for htmx, the one whose next page it asked
// for, or the date-filtered section's two.
func customerTableWanted(table string, htmx bool, invAfter, prodAfter, recAfter string) bool {
	switch {
	case !htmx:
		return true
	case invAfter != "":
		return table == "invoices"
	case prodAfter != "":
		return table == "products"
	case recAfter != "":
		return table == "receipts"
	}
	return table == "invoices" || table == "products"
}

// orderNumbers are the numbers of the orders a page of the customer's
// invoices and products names: one BatchGetItem, none when they name no
// order.
func (h *AdminCustomers) orderNumbers(ctx context.Context, customerID string, a views.AdminCustomerActivity) (map[string]string, error) {
	var ids []string
	for _, inv := range a.Invoices {
		ids = append(ids, inv.OrderID)
	}
	for _, it := range a.Products {
		ids = append(ids, it.OrderID)
	}
	if len(ids) == 0 {
		return map[string]string{}, nil
	}
	return h.Store.OrderNumbers(ctx, customerID, ids)
}

// access is the account section: the role, whether it can sign in, the
// changes made to it and, for an owner, the buttons that change it.
func (h *AdminCustomers) access(c *fiber.Ctx, cust store.Customer, changes []store.RoleChange, problem string) views.AdminCustomerAccess {
	v := page.Viewer(c)
	return views.AdminCustomerAccess{
		Customer: cust, Changes: changes, Problem: problem,
		CanManage: v.Owner, Self: v.ID == cust.ID, CSRF: page.CSRFToken(c),
	}
}

// showAccess answers htmx with the account section alone.
func (h *AdminCustomers) showAccess(c *fiber.Ctx, id string, status int, problem string) error {
	var (
		cust    store.Customer
		changes []store.RoleChange
	)
	g, ctx := errgroup.WithContext(c.UserContext())
	g.Go(func() (err error) {
		cust, err = h.Store.Customer(ctx, id)
		return notFoundAs(err, "error.not_found.customer")
	})
	g.Go(func() (err error) { changes, err = h.Store.RoleChanges(ctx, id); return err })
	if err := g.Wait(); err != nil {
		return err
	}
	return page.Write(c, status, views.AdminCustomerAccessSection(h.access(c, cust, changes, problem)))
}

// owner is the owner making a change to an account: anyone else gets 403
// (they see no buttons either).
func (h *AdminCustomers) owner(c *fiber.Ctx) (store.Customer, string, error) {
	by, ok := page.StaffMember(c)
	if !ok || by.Role != store.RoleOwner || by.Deactivated {
		return store.Customer{}, "", page.Forbidden(page.T(c, "admin.customers.owner_only"))
	}
	id, err := pathID(c, "id", "error.not_found.customer")
	return by, id, err
}

// ChangeRole gives the customer the role the form names: make staff or an
// owner, demote. A demotion ends the person's sessions at once.
func (h *AdminCustomers) ChangeRole(c *fiber.Ctx) error {
	by, id, err := h.owner(c)
	if err != nil {
		return err
	}
	role := store.Role(page.Field(c, "role"))
	if !store.ValidRole(role) {
		return page.BadRequest(page.T(c, "admin.customers.choose_role"))
	}
	cust, change, err := h.Store.ChangeRole(c.UserContext(), id, role, by)
	return h.changed(c, id, by, cust, change, err)
}

// Deactivate stops the account from signing in and ends its sessions.
func (h *AdminCustomers) Deactivate(c *fiber.Ctx) error {
	by, id, err := h.owner(c)
	if err != nil {
		return err
	}
	cust, change, err := h.Store.Deactivate(c.UserContext(), id, by)
	return h.changed(c, id, by, cust, change, err)
}

// Reactivate lets the account sign in again.
func (h *AdminCustomers) Reactivate(c *fiber.Ctx) error {
	by, id, err := h.owner(c)
	if err != nil {
		return err
	}
	cust, change, err := h.Store.Reactivate(c.UserContext(), id, by)
	return h.changed(c, id, by, cust, change, err)
}

// changed answers an owner's change: the page again with what went wrong
// (409), or, once made, the person's sessions ended if it took rights away
// (an owner stepping down keeps the session they did it from) and back to
// the page with what happened.
func (h *AdminCustomers) changed(c *fiber.Ctx, id string, by, cust store.Customer, change store.RoleChange, err error) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return page.NotFound("error.not_found.customer")
	case errors.Is(err, store.ErrLastOwner):
		return h.show(c, id, fiber.StatusConflict, page.T(c, "admin.customers.last_owner"))
	case errors.Is(err, store.ErrNotOwner):
		return page.Forbidden(page.T(c, "admin.customers.owner_only"))
	case errors.Is(err, store.ErrNoChange):
		page.Flash(c, views.FlashInfo, page.T(c, "admin.customers.no_change"))
		return page.Redirect(c, paths.AdminCustomer(id))
	case errors.Is(err, store.ErrConflict):
		return h.show(c, id, fiber.StatusConflict, page.T(c, "admin.customers.conflict"))
	case err != nil:
		return err
	}
	msg := views.RoleChangeText(c.UserContext(), cust.Name, change)
	if change.EndsSessions() {
		keep := ""
		if id == by.ID && change.Action == store.ActionRole {
			keep = page.SessionID(c)
		}
		n, err := h.Store.EndSessions(c.UserContext(), id, keep)
		if err != nil {
			return fmt.Errorf("%s, but ending their sessions failed: %w", msg, err)
		}
		msg += " " + page.N(c, "admin.customers.signed_out", n)
	}
	page.Flash(c, views.FlashSuccess, msg)
	return page.Redirect(c, paths.AdminCustomer(id))
}
