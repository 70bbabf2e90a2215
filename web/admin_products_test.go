package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"shop/store"
	"shop/store/demo"
)

func TestAdminProductsListCreateEditAndStock(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.staff(t)

	// The list pages through the whole catalogue with htmx.
	list := b.get("/admin/products")
	wantStatus(t, "products", list, http.StatusOK)
	rows := list.testid("admin-product-row").Length()
	if rows != 25 {
		t.Fatalf("first page has %d products, want 25", rows)
	}
	seen := map[string]bool{}
	list.testid("admin-product-link").Each(func(_ int, a *goquerySelection) { h, _ := a.Attr("href"); seen[h] = true })
	more, _ := list.testid("products-more").Attr("hx-get")
	for more != "" {
		p := b.get(more, "HX-Request", "true")
		wantStatus(t, "more products", p, http.StatusOK)
		if strings.Contains(p.body, "<html") {
			t.Fatal("htmx's next page came as a whole page")
		}
		p.testid("admin-product-link").Each(func(_ int, a *goquerySelection) { h, _ := a.Attr("href"); seen[h] = true })
		rows += p.testid("admin-product-row").Length()
		more, _ = p.testid("products-more").Attr("hx-get")
	}
	if rows != 34 || len(seen) != 34 {
		t.Fatalf("pages list %d rows, %d distinct; the demo has 34 products", rows, len(seen))
	}
	if n := b.get("/admin/products?category=music").testid("admin-product-row").Length(); n != 6 {
		t.Fatalf("music lists %d products, want 6", n)
	}

	// Create: bad input comes back at each field with a 422.
	form := b.get("/admin/products/new")
	wantStatus(t, "new product form", form, http.StatusOK)
	if form.doc.Find(`select[name="category"] option`).Length() != 6 {
		t.Fatal("the category select does not offer the five categories")
	}
	p := b.post("/admin/products", url.Values{"name": {""}, "category": {"shoes"}, "price": {"12.345"}})
	wantStatus(t, "bad product", p, http.StatusUnprocessableEntity)
	for _, f := range []string{"name", "category", "price"} {
		if p.testid("error-"+f).Text() == "" {
			t.Errorf("no message at %s", f)
		}
	}
	p = b.post("/admin/products", url.Values{"name": {"Birch Spoon"}, "category": {"kitchen"}, "price": {"ten euros"}}, "HX-Request", "true")
	wantStatus(t, "bad price with htmx", p, http.StatusUnprocessableEntity)
	if strings.Contains(p.body, "<html") || p.testid("product-form").Length() != 1 {
		t.Fatal("htmx did not get the form alone")
	}
	wantText(t, "price message", p.testid("error-price"), "two decimals")
	if v, _ := p.testid("field-name").Attr("value"); v != "Birch Spoon" {
		t.Fatalf("the typed name is lost: %q", v)
	}

	p = b.post("/admin/products", url.Values{"name": {"Birch Spoon"}, "description": {"Carved by hand."}, "category": {"kitchen"}, "price": {"12.5"}})
	wantStatus(t, "create product", p, http.StatusSeeOther)
	loc := p.header.Get("Location")
	id := strings.TrimPrefix(loc, "/admin/products/")
	if id == loc || id == "" {
		t.Fatalf("created product sent to %q", loc)
	}
	created, err := s.env.Store.Product(context.Background(), id)
	if err != nil || created.Price != (store.Money{Amount: 1250, Currency: "EUR"}) || created.Category != "kitchen" {
		t.Fatalf("stored %+v, %v", created, err)
	}
	prod := b.get(loc)
	wantStatus(t, "product page", prod, http.StatusOK)
	wantText(t, "flash", prod.testid("flash"), "Created Birch Spoon")
	stockRows := prod.testid("product-stock-row")
	if stockRows.Length() != 4 || !strings.Contains(stockRows.Text(), "not stocked") {
		t.Fatalf("a new product lists %d warehouses: %q", stockRows.Length(), stockRows.Text())
	}

	// Stock added from the product page, in a warehouse that never held it.
	p = b.post("/admin/warehouses/mmo/stock", url.Values{"product_id": {id}, "delta": {"3"}, "reason": {"First delivery"}, "on": {"product"}}, "HX-Request", "true")
	wantStatus(t, "first stock", p, http.StatusOK)
	if p.testid("product-stock-row").Length() != 1 {
		t.Fatalf("the product page's row did not come back: %s", trim(p.body))
	}
	wantText(t, "first stock", p.testid("stock-quantity"), "3")
	p = b.post("/admin/warehouses/sto/stock", url.Values{"product_id": {id}, "delta": {"-1"}, "reason": {"Lost"}, "on": {"product"}})
	wantStatus(t, "below zero without JavaScript", p, http.StatusUnprocessableEntity)
	wantText(t, "nothing to take", p.testid("adjust-error-delta"), "None left")
	p = b.post("/admin/warehouses/mmo/stock", url.Values{"product_id": {id}, "delta": {"-1"}, "reason": {"Sample"}, "on": {"product"}})
	if wantStatus(t, "plain adjustment from the product page", p, http.StatusSeeOther); p.header.Get("Location") != loc {
		t.Fatalf("sent to %q, want the product page", p.header.Get("Location"))
	}

	// Edit: bad input is a 422 at the field; a good one saves and renames the stock.
	p = b.post(loc, url.Values{"name": {"Birch Spoon"}, "category": {"kitchen"}, "price": {"0"}})
	wantStatus(t, "zero price", p, http.StatusUnprocessableEntity)
	wantText(t, "zero price", p.testid("error-price"), "above zero")
	p = b.post(loc, url.Values{"name": {"Birch Serving Spoon"}, "description": {"Carved by hand in Dalarna."}, "category": {"kitchen"}, "price": {"14.90"}})
	wantStatus(t, "edit product", p, http.StatusSeeOther)
	prod = b.get(loc)
	wantText(t, "new name", prod.testid("admin-product-name"), "Birch Serving Spoon")
	if v, _ := prod.testid("field-price").Attr("value"); v != "14.90" {
		t.Fatalf("price field shows %q", v)
	}
	if got := prod.doc.Find(`[data-testid="product-stock-row"][data-warehouse="mmo"] [data-testid="stock-quantity"]`).Text(); strings.TrimSpace(got) != "2" {
		t.Fatalf("Malmö holds %q, want 2", got)
	}
	inv := b.get("/admin/warehouses/mmo")
	if got := inv.doc.Find(`[data-testid="inventory-row"][data-product="` + id + `"] a`).First().Text(); got != "Birch Serving Spoon" {
		t.Fatalf("the warehouse's inventory names it %q", got)
	}
	wantStatus(t, "unknown product", b.get("/admin/products/no-such-thing"), http.StatusNotFound)
}

