package web_test

import (
	"encoding/csv"
	"net/http"
	"slices"
	"strings"
	"testing"

	"shop/store"
	"shop/store/demo"
)

// Staff filter the orders by a product they hold a line of and by any part
// of the customer's name or email, with the status; the screen, its "Show
// more" and its CSV keep the filters, and a product not in the catalogue or
// words too long are refused at their field.
func TestAdminOrdersByProductAndCustomer(t *testing.T) {
	t.Parallel()
	s := newShopWithoutHistory(t)
	b := s.staff(t)
	m := newOrderMaker(t, s.env.Store)
	ada, henrik := s.customerID(t, demo.CustomerEmail), s.customerID(t, "henrik@fikafield.example")
	var adaGrinder, grinder, adaAll []string
	for i := range 30 {
		who := []string{ada, henrik}[i%2]
		product := []string{"kt-mug", "cf-grinder", "bk-cinnamon"}[i%3]
		lines := []store.CheckoutLine{line(product, 1)}
		if i%5 == 0 {
			lines = append(lines, line("kt-mug", 1)) // two products in one order
			if product == "kt-mug" {
				lines = lines[:1]
			}
		}
		o := m.place(s.env.Store, who, lines...)
		if product == "cf-grinder" {
			grinder = append(grinder, o.ID)
			if who == ada {
				adaGrinder = append(adaGrinder, o.ID)
			}
		}
		if who == ada {
			adaAll = append(adaAll, o.ID)
		}
	}
	slices.Reverse(adaGrinder) // newest first, as the list shows them
	slices.Reverse(grinder)
	slices.Reverse(adaAll)
	rows := func(p page) (ids []string) {
		p.testid("admin-order-row").Each(func(_ int, r *goquerySelection) { ids = append(ids, r.AttrOr("data-order", "")) })
		return ids
	}

	p := b.get("/admin/orders?product=cf-grinder")
	wantStatus(t, "by product", p, http.StatusOK)
	if got := rows(p); !slices.Equal(got, grinder) {
		t.Fatalf("orders with the grinder: %q, want %q", got, grinder)
	}
	if p.testid("field-product").Find("option[selected]").AttrOr("value", "") != "cf-grinder" {
		t.Fatal("the product is not kept in the form")
	}
	wantText(t, "says the product", p.testid("orders-product"), "Grinder")

	// Any part of the name or the email, in any case.
	for _, typed := range []string{"LINDQ", "ada@fika"} {
		p = b.get("/admin/orders?buyer=" + typed)
		if got := rows(p); !slices.Equal(got, adaAll[:min(len(adaAll), 25)]) {
			t.Fatalf("buyer %q: %d orders, want Ada's %d", typed, len(got), len(adaAll))
		}
	}
	p = b.get("/admin/orders?buyer=lindq&product=cf-grinder&status=placed")
	if got := rows(p); !slices.Equal(got, adaGrinder) {
		t.Fatalf("Ada's placed grinder orders: %q, want %q", got, adaGrinder)
	}
	csvURL, _ := p.testid("orders-csv").Attr("href")
	for _, want := range []string{"product=cf-grinder", "buyer=lindq", "status=placed"} {
		if !strings.Contains(csvURL, want) {
			t.Fatalf("the CSV link %q lacks %s", csvURL, want)
		}
	}
	c := b.get(csvURL)
	wantStatus(t, "filtered csv", c, http.StatusOK)
	records, err := csv.NewReader(strings.NewReader(c.body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var csvIDs []string
	for _, r := range records[1:] {
		csvIDs = append(csvIDs, r[0])
	}
	if !slices.Equal(csvIDs, adaGrinder) {
		t.Fatalf("the filtered CSV: %q, want %q", csvIDs, adaGrinder)
	}

	// "Show more" keeps the filters: both customers' emails hold
	// "fikafield", 30 orders over screens of 25.
	p = b.get("/admin/orders?buyer=fikafield")
	if n := p.testid("admin-order-row").Length(); n != 25 {
		t.Fatalf("%d rows of 30 orders by fikafield customers on the first screen", n)
	}
	more, _ := p.testid("orders-more").Attr("hx-get")
	if !strings.Contains(more, "buyer=fikafield") {
		t.Fatalf("more: %q", more)
	}
	if n := b.get(more, "HX-Request", "true").testid("admin-order-row").Length(); n != 5 {
		t.Fatalf("%d rows on the second screen, want 5", n)
	}

	p = b.get("/admin/orders?product=no-such-thing")
	wantStatus(t, "unknown product", p, http.StatusUnprocessableEntity)
	wantText(t, "unknown product", p.testid("error-product"), "Pick a product from the list.")
	p = b.get("/admin/orders?buyer=" + strings.Repeat("a", 101))
	wantStatus(t, "long buyer", p, http.StatusUnprocessableEntity)
	wantText(t, "long buyer", p.testid("error-buyer"), "At most 100")
	wantStatus(t, "csv unknown product", b.get("/admin/orders.csv?product=no-such-thing"), http.StatusBadRequest)
}
