package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"shop/store/demo"
)

// The return flow in Chromium: Ada asks to return one of her delivered
// order's books; staff find it under Returns, mark it received, accept it
// with a note and refund it into Stockholm; Ada sees each step and the
// amount refunded on her order's page.
func TestBrowserJourneyReturn(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	o := deliveredOrder(t, s, newOrderMaker(t, s.env.Store))

	ada := newJourney(t, s.base)
	ada.name = "Ada"
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	// The form lists the lines by product id: the book comes first.
	ada.do("Ada asks to return a book",
		chromedp.Navigate(s.base+"/orders/"+o.ID),
		chromedp.WaitVisible(sel("return-form")),
		chromedp.SetValue("#return-qty-0", "1"),
		chromedp.SetValue(sel("return-reason"), "Arrived damaged"),
		chromedp.SendKeys(sel("return-comment"), "The cover was torn."),
	)
	ada.shot("returns-01-form")
	ada.do("Ada sends it", chromedp.Click(sel("return-submit")), chromedp.WaitVisible(sel("return-status")))
	if got := ada.text(sel("return-status")); got != "Return requested" {
		t.Fatalf("Ada's return says %q", got)
	}
	ada.shot("returns-02-requested")
	number := o.Number + "-R1"
	if got := ada.text(sel("return-number")); !strings.Contains(got, number) || !strings.Contains(ada.text(sel("return-address")), "Sweden") {
		t.Fatalf("Ada's return is %q, to send to %q", got, ada.text(sel("return-address")))
	}
	ada.do("Ada opens the return slip", chromedp.Click(sel("return-slip-link")), chromedp.WaitVisible(sel("return-slip")))
	if got := ada.text(sel("slip-number")); got != number {
		t.Fatalf("the slip is numbered %q, want %q", got, number)
	}
	ada.shot("returns-04-slip")
	ada.do("print media", emulate("print"))
	printed, err := chromedp.Run(ada.ctx, chromedp.Evaluate[[]string](`[
		getComputedStyle(document.querySelector('body > header')).display,
		getComputedStyle(document.querySelector('[data-testid="return-slip"]')).display,
		getComputedStyle(document.querySelector('[data-testid="slip-number"]')).color,
	]`))
	if err != nil {
		t.Fatal(err)
	}
	if printed[0] != "none" || printed[1] == "none" || printed[2] != "rgb(0, 0, 0)" {
		t.Fatalf("printed slip: header %s, slip %s, number in %s", printed[0], printed[1], printed[2])
	}
	ada.do("screen media", emulate(""))
	// On a phone the slip and the order's page with its return fit the
	// width: the number, the addresses and the items wrap.
	slip, err := chromedp.Run(ada.ctx, chromedp.Evaluate[string](`location.pathname`))
	if err != nil {
		t.Fatal(err)
	}
	ada.phone()
	ada.noSidewaysScroll(slip, "/orders/"+o.ID)
	ada.do("the slip at 360 px", chromedp.Navigate(s.base+slip), chromedp.WaitVisible(sel("return-slip")))
	ada.shot("returns-05-slip-phone")
	ada.do("1280 px wide", chromedp.EmulateViewport(1280, 900))

	staff := ada.tab("staff")
	staff.signIn(demo.StaffEmail, demo.StaffPassword)
	staff.do("staff open Returns",
		chromedp.Navigate(s.base+"/admin"),
		chromedp.Click(sel("nav-returns")),
		chromedp.WaitVisible(sel("return-row")),
	)
	staff.shot("returns-10-list")
	staff.do("staff open the return", chromedp.Click(sel("return-link")), chromedp.WaitVisible(sel("receive-return")))
	staff.htmxReady("the return") // a followed link's page may still be loading: its nodes change under a click
	if got := staff.text(sel("return-reason")); !strings.Contains(got, "The cover was torn.") {
		t.Fatalf("staff see the reason %q", got)
	}
	staff.do("staff mark it received", chromedp.Click(sel("receive-return")), chromedp.WaitVisible(sel("inspect-form")))
	staff.do("staff accept the book",
		chromedp.Click(sel("verdict-accept")),
		chromedp.SendKeys(sel("verdict-note"), "Cover torn in transit"),
	)
	staff.shot("returns-11-inspect")
	staff.do("staff record the inspection", chromedp.Click(sel("inspect-return")), chromedp.WaitVisible(sel("refund-form")))
	staff.do("staff refund into Stockholm",
		chromedp.SetValue(sel("restock-warehouse"), "sto"),
		chromedp.Click(sel("refund-return")),
		chromedp.WaitVisible(sel("refund-confirm-yes")),
	)
	staff.shot("returns-12-confirm")
	staff.do("staff confirm the refund", chromedp.Click(sel("refund-confirm-yes")), chromedp.WaitVisible(sel("return-refunded")))
	refunded := staff.text(sel("return-refunded"))
	if !strings.Contains(refunded, "€24.90") || !strings.Contains(refunded, "Stockholm") {
		t.Fatalf("staff see %q after the refund", refunded)
	}
	staff.shot("returns-13-refunded")

	ada.do("Ada looks at her order again", chromedp.Navigate(s.base+"/orders/"+o.ID), chromedp.WaitVisible(sel("return-step-refunded")))
	if got := ada.text(sel("return-step-refunded")); !strings.HasPrefix(got, "Refunded €24.90") {
		t.Fatalf("Ada sees %q", got)
	}
	if got := ada.text(sel("return-step-received")); !strings.HasPrefix(got, "Received") {
		t.Fatalf("Ada sees %q", got)
	}
	ada.shot("returns-03-refunded")
}
