package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"shop/store/carrier"
	"shop/store/demo"
)

// shipWithTracking goes from an order's staff page, where a shipment
// waits, to that shipment's form: picks the carrier, types the number,
// confirms, and lands on the shipment shipped with its undo offered.
func (j journey) shipWithTracking(carrierID, tracking string) {
	j.t.Helper()
	j.do("staff opens the shipment to ship it",
		chromedp.Click(sel("mark-shipped")),
		chromedp.WaitVisible(sel("ship-form")),
		chromedp.SetValue(sel("ship-carrier"), carrierID),
		chromedp.SendKeys(sel("ship-tracking"), tracking),
	)
	j.shot("20-ship-form")
	j.do("staff asks to mark it shipped",
		chromedp.Click(sel("mark-shipped")),
		chromedp.WaitVisible(sel("confirm-change")),
	)
	j.shot("21-ship-confirm")
	j.do("staff confirms", chromedp.Click(sel("confirm-change")), chromedp.WaitVisible(sel("undo-change")))
	if got := j.text(sel("shipment-status")); got != "Shipped" {
		j.t.Fatalf("shipment %q after shipping", got)
	}
}

// Staff ship an order with a carrier and tracking number, print its
// packing slip (the page renders, and in print media without the console
// around it, black on white), and the customer follows the carrier's link.
func TestBrowserJourneyShipWithTrackingAndSlip(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	m := newOrderMaker(t, s.env.Store)
	o := m.place(s.env.Store, s.customerID(t, demo.CustomerEmail), line("cf-grinder", 1), line("bk-cinnamon", 2))
	j := newJourney(t, s.base)
	j.signIn(demo.StaffEmail, demo.StaffPassword)
	j.do("staff creates the shipments",
		chromedp.Navigate(s.base+"/admin/orders/"+o.ID),
		chromedp.Click(sel("create-shipments")),
		chromedp.WaitVisible(sel("mark-shipped")),
	)
	j.shipWithTracking("ups", "1Z 999 AA1 01 2345 6784")
	want := carrier.TrackingURL("ups", "1Z999AA10123456784")
	if href := j.attr(sel("tracking-link"), "href"); href != want {
		t.Fatalf("staff's tracking link %q, want %q", href, want)
	}
	if who := j.text(sel("history-who")); who != "Sam Staff" {
		t.Fatalf("the change is recorded by %q", who)
	}
	j.shot("22-shipment-shipped")
	j.do("staff lists what has shipped",
		chromedp.Navigate(s.base+"/admin/shipments?status=shipped"),
		chromedp.WaitVisible(sel("shipments-row")),
	)
	j.shot("22-shipments-shipped")
	j.do("back to the shipment", chromedp.Click(sel("shipments-link")), chromedp.WaitVisible(sel("packing-slip-link")))

	j.do("staff opens the packing slip", chromedp.Click(sel("packing-slip-link")), chromedp.WaitVisible(sel("packing-slip")))
	if got := j.text(sel("slip-order")); got != o.Label() {
		t.Fatalf("slip for order %q, want %q", got, o.Label())
	}
	if !strings.Contains(j.text(sel("slip-address")), "Storgatan 1") || j.count(sel("slip-item")) == 0 {
		t.Fatalf("slip address %q, %d items", j.text(sel("slip-address")), j.count(sel("slip-item")))
	}
	j.shot("23-packing-slip")
	j.do("print media", emulate("print"))
	printed, err := chromedp.Run(j.ctx, chromedp.Evaluate[[]string](`[
		getComputedStyle(document.querySelector('body > header')).display,
		getComputedStyle(document.querySelector('nav[aria-label="breadcrumb"]')).display,
		getComputedStyle(document.querySelector('[data-testid="packing-slip"]')).display,
		getComputedStyle(document.body).backgroundColor,
		getComputedStyle(document.querySelector('[data-testid="slip-item"] td')).color,
	]`))
	if err != nil {
		t.Fatal(err)
	}
	if printed[0] != "none" || printed[1] != "none" || printed[2] == "none" || printed[3] != "rgb(255, 255, 255)" || printed[4] != "rgb(0, 0, 0)" {
		t.Fatalf("printed slip: header %s, breadcrumb %s, slip %s, background %s, text %s", printed[0], printed[1], printed[2], printed[3], printed[4])
	}
	j.shot("24-packing-slip-print")
	j.do("screen media", emulate(""))
	j.signOut()

	j.signIn(demo.CustomerEmail, demo.CustomerPassword)
	j.do("customer opens the order", chromedp.Navigate(s.base+"/orders/"+o.ID), chromedp.WaitVisible(sel("shipment-tracking-link")))
	link := sel("shipment-tracking-link")
	if href, rel, target := j.attr(link, "href"), j.attr(link, "rel"), j.attr(link, "target"); href != want || rel != "noopener" || target != "_blank" {
		t.Fatalf("customer's tracking link href %q rel %q target %q", href, rel, target)
	}
	if got := j.text(sel("shipment-shipped")); !strings.Contains(got, "with UPS") {
		t.Fatalf("customer reads %q", got)
	}
	j.shot("25-customer-tracking")
}

// attr is an attribute of the first element css finds.
func (j journey) attr(css, name string) string {
	j.t.Helper()
	v, err := chromedp.Run(j.ctx, chromedp.Evaluate[string](`document.querySelector('`+css+`').getAttribute('`+name+`') || ''`))
	if err != nil {
		j.t.Fatalf("%s: %v", j.step("attribute "+name+" of "+css), err)
	}
	return v
}

// emulate sets the CSS media type the page is drawn for ("" for screen).
func emulate(media string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: media})
		return err
	})
}
