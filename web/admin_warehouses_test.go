package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"shop/store"
	"shop/store/demo"
)

func TestAdminHomeLinksEverySection(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	home := s.staff(t).get("/admin")
	wantStatus(t, "console", home, http.StatusOK)
	for id, href := range map[string]string{
		"nav-orders": "/admin/orders", "nav-warehouses": "/admin/warehouses", "nav-products": "/admin/products",
		"nav-customers": "/admin/customers", "nav-invoices": "/admin/invoices", "nav-giftcards": "/admin/giftcards",
		"nav-discounts": "/admin/discounts", "nav-subscriptions": "/admin/subscriptions", "nav-drops": "/admin/drops",
		"nav-jobs": "/admin/jobs", "nav-outbox": "/admin/outbox", "nav-apikeys": "/admin/api-keys",
	} {
		if got, _ := home.testid(id).Attr("href"); got != href {
			t.Errorf("%s links to %q, want %q", id, got, href)
		}
	}
}

func TestAdminAdjustsStockInTheRow(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.staff(t)
	wh := b.get("/admin/warehouses/gbg")
	wantStatus(t, "warehouse", wh, http.StatusOK)
	if wh.testid("adjust-form").Length() != wh.testid("inventory-row").Length() || wh.testid("adjust-form").Length() == 0 {
		t.Fatal("not every inventory row has an adjustment form")
	}
	const product = "bk-cinnamon" // 7 in Göteborg in the demo
	before := stockIn(t, s, product, "gbg")
	if before < 1 {
		t.Fatalf("demo stock of %s in gbg is %d", product, before)
	}
	row := wh.doc.Find(`[data-testid="inventory-row"][data-product="` + product + `"]`)
	wantText(t, "row before", row.Find(`[data-testid="stock-quantity"]`), itoa(before))

	// With htmx: the row comes back with the new quantity.
	p := b.post("/admin/warehouses/gbg/stock", url.Values{"product_id": {product}, "delta": {"+5"}, "reason": {"Delivery from roaster"}, "on": {"warehouse"}}, "HX-Request", "true")
	wantStatus(t, "htmx increase", p, http.StatusOK)
	if strings.Contains(p.body, "<html") || p.testid("inventory-row").Length() != 1 {
		t.Fatalf("htmx adjustment answered more than the row: %s", trim(p.body))
	}
	wantText(t, "new quantity", p.testid("stock-quantity"), itoa(before+5))
	wantText(t, "saved note", p.testid("adjust-saved"), "+5")
	if got := stockIn(t, s, product, "gbg"); got != before+5 {
		t.Fatalf("stock %d after +5, want %d", got, before+5)
	}

	// Below zero: the row says how many are left, with a 422, and nothing changes.
	p = b.post("/admin/warehouses/gbg/stock", url.Values{"product_id": {product}, "delta": {"-500"}, "reason": {"Count"}}, "HX-Request", "true")
	wantStatus(t, "below zero", p, http.StatusUnprocessableEntity)
	wantText(t, "below zero", p.testid("adjust-error-delta"), fmt.Sprintf("Only %d left", before+5))
	if v, _ := p.testid("adjust-delta").Attr("value"); v != "-500" {
		t.Fatalf("the typed change is lost: %q", v)
	}
	if got := stockIn(t, s, product, "gbg"); got != before+5 {
		t.Fatalf("a refused adjustment changed stock to %d", got)
	}

	// Bad input, with htmx and without.
	for _, bad := range []url.Values{
		{"delta": {"3"}, "reason": {""}},
		{"delta": {"abc"}, "reason": {"Count"}},
		{"delta": {"0"}, "reason": {"Count"}},
		{"delta": {"2.5"}, "reason": {"Count"}},
		{"delta": {""}, "reason": {"Count"}},
	} {
		bad.Set("product_id", product)
		p := b.post("/admin/warehouses/gbg/stock", bad, "HX-Request", "true")
		wantStatus(t, "bad adjustment "+bad.Encode(), p, http.StatusUnprocessableEntity)
		if p.doc.Find(`[data-testid^="adjust-error-"]`).Length() == 0 {
			t.Fatalf("%s: no message in the row", bad.Encode())
		}
	}
	p = b.post("/admin/warehouses/gbg/stock", url.Values{"product_id": {product}, "delta": {"-1"}})
	wantStatus(t, "no reason, no JavaScript", p, http.StatusUnprocessableEntity)
	if p.testid("adjust-alone").Length() != 1 || p.testid("adjust-error-reason").Length() != 1 {
		t.Fatalf("a plain form without a reason does not get the form back with the message: %s", trim(p.body))
	}
	wantStatus(t, "unknown product", b.post("/admin/warehouses/gbg/stock", url.Values{"product_id": {"nope"}, "delta": {"1"}, "reason": {"x"}}), http.StatusNotFound)
	wantStatus(t, "unknown warehouse", b.post("/admin/warehouses/atlantis/stock", url.Values{"product_id": {product}, "delta": {"1"}, "reason": {"x"}}), http.StatusNotFound)

	// Without JavaScript: 303 back to the warehouse, which says what happened.
	p = b.post("/admin/warehouses/gbg/stock", url.Values{"product_id": {product}, "delta": {"-1"}, "reason": {"Damaged in transit"}})
	wantStatus(t, "plain decrease", p, http.StatusSeeOther)
	if loc := p.header.Get("Location"); loc != "/admin/warehouses/gbg" {
		t.Fatalf("sent to %q", loc)
	}
	wh = b.get("/admin/warehouses/gbg")
	wantText(t, "flash", wh.testid("flash"), fmt.Sprintf("is now %d", before+4))
	if got := stockIn(t, s, product, "gbg"); got != before+4 {
		t.Fatalf("stock %d, want %d", got, before+4)
	}
	// The adjustments are recorded, newest first, with their reasons.
	if n := wh.testid("recent-adjustments").Find(`[data-testid="adjustment-row"]`).Length(); n != 2 {
		t.Fatalf("%d recent adjustments, want 2", n)
	}
	tab := b.get("/admin/warehouses/gbg/adjustments")
	wantStatus(t, "adjustments tab", tab, http.StatusOK)
	reasons := tab.testid("adjustment-reason")
	if reasons.Length() != 2 || reasons.Eq(0).Text() != "Damaged in transit" || reasons.Eq(1).Text() != "Delivery from roaster" {
		t.Fatalf("adjustments tab shows %q", reasons.Text())
	}
	// Who made them, by name.
	staff, err := s.env.Store.Customer(context.Background(), s.customerID(t, demo.StaffEmail))
	if err != nil {
		t.Fatal(err)
	}
	wantText(t, "adjusted by", tab.testid("adjustment-by").First(), staff.Name)
	wantText(t, "delta", tab.testid("adjustment-delta").Eq(0), "-1")
}

