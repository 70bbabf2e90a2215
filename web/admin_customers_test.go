package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"shop/store/demo"
)

func TestAdminCustomers(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.staff(t)
	m := newOrderMaker(t, s.env.Store)
	ada := s.customerID(t, demo.CustomerEmail)
	c := b.get("/admin/customers/" + ada)
	invoicesBefore, productsBefore := c.testid("customer-invoice-row").Length(), c.testid("customer-product-row").Length() // the demo's past orders
	o := m.place(s.env.Store, ada, line("kt-mug", 2))

	list := b.get("/admin/customers")
	wantStatus(t, "customers", list, http.StatusOK)
	if n, want := list.testid("admin-customer-row").Length(), s.env.CountEntities(t, "customer"); n != want || n < 4 {
		t.Fatalf("%d customers listed, want %d", n, want)
	}
	p := b.get("/admin/customers?email=" + url.QueryEscape(strings.ToUpper(demo.CustomerEmail)))
	wantStatus(t, "find by email", p, http.StatusSeeOther)
	if loc := p.header.Get("Location"); loc != "/admin/customers/"+ada {
		t.Fatalf("found at %q", loc)
	}
	p = b.get("/admin/customers?email=nobody%40fikafield.example")
	wantStatus(t, "unknown email", p, http.StatusNotFound)
	wantText(t, "unknown email", p.testid("error-email"), "No customer")
	wantStatus(t, "blank email", b.get("/admin/customers?email="), http.StatusUnprocessableEntity)

	c = b.get("/admin/customers/" + ada)
	wantStatus(t, "customer", c, http.StatusOK)
	wantText(t, "name", c.testid("customer-name"), "Ada Lindqvist")
	if c.testid("customer-invoice-row").Length() != invoicesBefore+1 || c.testid("customer-product-row").Length() != productsBefore+1 {
		t.Fatalf("customer page: %d invoices, %d products, after %d and %d", c.testid("customer-invoice-row").Length(), c.testid("customer-product-row").Length(), invoicesBefore, productsBefore)
	}
	row := c.testid("customer-product-row").FilterFunction(func(_ int, r *goquerySelection) bool {
		return r.Find(`a[href="/admin/orders/`+o.ID+`"]`).Length() == 1
	})
	if row.Length() != 1 {
		t.Fatalf("no product row links to the order %s", o.ID)
	}
	wantText(t, "product", row, "Stoneware Mug")
	// A range before the order shows nothing; htmx gets the section alone.
	p = b.get("/admin/customers/"+ada+"?from=2024-01-01&to=2024-01-31", "HX-Request", "true")
	wantStatus(t, "old range", p, http.StatusOK)
	if strings.Contains(p.body, "<html") || p.testid("customer-invoices-empty").Length() != 1 || p.testid("customer-products-empty").Length() != 1 {
		t.Fatalf("old range: %s", trim(p.body))
	}
	p = b.get("/admin/customers/" + ada + "?from=2024-01-31&to=2024-01-01")
	wantStatus(t, "backwards range", p, http.StatusUnprocessableEntity)
	wantText(t, "backwards range", p.testid("error-from"), "after the last day")
	wantStatus(t, "unknown customer", b.get("/admin/customers/nope"), http.StatusNotFound)
}
