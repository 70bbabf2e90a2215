package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"shop/store/demo"
)

// Staff open the console on its dashboard: each block loads on its own
// (htmx), the order just placed waits to ship at the end of its list, and
// its link leads to the order.
func TestBrowserDashboardLoadsEachBlock(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	m := newOrderMaker(t, s.env.Store)
	o := m.place(s.env.Store, s.customerID(t, demo.CustomerEmail), line("kt-mug", 1))
	j := newJourney(t, s.base)
	j.signInAt("/admin", demo.StaffEmail, demo.StaffPassword, "dashboard")
	j.waitFor("every block loaded", `document.querySelectorAll('.dashboard-block [aria-busy="true"]').length === 0`, 30*time.Second)
	if n := j.count(sel("sales-bar")); n != 30 {
		t.Fatalf("the chart has %d bars", n)
	}
	if got := j.text(sel("sales-today-orders")); !strings.HasSuffix(got, "order") && !strings.HasSuffix(got, "orders") || got == "0 orders" {
		t.Fatalf("today's orders: %q", got)
	}
	j.waitText("the order waits to ship", `[data-testid="to-ship-row"][data-order="`+o.ID+`"] td`, o.Label())
	for _, block := range []string{"low-stock", "job-last", "drop-open"} {
		if j.count(sel(block)) == 0 && j.count(sel(block+"-none")) == 0 {
			t.Errorf("block %s shows neither rows nor its empty message", block)
		}
	}
	j.shot("30-dashboard")
	// The sidebar fits the 1280 × 900 window whole: its bottom items (the
	// staff member, Storefront, Sign out, the languages) need no scroll.
	if over := eval[int](j, "the sidebar's overflow", `(() => { const a = document.querySelector('.admin-side'); return a.scrollHeight - a.clientHeight; })()`); over > 0 {
		t.Errorf("the console's sidebar is %d px taller than the window", over)
	}
	j.do("open the waiting order",
		chromedp.Click(`[data-testid="to-ship-row"][data-order="`+o.ID+`"] a`),
		chromedp.WaitVisible(sel("admin-order-id")),
	)
	if got := j.text(sel("admin-order-id")); got != "Order "+o.Label() {
		t.Fatalf("landed on %q", got)
	}
}
