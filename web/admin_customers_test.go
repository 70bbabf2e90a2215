package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"shop/store"
	"shop/store/demo"
	"shop/web/paths"
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

// Staff find customers by the first letters of a name or email: htmx gets
// the results alone as they type, a plain GET the page (its URL can be
// shared), a whole email sent with the form goes to that customer.
func TestAdminFindCustomers(t *testing.T) {
	t.Parallel()
	s := newShopWithoutHistory(t) // counts the customers
	b := s.staff(t)
	asa, err := s.env.Store.CreateCustomer(t.Context(), store.NewCustomer{Email: "asa@example.com", Name: "Åsa Öberg", PasswordHash: "h"})
	if err != nil {
		t.Fatal(err)
	}
	names := func(p page) []string {
		var out []string
		p.testid("customer-match-link").Each(func(_ int, a *goquery.Selection) { out = append(out, a.Text()) })
		return out
	}

	p := b.get("/admin/customers?q=SAM", "HX-Request", "true")
	wantStatus(t, "typed", p, http.StatusOK)
	if strings.Contains(p.body, "<html") || p.testid("customer-results").Length() != 1 {
		t.Fatalf("typed: not the results alone: %s", trim(p.body))
	}
	if got := names(p); !slices.Equal(got, []string{"Sam Staff", "Samaneh Karimi"}) {
		t.Fatalf("sam: %q", got)
	}
	p = b.get("/admin/customers?q="+url.QueryEscape("asa ö"), "HX-Request", "true")
	if got := names(p); !slices.Equal(got, []string{"Åsa Öberg"}) {
		t.Fatalf("asa ö: %q", got)
	}
	if href, _ := p.testid("customer-match-link").Attr("href"); href != "/admin/customers/"+asa.ID {
		t.Fatalf("links to %q", href)
	}
	p = b.get("/admin/customers?q=henrik%40", "HX-Request", "true")
	if got := names(p); !slices.Equal(got, []string{"Henrik Berg"}) {
		t.Fatalf("by email: %q", got)
	}
	p = b.get("/admin/customers?q=zz", "HX-Request", "true")
	wantStatus(t, "nothing found as typed", p, http.StatusOK)
	wantText(t, "none", p.testid("customer-find-none"), `starts with "zz"`)
	// The box emptied: the newest customers again.
	p = b.get("/admin/customers?q=", "HX-Request", "true")
	newest, err := s.env.Store.Customers(t.Context(), 25, "")
	if err != nil {
		t.Fatal(err)
	}
	if n := p.testid("admin-customer-row").Length(); n != len(newest.Items) || n == 0 {
		t.Fatalf("emptied: %d rows, the newest page has %d: %s", n, len(newest.Items), trim(p.body))
	}
	p = b.get("/admin/customers?q="+strings.Repeat("x", 101), "HX-Request", "true")
	wantStatus(t, "too long", p, http.StatusUnprocessableEntity)
	wantText(t, "too long", p.testid("customer-find-problem"), "at most 100")

	// The page, as reloaded or without JavaScript.
	p = b.get("/admin/customers?q=sa")
	wantStatus(t, "page", p, http.StatusOK)
	if p.testid("field-q").AttrOr("value", "") != "sa" || len(names(p)) != 2 {
		t.Fatalf("page: %q, box %q", names(p), p.testid("field-q").AttrOr("value", ""))
	}
	wantStatus(t, "nothing found", b.get("/admin/customers?q=zz"), http.StatusNotFound)
	p = b.get("/admin/customers?q=" + url.QueryEscape(strings.ToUpper(demo.CustomerEmail)))
	wantStatus(t, "a whole email", p, http.StatusSeeOther)
	if loc := p.header.Get("Location"); loc != "/admin/customers/"+s.customerID(t, demo.CustomerEmail) {
		t.Fatalf("whole email goes to %q", loc)
	}

	// Paged: "Show more" carries the query.
	for i := range 30 {
		if _, err := s.env.Store.CreateCustomer(t.Context(), store.NewCustomer{Email: fmt.Sprintf("m%02d@example.com", i), Name: fmt.Sprintf("Majken %02d", i), PasswordHash: "h"}); err != nil {
			t.Fatal(err)
		}
	}
	p = b.get("/admin/customers?q=majken")
	more, _ := p.testid("customers-more").Attr("href")
	if len(names(p)) != 25 || !strings.Contains(more, "q=majken") {
		t.Fatalf("first page: %d, more %q", len(names(p)), more)
	}
	p = b.get(more, "HX-Request", "true")
	if got := names(p); len(got) != 5 || got[0] != "Majken 25" || p.testid("customers-more").Length() != 0 {
		t.Fatalf("next page: %q", got)
	}
}

// An order refunded in part shows its refund on the customer's page, by
// its invoice, linking to the order's refunds; in Korean too.
func TestAdminCustomerPageShowsAnInvoicesRefunds(t *testing.T) {
	t.Parallel()
	s := newShopWithoutHistory(t)
	b := s.staff(t)
	m := newOrderMaker(t, s.env.Store)
	ada := s.customerID(t, demo.CustomerEmail)
	o := m.place(s.env.Store, ada, line("kt-mug", 2), line("cf-grinder", 1)) // €37.80 + €54.90
	kept := m.place(s.env.Store, ada, line("kt-mug", 1))
	if _, err := s.env.Store.CreateShipments(context.Background(), o.ID, "Standard"); err != nil {
		t.Fatal(err)
	}
	form := refundForm(t, b.get(paths.AdminOrder(o.ID)), "units-kt-mug", "1", "restock", "gbg", "reason", "Arrived chipped")
	wantStatus(t, "refund one mug", b.post(paths.AdminOrderRefunds(o.ID), form), http.StatusSeeOther)

	c := b.get(paths.AdminCustomer(ada))
	wantStatus(t, "customer", c, http.StatusOK)
	rowOf := func(p page, orderID string) *goquery.Selection {
		return p.testid("customer-invoice-row").FilterFunction(func(_ int, r *goquery.Selection) bool {
			return r.Find(`a[href="/admin/orders/`+orderID+`"]`).Length() == 1
		})
	}
	row := rowOf(c, o.ID)
	if row.Length() != 1 {
		t.Fatalf("%d invoice rows for the refunded order", row.Length())
	}
	ref := row.Find(`[data-testid="customer-invoice-refund"]`)
	if href, _ := ref.Attr("href"); href != paths.AdminOrder(o.ID)+"#refunds" {
		t.Errorf("the refund links to %q", href)
	}
	wantText(t, "refunded", ref.Find(`[data-testid="money"]`), "−€18.90")
	wantText(t, "status", ref.Find(`[data-testid="customer-invoice-refund-status"]`), "Partly refunded")
	if n := rowOf(c, kept.ID).Find(`[data-testid="customer-invoice-refund"]`).Length(); n != 0 {
		t.Error("an order with no refund shows one")
	}

	ko := b.get(paths.AdminCustomer(ada) + "?lang=ko")
	wantStatus(t, "customer in Korean", ko, http.StatusOK)
	wantText(t, "status in Korean", rowOf(ko, o.ID).Find(`[data-testid="customer-invoice-refund-status"]`), "일부 환불됨")
}
