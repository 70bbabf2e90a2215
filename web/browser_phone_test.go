package web_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"shop/store/demo"
	"shop/web/paths"
)

// phoneWidth is the narrowest phone the shop is laid out for.
const phoneWidth = 360

// phone makes the tab as wide as a small phone.
func (j journey) phone() {
	j.t.Helper()
	j.do(fmt.Sprintf("%d px wide", phoneWidth), chromedp.EmulateViewport(phoneWidth, 740))
}

// pageWidth is how wide the document is and how wide the window, with the
// visible elements sticking out past its right edge (outside a box that
// scrolls on its own), to say what to fix.
type pageWidth struct {
	Document int      `json:"document"`
	Window   int      `json:"window"`
	Wide     []string `json:"wide"`
}

const pageWidthJS = `(() => {
	const wide = [];
	for (const e of document.querySelectorAll('body *')) {
		const r = e.getBoundingClientRect();
		if (r.right > innerWidth + 0.5 && e.checkVisibility() && !e.closest('.table-scroll')) {
			wide.push(e.tagName.toLowerCase() + (e.className ? '.' + String(e.className).replace(/ /g, '.') : '') + ' to ' + Math.round(r.right));
		}
	}
	return {document: document.documentElement.scrollWidth, window: innerWidth, wide: wide.slice(0, 5)};
})()`

// widthOf opens path and measures the page.
func (j journey) widthOf(path string) pageWidth {
	j.t.Helper()
	j.do("open "+path, chromedp.Navigate(j.base+path), chromedp.WaitReady("body > footer, body > main"))
	w, err := chromedp.Run(j.ctx, chromedp.Evaluate[pageWidth](pageWidthJS))
	if err != nil {
		j.t.Fatalf("%s: measure %s: %v", j.step("measure"), path, err)
	}
	return w
}

// noSidewaysScroll checks that none of the pages is wider than the window.
func (j journey) noSidewaysScroll(pages ...string) {
	j.t.Helper()
	for _, p := range pages {
		w := j.widthOf(p)
		j.t.Logf("%s: %s is %d px wide in a %d px window", j.step("width"), p, w.Document, w.Window)
		if w.Document > w.Window {
			j.t.Errorf("%s: %s scrolls sideways: the document is %d px wide in a %d px window; sticking out: %s",
				j.step("width"), p, w.Document, w.Window, strings.Join(w.Wide, ", "))
		}
	}
}

// visible reports whether the element is on the page and rendered.
func (j journey) visible(css string) bool {
	j.t.Helper()
	ok, err := chromedp.Run(j.ctx, chromedp.Evaluate[bool](`(() => { const e = document.querySelector('`+css+`'); return !!e && e.checkVisibility(); })()`))
	if err != nil {
		j.t.Fatal(err)
	}
	return ok
}