// A warehouse's inventory reads by product name, filtered by part of a
// name (case and accents ignored); by product id it pages as before.
func TestAdminInventoryByNameWithAFilter(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.staff(t)
	p := b.get("/admin/warehouses/gbg")
	wantStatus(t, "inventory", p, http.StatusOK)
	var names []string
	p.testid("inventory-row").Each(func(_ int, r *goquerySelection) {
		names = append(names, strings.TrimSpace(r.Find("td").First().Text()))
	})
	if len(names) <= 25 || p.testid("inventory-more").Length() != 0 {
		t.Fatalf("by name: %d rows, more %d", len(names), p.testid("inventory-more").Length())
	}
	if !slices.IsSortedFunc(names, func(a, b string) int { return strings.Compare(store.FoldText(a), store.FoldText(b)) }) {
		t.Fatalf("not by name: %q", names)
	}
	f := b.get("/admin/warehouses/gbg?q=" + url.QueryEscape("KASA"))
	wantStatus(t, "filter", f, http.StatusOK)
	if n := f.testid("inventory-row").Length(); n != 1 || !strings.Contains(f.testid("inventory-row").Text(), "Kåsa") {
		t.Fatalf("filtered by kasa: %d rows %q", n, f.testid("inventory-row").Text())
	}
	none := b.get("/admin/warehouses/gbg?q=zzzz")
	wantText(t, "nothing matches", none.testid("inventory-none"), "zzzz")
	byID := b.get("/admin/warehouses/gbg?sort=id")
	if byID.testid("inventory-row").Length() != 25 || byID.testid("inventory-more").Length() != 1 {
		t.Fatalf("by id: %d rows, more %d", byID.testid("inventory-row").Length(), byID.testid("inventory-more").Length())
	}
	wantStatus(t, "a long filter", b.get("/admin/warehouses/gbg?q="+strings.Repeat("a", 101)), http.StatusBadRequest)
}
