package web_test

import (
	"encoding/csv"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"shop/store"
	"shop/store/demo"
	"shop/store/storetest"
)

// A Stockholm shop's staff pick Stockholm days and read Stockholm times:
// the orders placed just either side of local midnight fall on the right
// day, across the month end and both daylight-saving changes, and each
// time names its zone (CET in winter, CEST in summer), never UTC.
func TestStaffDaysAndTimesAreTheShopsZone(t *testing.T) {
	t.Parallel()
	stockholm, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		t.Fatal(err)
	}
	var counter storetest.Counter
	// No background reads in the count (as in the budget test): a drop gate
	// that does not refresh itself, API keys reloaded hourly.
	s := newShop(t, withStore(&counter, store.WithTimeZone(stockholm)), withoutBackgroundReads)
	staff := s.staff(t)
	m := newOrderMaker(t, s.env.Store)
	henrik := s.customerID(t, "henrik@fikafield.example")

	at := func(utc string) time.Time {
		t.Helper()
		v, err := time.Parse(time.RFC3339, utc)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	orders := map[string]store.Order{} // by name below
	for _, o := range []struct{ name, utc string }{
		{"21 Nov 23:59 CET", "2026-11-21T22:59:59Z"},
		{"22 Nov 00:00 CET", "2026-11-21T23:00:00Z"}, // 21 Nov in UTC
		{"22 Nov 23:59 CET", "2026-11-22T22:59:00Z"},
		{"23 Nov 00:00 CET", "2026-11-22T23:00:00Z"}, // 22 Nov in UTC
		{"30 Nov 23:30 CET", "2026-11-30T22:30:00Z"},
		{"1 Dec 00:30 CET", "2026-11-30T23:30:00Z"}, // November in UTC
		{"28 Mar 23:30 CET", "2026-03-28T22:30:00Z"},
		{"29 Mar 00:30 CET", "2026-03-28T23:30:00Z"},
		{"29 Mar 23:30 CEST", "2026-03-29T21:30:00Z"}, // a 23-hour day
		{"30 Mar 00:30 CEST", "2026-03-29T22:30:00Z"},
		{"24 Oct 23:30 CEST", "2026-10-24T21:30:00Z"},
		{"25 Oct 00:30 CEST", "2026-10-24T22:30:00Z"},
		{"25 Oct 23:30 CET", "2026-10-25T22:30:00Z"}, // a 25-hour day
		{"26 Oct 00:30 CET", "2026-10-25T23:30:00Z"},
	} {
		orders[o.name] = m.place(s.storeAt(at(o.utc)), henrik, line("kt-mug", 1))
	}
	names := func(p page, rows, attr string) []string {
		var got []string
		p.testid(rows).Each(func(_ int, r *goquerySelection) {
			id, _ := r.Attr(attr)
			if id == "" {
				id = strings.TrimPrefix(attrOf(r.Find(`a[href^="/admin/orders/"]`), "href"), "/admin/orders/")
			}
			for name, o := range orders { // other orders (the demo's) are not this test's
				if o.ID == id {
					got = append(got, name)
				}
			}
		})
		return got
	}

	for _, tc := range []struct {
		from, to string
		want     []string // newest first
	}{
		{"2026-11-22", "2026-11-22", []string{"22 Nov 23:59 CET", "22 Nov 00:00 CET"}},
		{"2026-11-21", "2026-11-21", []string{"21 Nov 23:59 CET"}},
		{"2026-11-23", "2026-11-23", []string{"23 Nov 00:00 CET"}},
		{"2026-12-01", "2026-12-01", []string{"1 Dec 00:30 CET"}},
		{"2026-11-30", "2026-11-30", []string{"30 Nov 23:30 CET"}},
		{"2026-03-29", "2026-03-29", []string{"29 Mar 23:30 CEST", "29 Mar 00:30 CET"}},
		{"2026-10-25", "2026-10-25", []string{"25 Oct 23:30 CET", "25 Oct 00:30 CEST"}},
		{"2026-10-24", "2026-10-24", []string{"24 Oct 23:30 CEST"}},
	} {
		p := staff.get("/admin/orders?from=" + tc.from + "&to=" + tc.to)
		wantStatus(t, "orders of "+tc.from, p, http.StatusOK)
		if got := names(p, "admin-order-row", "data-order"); !slices.Equal(got, tc.want) {
			t.Errorf("orders of %s..%s: %q, want %q", tc.from, tc.to, got, tc.want)
		}
		wantText(t, "date filter", p.testid("date-filter-zone"), "Europe/Stockholm")
		if strings.Contains(p.doc.Find("main").Text(), "UTC") {
			t.Errorf("orders of %s say UTC: %s", tc.from, trim(p.doc.Find("main").Text()))
		}
	}

	// A day starting in the UTC month before reads that month's partition
	// too: one more Query per list shard, and no more.
	queries := func(path string) int {
		counter.Reset()
		wantStatus(t, path, staff.get(path), http.StatusOK)
		return counter.Ops()["Query"]
	}
	mid, first := queries("/admin/orders?from=2026-11-22&to=2026-11-22"), queries("/admin/orders?from=2026-12-01&to=2026-12-01")
	t.Logf("Queries of the orders of a day: %d mid-month, %d on the 1st", mid, first)
	if first != 2*mid {
		t.Errorf("the orders of 1 Dec took %d queries, want twice the %d of 22 Nov (two month partitions)", first, mid)
	}

	// Each row says when, in the zone in force then.
	p := staff.get("/admin/orders?from=2026-10-24&to=2026-10-26")
	var stamps []string
	p.testid("admin-order-row").Each(func(_ int, r *goquerySelection) {
		// The day over its time; the whole instant in the cell's title.
		cell := r.Find("td").First()
		if day, clock := cell.Contents().First().Text(), cell.Find("small").Text(); !strings.Contains(cell.AttrOr("title", ""), day) || !strings.Contains(strings.Join(strings.Fields(cell.AttrOr("title", "")), " "), strings.Join(strings.Fields(clock), " ")) {
			t.Errorf("the cell shows %q over %q, its title %q", day, clock, cell.AttrOr("title", ""))
		}
		stamps = append(stamps, strings.Join(strings.Fields(cell.AttrOr("title", "")), " "))
	})
	for _, want := range []string{"2026-10-26 00:30 CET", "2026-10-25 23:30 CET", "2026-10-25 00:30 CEST", "2026-10-24 23:30 CEST"} {
		if !slices.Contains(stamps, want) {
			t.Errorf("rows say %q, want one at %q", stamps, want)
		}
	}

	// The order's own page, the customer's and the product's pages too.
	o := orders["22 Nov 00:00 CET"]
	order := staff.get("/admin/orders/" + o.ID)
	wantStatus(t, "order", order, http.StatusOK)
	wantText(t, "order page", order.doc.Find("main"), "Placed 2026-11-22 00:00 CET")
	cust := staff.get("/admin/customers/" + henrik + "?from=2026-11-22&to=2026-11-22")
	wantStatus(t, "customer", cust, http.StatusOK)
	if got := names(cust, "customer-product-row", ""); !slices.Equal(got, []string{"22 Nov 23:59 CET", "22 Nov 00:00 CET"}) {
		t.Errorf("Henrik's products of 22 Nov: %q", got)
	}
	if got := names(cust, "customer-invoice-row", ""); !slices.Equal(got, []string{"22 Nov 23:59 CET", "22 Nov 00:00 CET"}) {
		t.Errorf("Henrik's invoices of 22 Nov: %q", got)
	}
	wantText(t, "customer's products", cust.testid("customer-products"), "2026-11-22 00:00 CET")
	product := staff.get("/admin/products/kt-mug?from=2026-03-29&to=2026-03-29")
	wantStatus(t, "product", product, http.StatusOK)
	if got := names(product, "product-order-row", ""); !slices.Equal(got, []string{"29 Mar 23:30 CEST", "29 Mar 00:30 CET"}) {
		t.Errorf("mugs ordered on 29 Mar: %q", got)
	}
	for what, pg := range map[string]page{"order": order, "customer": cust, "product": product} {
		if strings.Contains(pg.doc.Find("main").Text(), "UTC") {
			t.Errorf("the %s page says UTC", what)
		}
	}

	// The export: the shop's offset, the zone named in the header.
	export := staff.get("/admin/orders.csv?from=2026-11-22&to=2026-11-22")
	wantStatus(t, "csv", export, http.StatusOK)
	records, err := csv.NewReader(strings.NewReader(export.body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if records[0][2] != "placed_at (ISO 8601, Europe/Stockholm)" {
		t.Fatalf("header %q", records[0])
	}
	var rows []string
	for _, r := range records[1:] {
		if r[0] == o.ID || r[0] == orders["22 Nov 23:59 CET"].ID {
			rows = append(rows, r[2])
		}
	}
	if want := []string{"2026-11-22T23:59:00.000+01:00", "2026-11-22T00:00:00.000+01:00"}; !slices.Equal(rows, want) {
		t.Fatalf("placed_at %q, want %q", rows, want)
	}
	for _, r := range rows {
		if v, err := time.Parse(time.RFC3339, r); err != nil || v.Before(at("2026-11-21T23:00:00Z")) {
			t.Fatalf("placed_at %q does not read back as the instant: %v", r, err)
		}
	}
}

// A customer's sessions page shows its times in the shop's zone too.
func TestAccountSessionsShowTheShopsZone(t *testing.T) {
	t.Parallel()
	stockholm, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		t.Fatal(err)
	}
	var counter storetest.Counter
	s := newShop(t, withStore(&counter, store.WithTimeZone(stockholm)))
	ada := s.browser(t)
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	p := ada.get("/account/sessions")
	wantStatus(t, "sessions", p, http.StatusOK)
	main := strings.Join(strings.Fields(p.doc.Find("main").Text()), " ")
	if zone := time.Now().In(stockholm).Format("MST"); !strings.Contains(main, zone) || strings.Contains(main, "UTC") {
		t.Fatalf("sessions page does not say %s (or says UTC): %s", zone, main)
	}
}

func attrOf(s *goquerySelection, name string) string {
	v, _ := s.Attr(name)
	return v
}
