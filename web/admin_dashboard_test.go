package web_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"shop/store"
	"shop/store/demo"
	"shop/store/storetest"
	"shop/store/storetest/paytest"
	"shop/views/lang"
	"shop/web/paths"
)

// The console's home is blocks that load on their own; each is a partial
// for htmx and a page of its own without JavaScript, at a known cost.
func TestAdminDashboardShowsWhatNeedsStaff(t *testing.T) {
	t.Parallel()
	var counter storetest.Counter
	// No background reads in the counts (see the storefront's budget test).
	s := newShop(t, withStore(&counter), withoutBackgroundReads)
	b := s.staff(t)
	m := newOrderMaker(t, s.env.Store)
	ada := s.customerID(t, demo.CustomerEmail)
	now := time.Now()
	older := m.place(s.storeAt(now.Add(-50*time.Hour)), ada, line("cf-grinder", 1))
	newer := m.place(s.env.Store, ada, line("kt-mug", 2))
	oldest := m.place(s.storeAt(now.AddDate(0, 0, -3)), ada, line("bk-cinnamon", 1))
	s.openDrop(t, "Dashboard roast", 7)

	home := b.get("/admin")
	wantStatus(t, "home", home, http.StatusOK)
	for _, block := range []string{"sales", "to-ship", "awaiting-stock", "low-stock", "jobs", "drops", "card-refunds"} {
		sec := home.testid("dashboard-" + block)
		if got, _ := sec.Attr("hx-get"); got != "/admin/dashboard/"+block {
			t.Errorf("block %s loads from %q", block, got)
		}
		if trigger, _ := sec.Attr("hx-trigger"); !strings.Contains(trigger, "every 30s") {
			t.Errorf("block %s refreshes on %q", block, trigger)
		}
		if href, _ := sec.Find("a").Attr("href"); href != "/admin/dashboard/"+block {
			t.Errorf("block %s: without JavaScript its link is %q", block, href)
		}
	}

	block := func(name string, wantRequests int) page {
		t.Helper()
		b.get("/admin/dashboard/"+name, "HX-Request", "true") // once read, the table's shard count is known
		counter.Reset()
		p := b.get("/admin/dashboard/"+name, "HX-Request", "true")
		wantStatus(t, name, p, http.StatusOK)
		// The staff check reads the session and the staff member's record.
		if n := counter.Total() - 2; wantRequests >= 0 && n != wantRequests {
			t.Errorf("block %s made %d requests %v, want %d", name, n, counter.Ops(), wantRequests)
		}
		if writes(counter.Ops()) != 0 {
			t.Errorf("block %s wrote: %v", name, counter.Ops())
		}
		if strings.Contains(p.body, "<html") {
			t.Errorf("block %s came as a whole page to htmx", name)
		}
		return p
	}

	// Sales: one Query per list shard, summed.
	sales := block("sales", store.DefaultListShards)
	// The demo's past orders are in the totals too: the block says what
	// the store sums, and the orders placed here are in it.
	days, err := s.env.Store.DayTotals(context.Background(), now.AddDate(0, 0, -29), now)
	if err != nil || len(days) != 30 {
		t.Fatalf("day totals: %d days, %v", len(days), err)
	}
	today, month := days[29], 0
	for _, d := range days {
		month += d.Orders
	}
	if today.Orders < 1 || today.Revenue.Amount < newer.Total.Amount || month < 3 {
		t.Fatalf("the totals miss the orders placed: today %+v, 30 days %d", today, month)
	}
	wantText(t, "today", sales.testid("sales-today-orders"), strconv.Itoa(today.Orders)+" order")
	wantText(t, "30 days", sales.testid("sales-month-orders"), strconv.Itoa(month)+" order")
	if n := sales.testid("sales-bar").Length(); n != 30 {
		t.Errorf("%d bars, want 30", n)
	}
	wantText(t, "today's revenue", sales.testid("sales-today-revenue"), today.Revenue.String())

	// Awaiting stock: one Query per list shard of the Attention index.
	if block("awaiting-stock", store.DefaultListShards).testid("awaiting-stock-none").Length() != 1 {
		t.Error("the demo has an order awaiting stock")
	}

	// Waiting to ship: oldest first, with how long each has waited.
	toShip := block("to-ship", store.DefaultListShards)
	rows := toShip.testid("to-ship-row")
	var order []string
	rows.Each(func(_ int, r *goquerySelection) {
		if id := attr(r, "data-order"); id == oldest.ID || id == older.ID || id == newer.ID {
			order = append(order, id)
		}
	})
	if !slices.Equal(order, []string{oldest.ID, older.ID, newer.ID}) {
		t.Fatalf("to ship, oldest first: %q", toShip.testid("to-ship").Text())
	}
	olderRow := toShip.doc.Find(`[data-testid="to-ship-row"][data-order="` + older.ID + `"]`)
	wantText(t, "waited", olderRow.Find(`[data-testid="to-ship-waited"]`), "2 days")
	wantText(t, "buyer", olderRow, older.Buyer.Name)

	// Low stock: the demo's emptiest levels first, ten of them.
	low := block("low-stock", 1)
	if low.testid("low-stock-row").Length() == 0 {
		t.Fatalf("no low stock in the demo shop: %q", low.body)
	}
	if first := low.testid("low-stock-left").First().Text(); first != "0" {
		t.Errorf("the emptiest level shows %s left", first)
	}
	product := b.get("/admin/products/cf-grinder")
	wantStatus(t, "product", product, http.StatusOK)
	bad := b.post("/admin/products/cf-grinder/low-stock", url.Values{"low_stock_at": {"lots"}})
	wantStatus(t, "bad threshold", bad, http.StatusUnprocessableEntity)
	wantText(t, "bad threshold", bad.testid("low-stock-form"), "whole number from 1")
	ok := b.post("/admin/products/cf-grinder/low-stock", url.Values{"low_stock_at": {"100000"}})
	wantStatus(t, "threshold", ok, http.StatusSeeOther)
	levels, err := s.env.Store.ProductStock(context.Background(), "cf-grinder")
	if err != nil {
		t.Fatal(err)
	}
	lowNow, err := s.env.Store.LowStock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	grinders := 0
	for _, l := range lowNow {
		if l.ProductID == "cf-grinder" {
			grinders++
		}
	}
	if grinders != len(levels) {
		t.Fatalf("%d of the grinder's %d levels are low under 100000", grinders, len(levels))
	}
	low = b.get("/admin/dashboard/low-stock", "HX-Request", "true")
	if n := low.testid("low-stock-row").Length(); n != min(10, len(lowNow)) {
		t.Errorf("the block shows %d of %d low levels", n, len(lowNow))
	}
	if len(lowNow) > 10 {
		wantText(t, "the rest", low.testid("low-stock-more"), strconv.Itoa(len(lowNow)-10)+" more")
	}
	if v, _ := b.get("/admin/products/cf-grinder").testid("low-stock-form").Find("input[name=low_stock_at]").Attr("value"); v != "100000" {
		t.Errorf("the product page shows the threshold %q", v)
	}

	// Billing jobs: not run yet in a new shop; one read per job.
	jobs := block("jobs", 2)
	if n := jobs.testid("job-last").Length(); n != 2 {
		t.Errorf("%d jobs", n)
	}
	// Drops: the open one, with its claims.
	drops := block("drops", -1)
	wantText(t, "drop", drops.testid("drop-open"), "Dashboard roast")
	wantText(t, "claimed", drops.testid("drop-claimed"), "0 of 7 claimed")

	// Without JavaScript a block is a page of its own.
	full := b.get("/admin/dashboard/to-ship")
	wantStatus(t, "block page", full, http.StatusOK)
	if !strings.Contains(full.body, "<html") || full.testid("to-ship-row").Length() != rows.Length() {
		t.Error("the block's own page is not a whole page with the block")
	}
	wantStatus(t, "unknown block", b.get("/admin/dashboard/weather"), http.StatusNotFound)
	customer := s.browser(t)
	customer.signIn(demo.CustomerEmail, demo.CustomerPassword)
	wantStatus(t, "customers may not", customer.get("/admin/dashboard/sales"), http.StatusForbidden)
}

