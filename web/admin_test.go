package web_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"shop/store"
	"shop/store/demo"
	"shop/store/payment"
)

// staff is a browser signed in as the demo staff member.
func (s *shop) staff(t *testing.T) *browser {
	t.Helper()
	b := s.browser(t)
	b.signIn(demo.StaffEmail, demo.StaffPassword)
	return b
}

// customerID is the id of a demo account.
func (s *shop) customerID(t *testing.T, email string) string {
	t.Helper()
	cred, err := s.env.Store.CredentialsByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	return cred.CustomerID
}

// orderMaker places orders straight through the store, paid by a test card.
type orderMaker struct {
	t       *testing.T
	gateway *payment.TestGateway
	card    *store.CardTender
	n       int
}

func newOrderMaker(t *testing.T, ledger payment.Ledger) *orderMaker {
	t.Helper()
	g := payment.NewTestGateway(ledger)
	card, err := g.Tokenize(context.Background(), payment.CardSucceeds, "12/99", "123")
	if err != nil {
		t.Fatal(err)
	}
	return &orderMaker{t: t, gateway: g, card: &store.CardTender{Token: card.Token, Brand: card.Brand, Last4: card.Last4}}
}

// place checks out the lines for the customer through st (whose clock says
// when the order is placed).
func (m *orderMaker) place(st *store.Store, customerID string, lines ...store.CheckoutLine) store.Order {
	m.t.Helper()
	m.n++
	o, err := st.Checkout(context.Background(), store.CheckoutRequest{
		Key: fmt.Sprintf("admin-test-%03d", m.n), CustomerID: customerID, Lines: lines, Card: m.card,
		ShipTo: store.Address{Name: "Ada Lindqvist", Street: "Storgatan", Number: "1", ZipCode: "50330", City: "Borås", Country: "Sweden"},
	}, m.gateway)
	if err != nil {
		m.t.Fatalf("place order %d: %v", m.n, err)
	}
	return o
}

// storeAt is the test's store with a clock stopped at t.
func (s *shop) storeAt(t time.Time) *store.Store {
	return store.New(s.env.Client, s.env.Table, store.WithClock(func() time.Time { return t }))
}

func line(product string, qty int) store.CheckoutLine {
	return store.CheckoutLine{ProductID: product, Quantity: qty}
}

func stockIn(t *testing.T, s *shop, product, warehouse string) int {
	t.Helper()
	levels, err := s.env.Store.ProductStock(context.Background(), product)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range levels {
		if l.WarehouseID == warehouse {
			return l.Quantity
		}
	}
	return -1
}

func wantText(t *testing.T, what string, sel *goquerySelection, want string) {
	t.Helper()
	if got := strings.Join(strings.Fields(sel.Text()), " "); !strings.Contains(got, want) {
		t.Fatalf("%s: %q does not say %q", what, got, want)
	}
}

