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
	j.do("type 'hen'", chromedp.SendKeys(sel("field-q"), "hen"))
	j.waitFor("Henrik found", `document.querySelectorAll('`+sel("customer-match-row")+`').length === 1`, 10*time.Second)
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
	j.do("type over: 'sam'", chromedp.SetValue(sel("field-q"), ""), chromedp.SendKeys(sel("field-q"), "SAM"))
	j.waitFor("two found", `document.querySelectorAll('`+sel("customer-match-row")+`').length === 2`, 10*time.Second)
	j.do("open Samaneh", chromedp.Click(sel("customer-match-row")+` a[href="/admin/customers/`+s.customerID(t, "samaneh@fikafield.example")+`"]`),
		chromedp.WaitVisible(sel("customer-name")))
	if got := j.text(sel("customer-name")); !strings.Contains(got, "Samaneh Karimi") {
		t.Fatalf("opened %q", got)
	}
}