func TestAdminProductOrdersByDate(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.staff(t)
	m := newOrderMaker(t, s.env.Store)
	ada := s.customerID(t, demo.CustomerEmail)
	now := time.Now().UTC()
	old := time.Date(now.Year(), now.Month(), now.Day(), 12, 0, 0, 0, time.UTC).AddDate(0, 0, -45)
	q := "?from=" + old.Format("2006-01-02") + "&to=" + now.Format("2006-01-02")
	// The demo's past orders of the product, in the last 30 days and since
	// the old order.
	recent, since := b.get("/admin/products/cf-grinder").testid("product-order-row").Length(), b.get("/admin/products/cf-grinder"+q).testid("product-order-row").Length()
	placed := m.place(s.env.Store, ada, line("cf-grinder", 2))
	m.place(s.storeAt(old), ada, line("cf-grinder", 1))

	p := b.get("/admin/products/cf-grinder")
	wantStatus(t, "product page", p, http.StatusOK)
	if n := p.testid("product-order-row").Length() - recent; n != 1 {
		t.Fatalf("the last 30 days show %d more orders, want 1", n)
	}
	// Newest first: the order just placed, by its buyer's name.
	wantText(t, "buyer", p.testid("product-order-customer").First(), placed.Buyer.Name)
	wantText(t, "buyer's email", p.testid("product-order-customer-email").First(), demo.CustomerEmail)
	if v, _ := p.testid("field-from").Attr("value"); v != now.AddDate(0, 0, -29).Format("2006-01-02") {
		t.Fatalf("default from %q", v)
	}
	// The filter with htmx swaps the section only.
	p = b.get("/admin/products/cf-grinder"+q, "HX-Request", "true")
	wantStatus(t, "filter", p, http.StatusOK)
	if strings.Contains(p.body, "<html") || p.testid("product-orders").Length() != 1 {
		t.Fatalf("htmx filter answered %s", trim(p.body))
	}
	if n := p.testid("product-order-row").Length() - since; n != 2 {
		t.Fatalf("%d more orders from %s, want 2", n, q)
	}
	if f, _ := p.testid("date-filter").Attr("hx-push-url"); f != "true" {
		t.Fatal("the filter does not push its URL")
	}
	// Without JavaScript the same URL is the whole page.
	if n := b.get("/admin/products/cf-grinder"+q).testid("product-order-row").Length() - since; n != 2 {
		t.Fatalf("the full page shows %d orders", n)
	}
	for _, bad := range []string{"?from=2025-02-30", "?from=2025-03-02&to=2025-03-01", "?to=yesterday", "?from=2020-01-01&to=2025-01-01"} {
		p := b.get("/admin/products/cf-grinder"+bad, "HX-Request", "true")
		wantStatus(t, "bad dates "+bad, p, http.StatusUnprocessableEntity)
		if p.doc.Find(`[data-testid="error-from"], [data-testid="error-to"]`).Text() == "" {
			t.Fatalf("%s: no message at the dates", bad)
		}
	}
}

// Staff find products by name from the shop window's search index (no
// read of the table once it is warm), within a category if they pick one.
func TestAdminProductsByName(t *testing.T) {
	t.Parallel()
	s := newShop(t, withoutBackgroundReads)
	b := s.staff(t)
	names := func(p page) []string {
		var out []string
		p.testid("admin-product-link").Each(func(_ int, a *goquerySelection) { out = append(out, a.Text()) })
		return out
	}
	p := b.get("/admin/products?q=STONEWARE+mug")
	wantStatus(t, "by name", p, http.StatusOK)
	if got := names(p); len(got) != 1 || got[0] != "Stoneware Mug" {
		t.Fatalf("stoneware mug: %q", got)
	}
	if p.testid("field-product-q").AttrOr("value", "") != "STONEWARE mug" || p.testid("products-more").Length() != 0 {
		t.Fatal("the box lost the query, or a search pages the catalogue")
	}
	if got := names(b.get("/admin/products?q=mug&category=coffee")); len(got) != 0 {
		t.Fatalf("mugs among the coffee: %q", got)
	}
	p = b.get("/admin/products?q=zzzz")
	wantText(t, "none", p.testid("products-empty"), `No product's name matches "zzzz"`)
	// Warm, the search reads nothing from the table for the products.
	s.env.Counter.Reset()
	b.get("/admin/products?q=grinder")
	if ops := s.env.Counter.Ops(); ops["Query"] > 2 {
		t.Errorf("a warm search read %v", ops)
	}
}