func TestAdminHomeLinksEverySection(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	home := s.staff(t).get("/admin")
	wantStatus(t, "console", home, http.StatusOK)
	for id, href := range map[string]string{
		"admin-orders": "/admin/orders", "admin-warehouses": "/admin/warehouses", "admin-products": "/admin/products",
		"admin-customers": "/admin/customers", "admin-invoices": "/admin/invoices", "admin-giftcards": "/admin/giftcards",
		"admin-discounts": "/admin/discounts",
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
	wantText(t, "delta", tab.testid("adjustment-delta").Eq(0), "-1")
}

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
	m.place(s.env.Store, ada, line("cf-grinder", 2))
	old := time.Date(now.Year(), now.Month(), now.Day(), 12, 0, 0, 0, time.UTC).AddDate(0, 0, -45)
	m.place(s.storeAt(old), ada, line("cf-grinder", 1))

	p := b.get("/admin/products/cf-grinder")
	wantStatus(t, "product page", p, http.StatusOK)
	if n := p.testid("product-order-row").Length(); n != 1 {
		t.Fatalf("the last 30 days show %d orders, want 1", n)
	}
	if v, _ := p.testid("field-from").Attr("value"); v != now.AddDate(0, 0, -29).Format("2006-01-02") {
		t.Fatalf("default from %q", v)
	}
	// The filter with htmx swaps the section only.
	q := "?from=" + old.Format("2006-01-02") + "&to=" + now.Format("2006-01-02")
	p = b.get("/admin/products/cf-grinder"+q, "HX-Request", "true")
	wantStatus(t, "filter", p, http.StatusOK)
	if strings.Contains(p.body, "<html") || p.testid("product-orders").Length() != 1 {
		t.Fatalf("htmx filter answered %s", trim(p.body))
	}
	if n := p.testid("product-order-row").Length(); n != 2 {
		t.Fatalf("%d orders from %s, want 2", n, q)
	}
	if f, _ := p.testid("date-filter").Attr("hx-push-url"); f != "true" {
		t.Fatal("the filter does not push its URL")
	}
	// Without JavaScript the same URL is the whole page.
	if n := b.get("/admin/products/cf-grinder" + q).testid("product-order-row").Length(); n != 2 {
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

func TestAdminOrdersAcrossMonthsAndCSV(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.staff(t)
	m := newOrderMaker(t, s.env.Store)
	ada, henrik := s.customerID(t, demo.CustomerEmail), s.customerID(t, "henrik@fikafield.example")
	now := time.Now().UTC()
	twoMonthsAgo := time.Date(now.Year(), now.Month()-2, 10, 9, 0, 0, 0, time.UTC)
	products := []string{"cf-grinder", "bk-cinnamon", "kt-mug", "od-knife", "mu-fjall", "cf-light", "kt-kettle"}
	var placed []store.Order
	// 12 orders two months ago, none last month, 16 this month.
	for i := range 12 {
		placed = append(placed, m.place(s.storeAt(twoMonthsAgo.Add(time.Duration(i)*time.Hour)), ada, line(products[i%len(products)], 1)))
	}
	for i := range 16 {
		at := now.Add(-time.Duration(16-i) * time.Minute)
		placed = append(placed, m.place(s.storeAt(at), henrik, line(products[i%len(products)], 1)))
	}
	from := time.Date(twoMonthsAgo.Year(), twoMonthsAgo.Month(), 1, 0, 0, 0, 0, time.UTC).Format("2006-01-02")
	to := now.Format("2006-01-02")

	// The default range is the last 30 days: this month's orders (at least).
	def := b.get("/admin/orders")
	wantStatus(t, "orders", def, http.StatusOK)
	if def.testid("admin-order-row").Length() < 16 || def.testid("admin-order-row").Length() > 25 {
		t.Fatalf("default range lists %d orders", def.testid("admin-order-row").Length())
	}

	// Pages walk the months, newest first, with htmx.
	first := b.get("/admin/orders?from=" + from + "&to=" + to)
	wantStatus(t, "orders range", first, http.StatusOK)
	var ids, times []string
	collect := func(p page) {
		p.testid("admin-order-row").Each(func(_ int, r *goquerySelection) {
			id, _ := r.Attr("data-order")
			ids = append(ids, id)
			times = append(times, r.Find("td").First().Text())
		})
	}
	collect(first)
	if len(ids) != 25 {
		t.Fatalf("first page has %d orders, want 25", len(ids))
	}
	more, _ := first.testid("orders-more").Attr("hx-get")
	firstMore := more
	pages := 1
	for more != "" {
		p := b.get(more, "HX-Request", "true")
		wantStatus(t, "more orders", p, http.StatusOK)
		collect(p)
		more, _ = p.testid("orders-more").Attr("hx-get")
		pages++
	}
	if len(ids) != 28 || pages != 2 {
		t.Fatalf("%d orders on %d pages, want 28 on 2", len(ids), pages)
	}
	if !slices.IsSortedFunc(times, func(a, b string) int { return strings.Compare(b, a) }) {
		t.Fatalf("orders not newest first: %v", times)
	}
	want := make([]string, 0, len(placed))
	for _, o := range placed {
		want = append(want, o.ID)
	}
	slices.Sort(want)
	got := slices.Clone(ids)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatal("the pages do not list every order exactly once")
	}
	if csvURL, _ := first.testid("orders-csv").Attr("href"); csvURL != "/admin/orders.csv?from="+from+"&to="+to {
		t.Fatalf("CSV link %q", csvURL)
	}

	// Bad ranges and cursors are 4xx with a message.
	for _, bad := range []string{"?from=2025-13-01", "?from=2025-03-02&to=2025-03-01", "?to=tomorrow", "?from=2020-01-01&to=2025-01-01"} {
		p := b.get("/admin/orders" + bad)
		wantStatus(t, "orders "+bad, p, http.StatusUnprocessableEntity)
		if p.doc.Find(`[data-testid="error-from"], [data-testid="error-to"]`).Text() == "" {
			t.Fatalf("%s: no message at the dates", bad)
		}
	}
	wantStatus(t, "made-up cursor", b.get("/admin/orders?after=bm9wZQ"), http.StatusBadRequest)
	next, _ := url.Parse(firstMore)
	wantStatus(t, "cursor of another range", b.get("/admin/orders?from=2020-01-01&to=2020-01-31&after="+url.QueryEscape(next.Query().Get("after"))), http.StatusBadRequest)

	// The CSV: a header and one row per order of the range, newest first.
	p := b.get("/admin/orders.csv?from=" + from + "&to=" + to)
	wantStatus(t, "csv", p, http.StatusOK)
	if ct := p.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		t.Fatalf("Content-Type %q", ct)
	}
	if cd := p.header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment;") || !strings.Contains(cd, "orders-"+from+"-to-"+to+".csv") {
		t.Fatalf("Content-Disposition %q", cd)
	}
	records, err := csv.NewReader(strings.NewReader(p.body)).ReadAll()
	if err != nil {
		t.Fatalf("csv: %v\n%s", err, trim(p.body))
	}
	header := "order_id,placed_at,customer_id,status,subtotal,discount,total,currency,lines,ship_to_city,ship_to_country"
	if strings.Join(records[0], ",") != header {
		t.Fatalf("header %q", records[0])
	}
	if len(records) != 29 {
		t.Fatalf("%d data rows, want 28", len(records)-1)
	}
	var csvIDs []string
	for _, r := range records[1:] {
		csvIDs = append(csvIDs, r[0])
	}
	if !slices.Equal(csvIDs, ids) {
		t.Fatal("the CSV's orders are not the list's, in its order")
	}
	last := records[len(records)-1] // the oldest: the first placed
	o := placed[0]
	wantRow := []string{o.ID, o.PlacedAt.UTC().Format("2006-01-02T15:04:05.000Z07:00"), ada, "placed", o.Subtotal.Decimal(), "0.00", o.Total.Decimal(), "EUR", "1", "Borås", "Sweden"}
	if !slices.Equal(last, wantRow) {
		t.Fatalf("row %q, want %q", last, wantRow)
	}
	if _, err := time.Parse(time.RFC3339, last[1]); err != nil {
		t.Fatalf("placed_at %q is not RFC 3339", last[1])
	}
	recent := b.get("/admin/orders.csv?from=" + now.AddDate(0, 0, -1).Format("2006-01-02") + "&to=" + to)
	if n := len(strings.Split(strings.TrimSpace(recent.body), "\n")); n != 17 {
		t.Fatalf("the last two days' CSV has %d lines, want the header and 16", n)
	}
	wantStatus(t, "csv bad dates", b.get("/admin/orders.csv?from=2025-03-02&to=2025-03-01"), http.StatusBadRequest)
	if !strings.Contains(b.get("/admin/orders.csv?from=x").body, "YYYY-MM-DD") {
		t.Fatal("the CSV's 400 does not say what is wrong")
	}
}

