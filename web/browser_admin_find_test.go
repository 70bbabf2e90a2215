package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"shop/store/demo"
)

// Staff find a customer by typing the first letters of a name: the results
// appear under the box after a pause (htmx), the address bar keeps the
// query, and a result opens the customer.
func TestBrowserFindCustomerAsYouType(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	j := newJourney(t, s.base)
	j.signInAt("/admin/customers", demo.StaffEmail, demo.StaffPassword, "field-q")
	// Wide, the sidebar shows the sections with this one marked, who is
	// signed in and the shop's time zone.
	for _, id := range []string{"nav-orders", "nav-customers", "viewer-name", "shop-zone"} {
		if !j.visible(sel(id)) {
			t.Errorf("1280 px: %s is not shown", id)
		}
	}
	if j.visible(sel("nav-menu-toggle")) {
		t.Error("1280 px: the phone's menu button shows")
	}
	if n := j.count(`[aria-current="page"]`); n != 1 || j.count(sel("nav-customers")+`[aria-current="page"]`) != 1 {
		t.Errorf("%d sections marked current, want Customers alone", n)
	}
	if got := j.text(sel("shop-zone")); !strings.Contains(got, s.env.Store.Location().String()) {
		t.Errorf("zone says %q", got)
	}
	j.do("type 'hen'", chromedp.SendKeys(sel("field-q"), "hen"))
	// The results of 'h' alone can be Henrik's too: wait for those of the
	// whole word, which come with the address bar's query.
	j.waitFor("Henrik found", `document.querySelectorAll('`+sel("customer-match-row")+`').length === 1 && location.search === '?q=hen'`, 10*time.Second)
	if got := j.text(sel("customer-match-link")); got != "Henrik Berg" {
		t.Fatalf("found %q", got)
	}
	loc, err := chromedp.Run(j.ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(loc, "/admin/customers?q=hen") {
		t.Errorf("address bar says %q", loc)
	}
	j.shot("find-01-typed")
	// More letters narrow it; letters of nobody say so.
	j.do("type 'x'", chromedp.SendKeys(sel("field-q"), "x"))
	j.waitText("nobody", sel("customer-results"), `starts with "henx"`)
	if _, err := chromedp.Run(j.ctx, chromedp.Evaluate[bool](`(document.querySelector('`+sel("field-q")+`').value = '', true)`)); err != nil {
		t.Fatal(err)
	}
	j.do("type over: 'SAM'", chromedp.SendKeys(sel("field-q"), "SAM"))
	j.waitFor("two found", `document.querySelectorAll('`+sel("customer-match-row")+`').length === 2`, 10*time.Second)
	j.shot("find-02-sam-1280")

	// On a phone the sections fold into the menu; the results do not
	// widen the page.
	j.phone()
	j.noSidewaysScroll("/admin/customers?q=sa")
	if j.visible(sel("nav-orders")) || !j.visible(sel("nav-menu-toggle")) {
		t.Error("360 px: the sections show before the menu is opened")
	}
	j.shot("find-03-phone")
	j.do("open the menu", chromedp.Click(sel("nav-menu-toggle")), chromedp.WaitVisible(sel("nav-customers")))
	j.shot("find-04-phone-menu")
	j.do("close the menu", chromedp.Click(sel("nav-menu-toggle")))
	j.do("1280 px wide", chromedp.EmulateViewport(1280, 900))
	j.do("open Samaneh", chromedp.Click(sel("customer-match-row")+` a[href="/admin/customers/`+s.customerID(t, "samaneh@fikafield.example")+`"]`),
		chromedp.WaitVisible(sel("customer-name")))
	if got := j.text(sel("customer-name")); !strings.Contains(got, "Samaneh Karimi") {
		t.Fatalf("opened %q", got)
	}

	// The orders list fits the console's column at 1280 px in every
	// language: Total and Ship to are not cut off behind a sideways scroll.
	for _, lang := range []string{"id", "ko", "en"} {
		j.do("orders in "+lang, chromedp.Navigate(s.base+"/admin/orders?lang="+lang), chromedp.WaitVisible(sel("orders-table")))
		j.tableFits(lang, "orders-table")
	}
	j.shot("find-05-orders-1280")
}

// tableFits checks that the table with testid is no wider than its
// column: nothing cut off behind a sideways scroll.
func (j *journey) tableFits(lang, testid string) {
	j.t.Helper()
	fit, err := chromedp.Run(j.ctx, chromedp.Evaluate[string](`(() => { const t = document.querySelector('`+sel(testid)+`'); return t.scrollWidth <= t.parentElement.clientWidth ? '' : t.scrollWidth + ' px in ' + t.parentElement.clientWidth })()`))
	if err != nil {
		j.t.Fatal(err)
	}
	if fit != "" {
		j.t.Errorf("%s: the table %s is %s: cut off", lang, testid, fit)
	}
}
