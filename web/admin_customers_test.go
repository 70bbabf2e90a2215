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
	o := m.place(s.env.Store, ada, line("kt-mug", 2))

	list := b.get("/admin/customers")
	wantStatus(t, "customers", list, http.StatusOK)
	if n := list.testid("admin-customer-row").Length(); n != 4 {
		t.Fatalf("%d customers listed, want 4", n)
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

	c := b.get("/admin/customers/" + ada)
	wantStatus(t, "customer", c, http.StatusOK)
	wantText(t, "name", c.testid("customer-name"), "Ada Lindqvist")
	if c.testid("customer-invoice-row").Length() != 1 || c.testid("customer-product-row").Length() != 1 {
		t.Fatalf("customer page: %d invoices, %d products", c.testid("customer-invoice-row").Length(), c.testid("customer-product-row").Length())
	}
	wantText(t, "product", c.testid("customer-product-row"), "Stoneware Mug")
	if href, _ := c.testid("customer-product-row").Find(`a[href^="/admin/orders/"]`).Attr("href"); href != "/admin/orders/"+o.ID {
		t.Fatalf("product row links to %q", href)
	}
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