func TestAdminOrderShipmentsInvoiceAndShipmentPages(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.staff(t)
	m := newOrderMaker(t, s.env.Store)
	ada := s.customerID(t, demo.CustomerEmail)
	o := m.place(s.env.Store, ada, line("cf-grinder", 1), line("bk-cinnamon", 2))
	path := "/admin/orders/" + o.ID

	p := b.get(path)
	wantStatus(t, "order", p, http.StatusOK)
	if p.testid("order-item-row").Length() != 2 || strings.TrimSpace(p.testid("allocations").First().Text()) == "" {
		t.Fatalf("items: %q", p.testid("order-items").Text())
	}
	wantText(t, "total", p.testid("order-total"), o.Total.String())
	wantText(t, "payment", p.testid("payment-row"), "Visa")
	wantText(t, "payment", p.testid("payment-amount"), o.Total.String())
	wantText(t, "status", p.testid("order-status"), "placed")
	if p.testid("create-shipments").Length() != 1 || p.testid("order-shipment").Length() != 0 {
		t.Fatal("a new order offers no \"Create shipments\"")
	}
	invoiceHref, _ := p.testid("order-invoice").Find("a").Attr("href")

	p = b.post(path+"/shipments", url.Values{"type": {"Overnight by balloon"}})
	wantStatus(t, "unknown shipping type", p, http.StatusUnprocessableEntity)
	wantText(t, "unknown shipping type", p.testid("form-error"), "shipping type")

	p = b.post(path+"/shipments", url.Values{"type": {"Express"}})
	wantStatus(t, "create shipments", p, http.StatusSeeOther)
	p = b.get(path)
	wantText(t, "flash", p.testid("flash"), "Created")
	ships := p.testid("order-shipment")
	if ships.Length() < 1 || p.testid("create-shipments").Length() != 0 {
		t.Fatalf("%d shipments after creating them", ships.Length())
	}
	wantText(t, "shipment status", ships.First().Find(`[data-testid="order-shipment-status"]`), "pending")
	items := 0
	p.testid("order-shipment-item").Each(func(_ int, li *goquerySelection) {
		n, _ := strconv.Atoi(strings.Fields(li.Text())[0])
		items += n
	})
	if items != 3 {
		t.Fatalf("shipments carry %d units, the order has 3", items)
	}

	p = b.post(path+"/shipments", url.Values{"type": {"Express"}})
	wantStatus(t, "create shipments twice", p, http.StatusConflict)
	wantText(t, "twice", p.testid("form-error"), "exist already")

	// Mark every shipment shipped, then delivered; the order follows.
	var sids []string
	ships.Each(func(_ int, a *goquerySelection) { id, _ := a.Attr("data-shipment"); sids = append(sids, id) })
	p = b.post(path+"/shipments/"+sids[0], url.Values{"status": {"delivered"}})
	wantStatus(t, "delivered before shipped", p, http.StatusUnprocessableEntity)
	wantText(t, "bad step", p.testid("form-error"), "one step at a time")
	wantStatus(t, "unknown status", b.post(path+"/shipments/"+sids[0], url.Values{"status": {"lost"}}), http.StatusUnprocessableEntity)
	wantStatus(t, "unknown shipment", b.post(path+"/shipments/nope", url.Values{"status": {"shipped"}}), http.StatusNotFound)
	for _, sid := range sids {
		p = b.post(path+"/shipments/"+sid, url.Values{"status": {"shipped"}})
		wantStatus(t, "mark shipped", p, http.StatusSeeOther)
	}
	p = b.get(path)
	wantText(t, "flash", p.testid("flash"), "marked shipped")
	wantText(t, "order shipped", p.testid("order-status"), "shipped")
	p.testid("order-shipment-status").Each(func(_ int, st *goquerySelection) {
		if strings.TrimSpace(st.Text()) != "shipped" {
			t.Fatalf("a shipment is %q", st.Text())
		}
	})
	if p.testid("mark-delivered").Length() != len(sids) || p.testid("mark-shipped").Length() != 0 {
		t.Fatal("shipped shipments do not offer \"Mark delivered\"")
	}
	wantStatus(t, "shipped twice", b.post(path+"/shipments/"+sids[0], url.Values{"status": {"shipped"}}), http.StatusUnprocessableEntity)
	for _, sid := range sids {
		wantStatus(t, "mark delivered", b.post(path+"/shipments/"+sid, url.Values{"status": {"delivered"}}), http.StatusSeeOther)
	}
	wantText(t, "order delivered", b.get(path).testid("order-status"), "delivered")

	// The shipment's own page, and the warehouse's shipments tab.
	sh := b.get("/admin/shipments/" + sids[0])
	wantStatus(t, "shipment", sh, http.StatusOK)
	wantText(t, "shipment status", sh.testid("shipment-status"), "delivered")
	if sh.testid("shipment-item-row").Length() == 0 {
		t.Fatal("the shipment page lists no items")
	}
	if href, _ := sh.testid("shipment-order").Attr("href"); href != path {
		t.Fatalf("shipment links to order %q", href)
	}
	whHref, _ := sh.testid("shipment-warehouse").Attr("href")
	tab := b.get(whHref + "/shipments")
	wantStatus(t, "warehouse shipments", tab, http.StatusOK)
	found := false
	tab.testid("shipment-link").Each(func(_ int, a *goquerySelection) {
		h, _ := a.Attr("href")
		found = found || h == "/admin/shipments/"+sids[0]
	})
	if !found {
		t.Fatalf("the warehouse's shipments tab lacks %s", sids[0])
	}
	wantStatus(t, "unknown shipment page", b.get("/admin/shipments/nope"), http.StatusNotFound)
	wantStatus(t, "unknown order", b.get("/admin/orders/nope"), http.StatusNotFound)

	// Invoices: the lookup form and the invoice page.
	invID := strings.TrimPrefix(invoiceHref, "/admin/invoices/")
	wantStatus(t, "invoice lookup form", b.get("/admin/invoices"), http.StatusOK)
	p = b.get("/admin/invoices?id=" + url.QueryEscape(" "+invID+" "))
	wantStatus(t, "lookup", p, http.StatusSeeOther)
	if p.header.Get("Location") != invoiceHref {
		t.Fatalf("lookup sent to %q", p.header.Get("Location"))
	}
	inv := b.get(invoiceHref)
	wantStatus(t, "invoice", inv, http.StatusOK)
	wantText(t, "amount", inv.testid("invoice-amount"), o.Total.String())
	wantText(t, "payment", inv.testid("payment-type"), "Visa")
	if href, _ := inv.testid("invoice-order").Attr("href"); href != path {
		t.Fatalf("invoice links to %q", href)
	}
	p = b.get("/admin/invoices?id=nosuchinvoice")
	wantStatus(t, "unknown invoice", p, http.StatusNotFound)
	wantText(t, "unknown invoice", p.testid("error-id"), "No invoice")
	p = b.get("/admin/invoices?id=" + url.QueryEscape("not an id!"))
	wantStatus(t, "malformed invoice id", p, http.StatusUnprocessableEntity)
	if p.testid("error-id").Text() == "" {
		t.Fatal("no message at the id")
	}
}

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