// On a 360 px phone no storefront page scrolls sideways, signed out or in:
// the header folds into a menu that opens without JavaScript, the cart's
// lines are cards, tables scroll in their own box. Wide, the menu is a row
// of links again.
func TestBrowserPhoneNothingScrollsSideways(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	drop := s.openDrop(t, "Phone-sized drop", 5)
	adaID := s.customerID(t, demo.CustomerEmail)
	order := newOrderMaker(t, s.env.Store).place(s.env.Store, adaID, line("cf-grinder", 1), line("bk-fjord", 2))

	addTwo := func(j journey) {
		t.Helper()
		for _, product := range []string{"cf-grinder", "bk-fjord"} {
			j.do("add "+product, chromedp.Navigate(s.base+"/products/"+product), chromedp.WaitVisible(sel("add-submit")),
				chromedp.Click(sel("add-submit")), chromedp.WaitVisible(sel("added")))
		}
	}

	visitor := newJourney(t, s.base)
	visitor.name = "visitor"
	visitor.phone()
	addTwo(visitor)
	visitor.noSidewaysScroll("/cart")
	if n := visitor.count(sel("cart-line")); n != 2 {
		t.Fatalf("visitor's cart has %d lines, want 2", n)
	}
	visitor.shot("phone-01-cart-visitor")
	visitor.noSidewaysScroll("/", paths.Category("coffee"), "/products/cf-grinder", "/checkout",
		"/drops", "/drops/"+drop.ID, "/login", "/signup")

	ada := visitor.tab("Ada")
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	ada.phone()
	addTwo(ada)
	ada.noSidewaysScroll("/", paths.Category("books"), "/products/cf-grinder", "/cart", "/checkout", "/orders",
		paths.Order(order.ID), "/subscriptions", "/receipts", "/drops", "/drops/"+drop.ID, "/tickets")

	// The cart's lines are cards: one line of the table is one box.
	ada.do("cart", chromedp.Navigate(s.base+"/cart"), chromedp.WaitVisible(sel("cart-line")))
	display, err := chromedp.Run(ada.ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector('[data-testid="cart-line"]')).display`))
	if err != nil {
		t.Fatal(err)
	}
	if display != "block" {
		t.Errorf("a cart line on a phone is displayed %q, want a card (block)", display)
	}
	ada.shot("phone-02-cart")

	// The header: the menu is closed, the cart one tap away; opened, its
	// links work.
	if ada.visible(sel("nav-orders-mine")) {
		t.Error("on a phone the account links show before the menu is opened")
	}
	if !ada.visible(sel("nav-cart-quick")) {
		t.Error("on a phone the cart link is not in the header")
	}
	ada.do("open the menu", chromedp.Click(sel("nav-menu-toggle")), chromedp.WaitVisible(sel("nav-orders-mine")))
	ada.shot("phone-03-menu")
	ada.do("menu to orders", chromedp.Click(sel("nav-orders-mine")), chromedp.WaitVisible(sel("orders")))

	// Signed in, the ten links fit a row only from 1536 px; below, the
	// header keeps the menu and stays one row (it once wrapped into three).
	for _, w := range []int64{1280, 1440, 1600} {
		ada.do(fmt.Sprintf("%d px wide", w), chromedp.EmulateViewport(w, 900), chromedp.Navigate(s.base+"/"), chromedp.WaitVisible("main"))
		wide := w >= 1536
		if ada.visible(sel("nav-orders-mine")) != wide || ada.visible(sel("nav-menu-toggle")) == wide || ada.visible(sel("nav-cart-quick")) == wide {
			t.Errorf("%d px: account links shown %v, menu button %v, phone's cart link %v; want the links in a row only from 1536 px",
				w, ada.visible(sel("nav-orders-mine")), ada.visible(sel("nav-menu-toggle")), ada.visible(sel("nav-cart-quick")))
		}
		// One row: the shop's name, and the menu button or Sign out, share
		// it (the name once dropped below the links, Sign out to a third row).
		rows, err := chromedp.Run(ada.ctx, chromedp.Evaluate[[]float64](`[...document.querySelectorAll('.site-header .brand, .site-header [data-testid="nav-menu-toggle"], .site-header [data-testid="logout"]')]
			.filter(e => e.checkVisibility()).map(e => { const r = e.getBoundingClientRect(); return (r.top + r.bottom) / 2; })`))
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 2 || math.Abs(rows[0]-rows[1]) > 8 {
			t.Errorf("%d px: the header's name and its last control are not on one row (their middles at %v)", w, rows)
		}
		if pw := ada.widthOf("/cart"); pw.Document > pw.Window {
			t.Errorf("%d px: the cart is %d px wide", w, pw.Document)
		}
	}
}

// The staff console on a phone: its tables scroll inside their own box,
// the page itself does not.
func TestBrowserPhoneAdminTablesScrollInTheirBox(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	adaID := s.customerID(t, demo.CustomerEmail)
	order := newOrderMaker(t, s.env.Store).place(s.env.Store, adaID, line("cf-grinder", 1))
	drop := s.openDrop(t, "Staff drop", 3)

	j := newJourney(t, s.base)
	j.signIn(demo.StaffEmail, demo.StaffPassword)
	j.phone()
	j.noSidewaysScroll(paths.Admin, paths.AdminOrders, paths.AdminOrder(order.ID), paths.AdminProducts, paths.AdminNewProduct,
		paths.AdminProduct("cf-grinder"), paths.AdminWarehouses, paths.AdminWarehouse("gbg"), paths.AdminWarehouseShipments("gbg"),
		paths.AdminWarehouseAdjustments("gbg"), paths.AdminCustomers, paths.AdminCustomer(adaID), paths.AdminSubscriptions, paths.AdminDue,
		paths.AdminInvoices, paths.AdminGiftCards, paths.AdminDiscounts, paths.AdminAPIKeys, paths.AdminWebhooks, paths.AdminDrops, paths.AdminDrop(drop.ID),
		paths.AdminJobs, paths.AdminOutbox, paths.AdminBilling, paths.AdminShipments, paths.AdminShipmentsIn("pending"))

	// The inventory is wider than the phone: it scrolls in its box.
	j.do("inventory", chromedp.Navigate(s.base+paths.AdminWarehouse("gbg")), chromedp.WaitVisible(sel("inventory")))
	box, err := chromedp.Run(j.ctx, chromedp.Evaluate[string](`(() => { const b = document.querySelector('[data-testid="inventory"]').closest('.table-scroll'); return b ? getComputedStyle(b).overflowX : 'no box'; })()`))
	if err != nil {
		t.Fatal(err)
	}
	if box != "auto" {
		t.Fatalf("the inventory table's box: %s, want one that scrolls (overflow-x auto)", box)
	}
	j.shot("phone-04-admin-inventory")
	// The packing queue, used on the floor: its groups' tables scroll in
	// their boxes, its buttons wrap.
	j.do("to pack", chromedp.Navigate(s.base+paths.AdminShipments), chromedp.WaitVisible(sel("to-pack-form")))
	j.shot("phone-05-admin-to-pack")
	// Its pick list and packing slips, printed from a phone: nothing
	// scrolls sideways there either.
	print := paths.AdminShipmentsPrint + "?order=" + order.ID
	j.noSidewaysScroll(print)
	j.do("print", chromedp.Navigate(s.base+print), chromedp.WaitVisible(sel("pick-list")))
	j.shot("phone-06-admin-pick-sheet")
	// A row's Pack, with htmx: the row becomes its shipments in place.
	row := `[data-testid="to-pack-row"][data-order="` + order.ID + `"]`
	j.do("pack in place", chromedp.Navigate(s.base+paths.AdminShipments), chromedp.WaitVisible(row),
		chromedp.Click(row+` [data-testid="to-pack-pack"]`), chromedp.WaitVisible(`[data-testid="to-pack-done"][data-order="`+order.ID+`"] [data-testid="to-pack-shipment"]`))
	j.shot("phone-07-admin-packed-in-place")
	// The queue's rows are cards on a phone: the row the press became is
	// in view, nothing in its box scrolls sideways, and its warehouse's
	// count in the heading came one less with it.
	done := `[data-testid="to-pack-done"][data-order="` + order.ID + `"]`
	placed, err := chromedp.Run(j.ctx, chromedp.Evaluate[string](`(() => {
		const r = document.querySelector('`+done+`').getBoundingClientRect();
		const wide = [...document.querySelectorAll('.table-scroll')].filter(b => b.scrollWidth > b.clientWidth);
		return (r.left < 0 || r.right > innerWidth ? 'the packed row spans ' + r.left + '-' + r.right + ' of ' + innerWidth + '; ' : '') +
			(wide.length ? wide.length + ' table boxes scroll sideways' : '');
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if placed != "" {
		t.Errorf("360 px, packed in place: %s", placed)
	}
	counts, err := chromedp.Run(j.ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('`+sel("to-pack-count")+`')].map(c => c.textContent.trim() + '=' + c.querySelector('input').value)`))
	if err != nil {
		t.Fatal(err)
	}
	j.do("queue again", chromedp.Navigate(s.base+paths.AdminShipments), chromedp.WaitVisible(sel("to-pack-form")))
	again, err := chromedp.Run(j.ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('`+sel("to-pack-count")+`')].map(c => c.textContent.trim() + '=' + c.querySelector('input').value)`))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(counts, again) {
		t.Errorf("the counts after packing in place %q are not the queue's %q", counts, again)
	}
	// At 1280 px the queue stays a table.
	j.do("to pack at 1280", chromedp.EmulateViewport(1280, 900), chromedp.Reload(), chromedp.WaitVisible(sel("to-pack-form")))
	if !j.visible(".to-pack-table thead th:nth-child(2)") {
		t.Error("1280 px: the packing queue is not a table")
	}
	j.shot("admin-to-pack-1280")
	j.phone()
	// A customer's invoices with their refunds, in the table's box.
	j.do("customer", chromedp.Navigate(s.base+paths.AdminCustomer(adaID)), chromedp.WaitVisible(sel("customer-invoices")))
	j.shot("phone-08-admin-customer")
}
