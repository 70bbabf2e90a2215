package web_test

import (
	"testing"

	"github.com/chromedp/chromedp"

	"shop/store/demo"
)

// evalJS runs a script in the tab and reads its answer.
func evalJS[T any](j journey, what, script string) T {
	j.t.Helper()
	v, err := chromedp.Run(j.ctx, chromedp.Evaluate[T](script))
	if err != nil {
		j.t.Fatalf("%s: %v", j.step(what), err)
	}
	return v
}

// The details of the storefront's layout a walk at 1280 and 360 px found
// wrong: signed in at 1280 px "Cart" ran into "Menu" (in Korean too); on a
// phone the receipts hid their period, card and amount behind sideways
// scrolling, the search box cut its placeholder, a long product name in
// the breadcrumb wrapped onto an indented line of its own; and catalogue
// cards of a row put their prices at different heights when a name
// wrapped.
func TestBrowserLayoutAtBothWidths(t *testing.T) {
	t.Parallel()
	s := newShop(t) // signing in writes: a table of its own
	j := newJourney(t, s.base)
	j.signIn(demo.CustomerEmail, demo.CustomerPassword)

	j.do("1280 px wide", chromedp.EmulateViewport(1280, 900))
	for _, l := range []string{"en", "ko", "id"} {
		j.do("home in "+l, chromedp.Navigate(s.base+"/?lang="+l), chromedp.WaitVisible(sel("nav-menu-toggle")))
		gap := evalJS[float64](j, "the gap between Cart and Menu", `document.querySelector('[data-testid="nav-menu-toggle"]').getBoundingClientRect().left -
			document.querySelector('[data-testid="nav-cart-quick"]').getBoundingClientRect().right`)
		if gap < 8 {
			t.Errorf("%s at 1280 px: Cart and Menu are %.0f px apart, want at least 8", l, gap)
		}
	}
	j.do("English", chromedp.Navigate(s.base+"/?lang=en"), chromedp.WaitVisible(sel("product-card")))
	spread := evalJS[float64](j, "the first row's prices", `(() => {
		const cards = [...document.querySelectorAll('[data-testid="product-card"]')];
		const row = cards.filter(c => c.getBoundingClientRect().top === cards[0].getBoundingClientRect().top);
		const tops = row.map(c => c.querySelector('.price').getBoundingClientRect().top);
		return Math.max(...tops) - Math.min(...tops);
	})()`)
	if spread > 0.5 {
		t.Errorf("the first row of the catalogue puts its prices %.1f px apart", spread)
	}

	j.phone()
	j.do("receipts", chromedp.Navigate(s.base+"/receipts"), chromedp.WaitVisible(sel("receipt-row")))
	type cell struct {
		Display string  `json:"display"`
		Right   float64 `json:"right"`
		Window  float64 `json:"window"`
	}
	c := evalJS[cell](j, "a receipt on a phone", `(() => {
		const row = document.querySelector('[data-testid="receipt-row"]');
		return {display: getComputedStyle(row).display, right: row.querySelector('td.num').getBoundingClientRect().right, window: innerWidth};
	})()`)
	if c.Display != "block" || c.Right > c.Window {
		t.Errorf("a receipt on a phone is displayed %q with its amount ending at %.0f px of %.0f: want a card, all of it in view", c.Display, c.Right, c.Window)
	}
	j.shot("layout-01-receipts-phone")

	// The placeholder typed in: the box does not scroll to show it.
	cut := evalJS[float64](j, "the search box's room", `(() => {
		const input = document.querySelector('[data-testid="search-input"]');
		input.value = input.placeholder;
		const cut = input.scrollWidth - input.clientWidth;
		input.value = '';
		return cut;
	})()`)
	if cut > 0 {
		t.Errorf("on a phone the search box cuts its placeholder by %.0f px", cut)
	}

	j.do("a long name", chromedp.Navigate(s.base+"/products/cf-light"), chromedp.WaitVisible(`nav[aria-label="breadcrumb"]`))
	step := evalJS[float64](j, "the breadcrumb", `(() => {
		const items = document.querySelectorAll('nav[aria-label="breadcrumb"] li');
		return items[items.length - 1].getBoundingClientRect().top - items[0].getBoundingClientRect().top;
	})()`)
	if step > 1 {
		t.Errorf("on a phone the breadcrumb's last item starts %.0f px below the first, on a line of its own", step)
	}
	j.shot("layout-02-breadcrumb-phone")
}