var giftCode = regexp.MustCompile(`^GIFT-[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$`)

func TestAdminGiftCardsAndDiscountCodes(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.staff(t)

	g := b.get("/admin/giftcards")
	wantStatus(t, "gift cards", g, http.StatusOK)
	if g.testid("giftcards-empty").Length() != 1 {
		t.Fatal("the demo has no gift cards")
	}
	p := b.post("/admin/giftcards", url.Values{"code": {""}, "amount": {"50"}})
	wantStatus(t, "issue with a new code", p, http.StatusSeeOther)
	g = b.get("/admin/giftcards")
	wantText(t, "flash", g.testid("flash"), "Issued gift card GIFT-")
	if code := g.testid("giftcard-code").Text(); !giftCode.MatchString(code) {
		t.Fatalf("generated code %q", code)
	}
	wantText(t, "balance", g.testid("giftcard-balance"), "€50.00")

	wantStatus(t, "issue a typed code", b.post("/admin/giftcards", url.Values{"code": {"fika 2025"}, "amount": {"25.50"}}), http.StatusSeeOther)
	card, err := s.env.Store.GiftCard(context.Background(), "FIKA2025")
	if err != nil || card.Balance.Amount != 2550 {
		t.Fatalf("stored %+v, %v", card, err)
	}
	p = b.post("/admin/giftcards", url.Values{"code": {"FIKA2025"}, "amount": {"10"}})
	wantStatus(t, "duplicate gift card", p, http.StatusUnprocessableEntity)
	wantText(t, "duplicate gift card", p.testid("error-code"), "exists")
	p = b.post("/admin/giftcards", url.Values{"code": {"fika2025"}, "amount": {"10"}}, "HX-Request", "true")
	wantStatus(t, "duplicate gift card with htmx", p, http.StatusUnprocessableEntity)
	if strings.Contains(p.body, "<html") || p.testid("giftcard-form").Length() != 1 || p.testid("error-code").Length() != 1 {
		t.Fatalf("htmx duplicate answered %s", trim(p.body))
	}
	for _, bad := range []url.Values{
		{"amount": {"ten"}}, {"amount": {"0"}}, {"amount": {"-5"}}, {"amount": {"1.234"}}, {"amount": {""}}, {"amount": {"20000"}},
		{"amount": {"10"}, "code": {"no"}}, {"amount": {"10"}, "code": {"bad*code"}},
	} {
		p := b.post("/admin/giftcards", bad)
		wantStatus(t, "bad gift card "+bad.Encode(), p, http.StatusUnprocessableEntity)
		if p.doc.Find(`[data-testid="error-amount"], [data-testid="error-code"]`).Text() == "" {
			t.Fatalf("%s: no message at the field", bad.Encode())
		}
	}
	if n := b.get("/admin/giftcards").testid("giftcard-row").Length(); n != 2 {
		t.Fatalf("%d gift cards after bad input, want 2", n)
	}

	d := b.get("/admin/discounts")
	wantStatus(t, "discounts", d, http.StatusOK)
	tomorrow := time.Now().UTC().AddDate(0, 0, 1).Format("2006-01-02")
	p = b.post("/admin/discounts", url.Values{"code": {"summer-25"}, "kind": {"percent"}, "value": {"25"}, "expires": {tomorrow}, "limit": {"100"}})
	wantStatus(t, "percent code", p, http.StatusSeeOther)
	p = b.post("/admin/discounts", url.Values{"code": {"FIVEOFF"}, "kind": {"fixed"}, "value": {"5"}, "expires": {tomorrow}, "limit": {"1"}})
	wantStatus(t, "fixed code", p, http.StatusSeeOther)
	d = b.get("/admin/discounts")
	if d.testid("discount-row").Length() != 2 {
		t.Fatalf("%d codes listed", d.testid("discount-row").Length())
	}
	row := d.doc.Find(`[data-testid="discount-row"][data-code="SUMMER-25"]`)
	wantText(t, "percent", row.Find(`[data-testid="discount-value"]`), "25 %")
	wantText(t, "uses", row.Find(`[data-testid="discount-uses"]`), "0 / 100")
	wantText(t, "state", row.Find(`[data-testid="discount-state"]`), "active")
	wantText(t, "fixed", d.doc.Find(`[data-testid="discount-row"][data-code="FIVEOFF"] [data-testid="discount-value"]`), "€5.00")
	code, err := s.env.Store.DiscountCode(context.Background(), "SUMMER-25")
	if err != nil || code.Percent != 25 || code.UsageLimit != 100 || !code.ExpiresAt.Equal(time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 2)) {
		t.Fatalf("stored %+v, %v", code, err)
	}

	p = b.post("/admin/discounts", url.Values{"code": {"Summer-25"}, "kind": {"fixed"}, "value": {"3"}, "expires": {tomorrow}, "limit": {"5"}})
	wantStatus(t, "duplicate code", p, http.StatusUnprocessableEntity)
	wantText(t, "duplicate code", p.testid("error-code"), "exists")
	yesterday := time.Now().UTC().AddDate(0, 0, -1).Format("2006-01-02")
	for _, bad := range []struct {
		field string
		form  url.Values
	}{
		{"value", url.Values{"code": {"PCT0"}, "kind": {"percent"}, "value": {"0"}, "expires": {tomorrow}, "limit": {"1"}}},
		{"value", url.Values{"code": {"PCT101"}, "kind": {"percent"}, "value": {"101"}, "expires": {tomorrow}, "limit": {"1"}}},
		{"value", url.Values{"code": {"FIXBAD"}, "kind": {"fixed"}, "value": {"five"}, "expires": {tomorrow}, "limit": {"1"}}},
		{"value", url.Values{"code": {"NOVALUE"}, "kind": {"fixed"}, "value": {""}, "expires": {tomorrow}, "limit": {"1"}}},
		{"kind", url.Values{"code": {"KINDX"}, "kind": {"bogus"}, "value": {"5"}, "expires": {tomorrow}, "limit": {"1"}}},
		{"expires", url.Values{"code": {"OLDONE"}, "kind": {"percent"}, "value": {"5"}, "expires": {yesterday}, "limit": {"1"}}},
		{"expires", url.Values{"code": {"BADDAY"}, "kind": {"percent"}, "value": {"5"}, "expires": {"2025-02-30"}, "limit": {"1"}}},
		{"limit", url.Values{"code": {"NOLIMIT"}, "kind": {"percent"}, "value": {"5"}, "expires": {tomorrow}, "limit": {"0"}}},
		{"code", url.Values{"code": {"x"}, "kind": {"percent"}, "value": {"5"}, "expires": {tomorrow}, "limit": {"1"}}},
	} {
		p := b.post("/admin/discounts", bad.form, "HX-Request", "true")
		wantStatus(t, "bad discount "+bad.form.Encode(), p, http.StatusUnprocessableEntity)
		if p.testid("error-"+bad.field).Text() == "" {
			t.Fatalf("%s: no message at %s: %s", bad.form.Encode(), bad.field, trim(p.body))
		}
	}
	if n := b.get("/admin/discounts").testid("discount-row").Length(); n != 2 {
		t.Fatalf("%d codes after bad input, want 2", n)
	}
}