// The sales block shows money given back on the day it went back: a
// partial refund of today's order and the cancel of an order from three
// days ago add to today's Refunded, leave the days' revenue as it was, and
// the net is what is left; refunds hang below the chart's line.
func TestAdminDashboardSalesShowRefunds(t *testing.T) {
	t.Parallel()
	s := newShopWithoutHistory(t)
	b := s.staff(t)
	m := newOrderMaker(t, s.env.Store)
	ctx := context.Background()
	ada := s.customerID(t, demo.CustomerEmail)
	now := time.Now()
	older := m.place(s.storeAt(now.AddDate(0, 0, -3)), ada, line("kt-mug", 2))
	newer := m.place(s.env.Store, ada, line("kt-mug", 1))
	totals := func() []store.DayTotal {
		t.Helper()
		days, err := s.env.Store.DayTotals(ctx, now.AddDate(0, 0, -29), now)
		if err != nil || len(days) != 30 {
			t.Fatalf("day totals: %d days, %v", len(days), err)
		}
		return days
	}
	before := totals()
	staffCred, err := s.env.Store.CredentialsByEmail(ctx, demo.StaffEmail)
	if err != nil {
		t.Fatal(err)
	}
	staff, err := s.env.Store.Customer(ctx, staffCred.CustomerID)
	if err != nil {
		t.Fatal(err)
	}
	part := store.Money{Amount: 250, Currency: newer.Total.Currency}
	if _, err := s.env.Store.RefundOrder(ctx, store.OrderRefundRequest{OrderID: newer.ID, Key: "dash-refund", Reason: "Chipped", By: staff, Amount: part}, paytest.New(t, s.env.Store).Refunds()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.env.Store.CancelOrder(ctx, older.ID, ada, "dash-cancel", nil, paytest.New(t, s.env.Store).Refunds()); err != nil {
		t.Fatal(err)
	}
	after := totals()
	today, was := after[29], before[29]
	if got := today.Refunded.Amount - was.Refunded.Amount; got != part.Amount+older.Total.Amount {
		t.Fatalf("today's refunds grew by %d, want %d + %d", got, part.Amount, older.Total.Amount)
	}
	var revenueBefore, revenueAfter, refunded int64
	for i := range after {
		revenueBefore, revenueAfter = revenueBefore+before[i].Revenue.Amount, revenueAfter+after[i].Revenue.Amount
		refunded += after[i].Refunded.Amount
	}
	if revenueAfter != revenueBefore || today.Orders != was.Orders {
		t.Fatalf("refunds moved revenue: %d, then %d", revenueBefore, revenueAfter)
	}

	en := func(m store.Money) string { return lang.MoneyIn(lang.English, m) }
	sales := b.get(paths.AdminDashboardBlock("sales"), "HX-Request", "true")
	wantStatus(t, "sales", sales, http.StatusOK)
	wantText(t, "today's revenue", sales.testid("sales-today-revenue"), en(today.Revenue))
	wantText(t, "today's refunds", sales.testid("sales-today-refunded"), en(today.Refunded))
	wantText(t, "today's net", sales.testid("sales-today-net"), en(today.Net()))
	month := store.Money{Amount: refunded, Currency: today.Refunded.Currency}
	wantText(t, "30 days' refunds", sales.testid("sales-month-refunded"), en(month))
	wantText(t, "30 days' net", sales.testid("sales-month-net"), en(store.Money{Amount: revenueAfter - refunded, Currency: month.Currency}))
	wantText(t, "the note", sales.testid("sales-note"), "day the money went back")
	if n := sales.testid("sales-refund-bar").Length(); n != 1 {
		t.Errorf("%d refund bars, want today's", n)
	}
	if label, _ := sales.testid("sales-chart").Attr("aria-label"); !strings.Contains(label, en(month)+" was refunded") {
		t.Errorf("the chart says %q", label)
	}
	if title := sales.testid("sales-refund-bar").Find("title").Text(); !strings.Contains(title, "refunded "+en(today.Refunded)) {
		t.Errorf("today's refund bar says %q", title)
	}

	b.get(paths.Admin + "?lang=ko")
	ko := b.get(paths.AdminDashboardBlock("sales"), "HX-Request", "true")
	wantText(t, "refunds in Korean", ko.doc.Find(".sales-sums dt"), "환불액")
	wantText(t, "net in Korean", ko.doc.Find(".sales-sums dt"), "순매출")
}
