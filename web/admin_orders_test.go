package web_test

import (
	"encoding/csv"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"shop/store"
	"shop/store/demo"
)

func TestAdminOrdersAcrossMonthsAndCSV(t *testing.T) {
	t.Parallel()
	s := newShopWithoutHistory(t) // every order of the range is the test's
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
	// Henrik's orders are the newest: the list names him, not his id.
	wantText(t, "customer in the list", first.testid("admin-order-customer").First(), placed[len(placed)-1].Buyer.Name)
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
	header := "order_id,order_number,placed_at (ISO 8601, UTC),customer_id,customer_name,customer_email,status,subtotal,discount,total,currency,lines,ship_to_city,ship_to_country"
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
	wantRow := []string{o.ID, o.Number, o.PlacedAt.UTC().Format("2006-01-02T15:04:05.000Z07:00"), ada, o.Buyer.Name, demo.CustomerEmail, "placed", o.Subtotal.Decimal(), "0.00", o.Total.Decimal(), "EUR", "1", "Borås", "Sweden"}
	if !slices.Equal(last, wantRow) {
		t.Fatalf("row %q, want %q", last, wantRow)
	}
	if o.Buyer.Name == "" {
		t.Fatal("the order does not keep its buyer's name")
	}
	if _, err := time.Parse(time.RFC3339, last[2]); err != nil {
		t.Fatalf("placed_at %q is not RFC 3339", last[2])
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
	wantText(t, "status", p.testid("order-status"), "Waiting to ship")
	if p.testid("create-shipments").Length() != 1 || p.testid("order-shipment").Length() != 0 {
		t.Fatal("a new order offers no \"Pack\"")
	}
	invoiceHref, _ := p.testid("order-invoice").Find("a").Attr("href")
	// Named, not by id: the buyer as they were at checkout.
	if o.Buyer.Name == "" || strings.Contains(p.testid("order-customer").Text(), ada) {
		t.Fatalf("the order names its customer %q", p.testid("order-customer").Text())
	}
	wantText(t, "customer", p.testid("order-customer"), o.Buyer.Name)
	wantText(t, "customer email", p.testid("order-customer-email"), demo.CustomerEmail)

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
	wantText(t, "shipment status", ships.First().Find(`[data-testid="order-shipment-status"]`), "Packed")
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

	// Mark every shipment shipped, then delivered, each confirmed; the
	// order follows.
	var sids []string
	ships.Each(func(_ int, a *goquerySelection) { id, _ := a.Attr("data-shipment"); sids = append(sids, id) })
	p = b.post(path+"/shipments/"+sids[0], url.Values{"status": {"delivered"}, "version": {"1"}})
	wantStatus(t, "delivered before shipped", p, http.StatusUnprocessableEntity)
	wantText(t, "bad step", p.testid("form-error"), "one step at a time")
	wantStatus(t, "unknown status", b.post(path+"/shipments/"+sids[0], url.Values{"status": {"lost"}, "version": {"1"}}), http.StatusUnprocessableEntity)
	wantStatus(t, "unknown shipment", b.post(path+"/shipments/nope", url.Values{"status": {"shipped"}, "version": {"1"}}), http.StatusNotFound)
	for _, sid := range sids {
		p = b.step(path, sid, url.Values{"status": {"shipped"}, "carrier": {"postnord"}, "tracking": {"RR123456785SE"}, "back": {"order"}})
		wantStatus(t, "mark shipped", p, http.StatusSeeOther)
	}
	p = b.get(path)
	wantText(t, "flash", p.testid("flash"), "marked shipped")
	wantText(t, "order shipped", p.testid("order-status"), "Shipped")
	p.testid("order-shipment-status").Each(func(_ int, st *goquerySelection) {
		if strings.TrimSpace(st.Text()) != "Shipped" {
			t.Fatalf("a shipment is %q", st.Text())
		}
	})
	if p.testid("mark-delivered").Length() != len(sids) || p.testid("mark-shipped").Length() != 0 {
		t.Fatal("shipped shipments do not offer \"Mark delivered\"")
	}
	wantText(t, "tracking on the order", p.testid("order-shipment-tracking").First(), "PostNord RR123456785SE")
	wantStatus(t, "shipped twice", b.post(path+"/shipments/"+sids[0], url.Values{"status": {"shipped"}, "version": {"2"}}), http.StatusUnprocessableEntity)
	for _, sid := range sids {
		wantStatus(t, "mark delivered", b.step(path, sid, url.Values{"status": {"delivered"}, "back": {"order"}}), http.StatusSeeOther)
	}
	wantText(t, "order delivered", b.get(path).testid("order-status"), "Delivered")

	// The shipment's own page, and the warehouse's shipments tab.
	sh := b.get("/admin/shipments/" + sids[0])
	wantStatus(t, "shipment", sh, http.StatusOK)
	wantText(t, "shipment status", sh.testid("shipment-status"), "Delivered")
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
	wantText(t, "invoice customer", inv.testid("invoice-customer"), o.Buyer.Name)
	wantText(t, "invoice customer email", inv.testid("invoice-customer-email"), demo.CustomerEmail)
	wantText(t, "payment", inv.testid("payment-type"), "Visa")
	if inv.testid("vat-row").Length() == 0 {
		t.Fatal("the invoice shows no VAT")
	}
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

// Staff go to an order by its number, and show the orders of one status
// within the range; a status rare in a busy range stops after a bounded
// read and says how far it looked.
func TestAdminOrdersByNumberAndStatus(t *testing.T) {
	t.Parallel()
	s := newShopWithoutHistory(t) // counts every order
	b := s.staff(t)
	m := newOrderMaker(t, s.env.Store)
	ada := s.customerID(t, demo.CustomerEmail)
	var placed []store.Order
	for i := range 30 {
		placed = append(placed, m.place(s.env.Store, ada, line([]string{"kt-mug", "cf-grinder", "bk-cinnamon"}[i%3], 1)))
	}
	// The oldest two are being shipped.
	for _, o := range placed[:2] {
		if _, err := s.env.Store.CreateShipments(t.Context(), o.ID, "Standard"); err != nil {
			t.Fatal(err)
		}
	}

	p := b.get("/admin/orders?number=" + strings.ToLower(placed[3].Number))
	wantStatus(t, "by number", p, http.StatusSeeOther)
	if loc := p.header.Get("Location"); loc != "/admin/orders/"+placed[3].ID {
		t.Fatalf("number goes to %q", loc)
	}
	p = b.get("/admin/orders?number=FF-000000")
	wantStatus(t, "unknown number", p, http.StatusNotFound)
	wantText(t, "unknown number", p.testid("error-number"), "No order or return has the number FF-000000")
	wantStatus(t, "blank number", b.get("/admin/orders?number="), http.StatusUnprocessableEntity)

	// Placed: 28 of 30, a screen of 25 then the rest.
	p = b.get("/admin/orders?status=placed")
	wantStatus(t, "placed", p, http.StatusOK)
	if n := p.testid("admin-order-row").Length(); n != 25 {
		t.Fatalf("%d placed orders on the first screen", n)
	}
	if p.testid("field-status").Find("option[selected]").AttrOr("value", "") != "placed" {
		t.Fatal("the status is not kept in the form")
	}
	more, _ := p.testid("orders-more").Attr("hx-get")
	if !strings.Contains(more, "status=placed") {
		t.Fatalf("more: %q", more)
	}
	p = b.get(more, "HX-Request", "true")
	if n := p.testid("admin-order-row").Length(); n != 3 {
		t.Fatalf("%d placed orders on the second screen, want 3", n)
	}
	// Shipping: the two oldest, found on the second page of the range.
	p = b.get("/admin/orders?status=shipping")
	var got []string
	p.testid("admin-order-row").Each(func(_ int, r *goquerySelection) { got = append(got, r.AttrOr("data-order", "")) })
	if !slices.Equal(got, []string{placed[1].ID, placed[0].ID}) {
		t.Fatalf("shipping: %q", got)
	}
	wantStatus(t, "unknown status", b.get("/admin/orders?status=lost"), http.StatusUnprocessableEntity)
}

// A customer's orders, whatever their dates, from the customer's page or
// an order row.
func TestAdminOrdersOfACustomer(t *testing.T) {
	t.Parallel()
	s := newShopWithoutHistory(t) // counts every order
	b := s.staff(t)
	m := newOrderMaker(t, s.env.Store)
	ada, henrik := s.customerID(t, demo.CustomerEmail), s.customerID(t, "henrik@fikafield.example")
	long := time.Now().UTC().AddDate(-1, 0, 0)
	old := m.place(s.storeAt(long), ada, line("kt-mug", 1))
	recent := m.place(s.env.Store, ada, line("cf-grinder", 1))
	m.place(s.env.Store, henrik, line("kt-mug", 1))

	link, _ := b.get("/admin/customers/" + ada).testid("customer-orders").Attr("href")
	p := b.get(link)
	wantStatus(t, "ada's orders", p, http.StatusOK)
	wantText(t, "whose", p.testid("orders-customer"), "Ada Lindqvist")
	var got []string
	p.testid("admin-order-row").Each(func(_ int, r *goquerySelection) { got = append(got, r.AttrOr("data-order", "")) })
	if !slices.Equal(got, []string{recent.ID, old.ID}) {
		t.Fatalf("ada's orders: %q, want %q", got, []string{recent.ID, old.ID})
	}
	if href, _ := p.testid("admin-order-customer-orders").First().Attr("href"); href != link {
		t.Fatalf("an order row's customer links to %q", href)
	}
	wantStatus(t, "unknown customer", b.get("/admin/orders?customer=nobody"), http.StatusNotFound)
}
