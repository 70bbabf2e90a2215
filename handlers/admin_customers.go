package handlers

import (
	"context"
	"errors"
	"strings"
	"time"

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
	Customers(ctx context.Context, limit int, cursor string) (store.Page[store.Customer], error)
	Customer(ctx context.Context, id string) (store.Customer, error)
	CredentialsByEmail(ctx context.Context, email string) (store.Credentials, error)
	CustomerInvoices(ctx context.Context, customerID, fromDay, toDay string, limit int, cursor string) (store.Page[store.Invoice], error)
	CustomerProducts(ctx context.Context, customerID, fromDay, toDay string, limit int, cursor string) (store.Page[store.OrderItem], error)
	Subscriptions(ctx context.Context, customerID string) ([]store.Subscription, error)
	RecentReceipts(ctx context.Context, customerID string, limit int, cursor string) (store.Page[store.Receipt], error)
}

// AdminCustomers serves /admin/customers.
type AdminCustomers struct {
	Store AdminCustomerStore
}

// List is the customers, newest first, a page at a time (htmx asks for the
// next page's rows), and finds one by email (?email=).
func (h *AdminCustomers) List(c *fiber.Ctx) error {
	data := views.AdminCustomerList{Errors: views.FieldErrors{}}
	status := fiber.StatusOK
	if c.Context().QueryArgs().Has("email") {
		data.Email = formText(data.Errors, "email", c.Query("email"), oneLine)
		status = fiber.StatusUnprocessableEntity
		switch {
		case data.Errors.Has("email"):
		case data.Email == "":
			data.Errors["email"] = "Enter the email address to look for."
		case len(data.Email) > maxEmailBytes || !strings.Contains(data.Email, "@"):
			data.Errors["email"] = "Enter a whole email address, like name@example.com."
		default:
			cred, err := h.Store.CredentialsByEmail(c.UserContext(), data.Email)
			switch {
			case errors.Is(err, store.ErrNotFound):
				status = fiber.StatusNotFound
				data.Errors["email"] = "No customer has the address " + data.Email + "."
			case err != nil:
				return err
			default:
				return page.Redirect(c, paths.AdminCustomer(cred.CustomerID))
			}
		}
	}
	customers, err := h.Store.Customers(c.UserContext(), adminPageSize, c.Query("after"))
	if err != nil {
		return err
	}
	data.Customers = customers.Items
	data.NextURL = paths.More(paths.AdminCustomers, customers.Next)
	return page.Render(c, status, page.View{Title: "Customers", Page: page.Full(views.AdminCustomersView, data), Partial: views.AdminCustomerRows(data)})
}

// Show is one customer with their subscriptions, their receipts of the
// last six months, their invoices (access pattern 15) and the products they
// ordered (pattern 16) in a date range. htmx asks for the section (the date
// filter) or the next page of one of its tables, and only that is read.
func (h *AdminCustomers) Show(c *fiber.Ctx) error {
	id, err := pathID(c, "id", "That customer")
	if err != nil {
		return err
	}
	a := views.AdminCustomerActivity{CustomerID: id, Filter: views.AdminDateFilter{
		Action: paths.AdminCustomer(id), Target: "customer-activity", From: c.Query("from"), To: c.Query("to"),
	}}
	rng, rerr := parseDateRange(a.Filter.From, a.Filter.To, h.Store.Now())
	invAfter, prodAfter, recAfter := c.Query("invoices_after"), c.Query("products_after"), c.Query("receipts_after")
	// What htmx asked for: one table's next page, or the date-filtered
	// section; the whole page needs everything.
	htmx := page.IsHTMX(c)
	want := func(table string) bool {
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
	var (
		cust     store.Customer
		invoices store.Page[store.Invoice]
		products store.Page[store.OrderItem]
		subs     []store.Subscription
		receipts store.Page[store.Receipt]
	)
	g, ctx := errgroup.WithContext(c.UserContext())
	g.Go(func() (err error) { cust, err = h.Store.Customer(ctx, id); return notFoundAs(err, "That customer") })
	if rerr == nil && want("invoices") {
		g.Go(func() (err error) {
			invoices, err = h.Store.CustomerInvoices(ctx, id, rng.From, rng.To, adminPageSize, invAfter)
			return err
		})
	}
	if rerr == nil && want("products") {
		g.Go(func() (err error) {
			products, err = h.Store.CustomerProducts(ctx, id, rng.From, rng.To, adminPageSize, prodAfter)
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
	if err := g.Wait(); err != nil {
		return err
	}
	status := fiber.StatusOK
	if rerr != nil {
		status = fiber.StatusUnprocessableEntity
		a.Filter.Errors = rerr.Errors()
	} else {
		a.Filter.From, a.Filter.To = rng.From, rng.To
		a.Invoices, a.Products = invoices.Items, products.Items
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
	partial := views.AdminCustomerActivitySection(a)
	switch {
	case invAfter != "":
		partial = views.AdminCustomerInvoiceRows(a)
	case prodAfter != "":
		partial = views.AdminCustomerProductRows(a)
	case recAfter != "":
		partial = views.AdminCustomerReceiptRows(billing)
	}
	data := views.AdminCustomerPage{Customer: cust, Activity: a, Billing: billing}
	return page.Render(c, status, page.View{Title: cust.Name, Page: page.Full(views.AdminCustomerView, data), Partial: partial})
}
