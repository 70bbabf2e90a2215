package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"shop/store"
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

// headerApart checks that the header's Cart and Menu do not run into each
// other (the cart link's box, its text and padding, ends at least gap px
// before the menu button) and that the button keeps to the page's column.
func (j journey) headerApart(where string, gap float64) {
	j.t.Helper()
	type header struct {
		Gap  float64 `json:"gap"`
		Past float64 `json:"past"`
	}
	got := evalJS[header](j, "the gap between Cart and Menu", `(() => {
		const menu = document.querySelector('[data-testid="nav-menu-toggle"]').getBoundingClientRect();
		const main = document.querySelector('main');
		return {gap: menu.left - document.querySelector('[data-testid="nav-cart-quick"]').getBoundingClientRect().right,
			past: menu.right - (main.getBoundingClientRect().right - parseFloat(getComputedStyle(main).paddingRight))};
	})()`)
	if got.Gap < gap {
		j.t.Errorf("%s: Cart and Menu are %.0f px apart, want at least %.0f", where, got.Gap, gap)
	}
	if got.Past > 1 {
		j.t.Errorf("%s: the Menu button ends %.0f px past the page's column", where, got.Past)
	}
}

// The details of the storefront's layout a walk at 1280 and 360 px found
// wrong: signed in, "Cart" ran into "Menu" (at 1280 px, and at 360 px in
// every language); on a phone the receipts hid their period, card and
// amount behind sideways scrolling, and so did /tickets the Add to cart of
// a ticket, which on the drop's page made a Korean phone scroll sideways;
// the search box cut its placeholder; a long product name in the
// breadcrumb wrapped onto an indented line of its own, and in Korean and
// Indonesian the breadcrumb lost its dividers too (Pico styles it by an
// English aria-label); catalogue cards of a row put their prices at
// different heights when a name wrapped. In English and Korean, with a
// glance at Indonesian's header.
func TestBrowserLayoutAtBothWidths(t *testing.T) {
	t.Parallel()
	s := newShop(t) // signing in writes: a table of its own
	// Ada holds a ticket of a product drop: its next step, on the drop's
	// page and on /tickets.
	ctx, st, now := context.Background(), s.env.Store, time.Now()
	drop, err := st.CreateDrop(ctx, store.NewDrop{Title: "Hand Grinder at a drop price for the first five", Quantity: 5,
		Opens: now.Add(-time.Minute), Closes: now.Add(24 * time.Hour), Published: true, ProductID: "cf-grinder",
		Price: centsEUR(4000), RedeemWithin: store.DefaultRedeemWithin, StaffID: "staff"})
	if err != nil {
		t.Fatal(err)
	}
	ada := s.customerID(t, demo.CustomerEmail)
	// Four in the cart: the header's longest Cart, "Keranjang (4)".
	grinder, err := st.Product(ctx, "cf-grinder")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddToCart(ctx, store.CustomerOwner(ada), grinder, 4); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Claim(ctx, store.ClaimRequest{DropID: drop.ID, Client: ada, CustomerID: ada, DropTitle: drop.Title}, false); err != nil {
		t.Fatal(err)
	}
	j := newJourney(t, s.base)
	j.signIn(demo.CustomerEmail, demo.CustomerPassword)

	j.do("1280 px wide", chromedp.EmulateViewport(1280, 900))
	for _, l := range []string{"en", "ko", "id"} {
		j.do("home in "+l, chromedp.Navigate(s.base+"/?lang="+l), chromedp.WaitVisible(sel("product-card")))
		j.headerApart(l+" at 1280 px", 8)
		if l == "id" {
			continue
		}
		// Every row of cards puts its prices on one line.
		spread := evalJS[float64](j, "the rows' prices", `(() => {
			let worst = 0;
			const cards = [...document.querySelectorAll('[data-testid="product-card"]')];
			for (const top of new Set(cards.map(c => c.getBoundingClientRect().top))) {
				const tops = cards.filter(c => c.getBoundingClientRect().top === top).map(c => c.querySelector('.price').getBoundingClientRect().top);
				worst = Math.max(worst, Math.max(...tops) - Math.min(...tops));
			}
			return worst;
		})()`)
		if spread > 0.5 {
			t.Errorf("%s: a row of the catalogue puts its prices %.1f px apart", l, spread)
		}
		j.shot("layout-01-home-1280-" + l)
		j.noSidewaysScroll("/drops/"+drop.ID, "/tickets")
		j.shot("layout-02-tickets-1280-" + l)
	}

	j.phone()
	for _, l := range []string{"id", "en", "ko"} {
		j.do("home in "+l, chromedp.Navigate(s.base+"/?lang="+l), chromedp.WaitVisible(sel("nav-menu-toggle")))
		j.headerApart(fmt.Sprintf("%s at %d px", l, phoneWidth), 0)
		if l == "id" {
			j.shot("layout-03-home-phone-id")
			continue
		}

		// The placeholder typed in: the box does not scroll to show it.
		cut := evalJS[float64](j, "the search box's room", `(() => {
			const input = document.querySelector('[data-testid="search-input"]');
			input.value = input.placeholder;
			const cut = input.scrollWidth - input.clientWidth;
			input.value = '';
			return cut;
		})()`)
		if cut > 0 {
			t.Errorf("%s: on a phone the search box cuts its placeholder by %.0f px", l, cut)
		}

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
			t.Errorf("%s: a receipt on a phone is displayed %q with its amount ending at %.0f px of %.0f: want a card, all of it in view", l, c.Display, c.Right, c.Window)
		}
		j.shot("layout-03-receipts-phone-" + l)

		// The ticket's next step, in view on its drop's page and on
		// /tickets, where the ticket is a card.
		j.noSidewaysScroll("/drops/"+drop.ID, "/tickets")
		for _, p := range []string{"/drops/" + drop.ID, "/tickets"} {
			j.do("open "+p, chromedp.Navigate(s.base+p), chromedp.WaitVisible(sel("ticket-buy")))
			c := evalJS[cell](j, "the ticket's Add to cart", `(() => {
				const b = document.querySelector('[data-testid="ticket-buy"]');
				const by = document.querySelector('[data-testid="ticket-use-by"]') || b;
				return {display: b.scrollWidth > b.clientWidth ? 'cut' : 'whole',
					right: Math.max(b.getBoundingClientRect().right, by.getBoundingClientRect().right), window: innerWidth};
			})()`)
			if c.Display != "whole" || c.Right > c.Window {
				t.Errorf("%s: %s on a phone: the ticket's Add to cart is %s, it and its date end at %.0f px of %.0f", l, p, c.Display, c.Right, c.Window)
			}
			if cut := evalJS[[]string](j, "cut text", cutTextJS); len(cut) > 0 {
				t.Errorf("%s: %s on a phone: text cut in %s", l, p, strings.Join(cut, "; "))
			}
		}
		j.shot("layout-04-tickets-phone-" + l)

		// Long names, each ending in its weight: the last word stays with
		// the one before it.
		for _, id := range []string{"cf-gbg-dark", "cf-espresso", "cf-decaf", "cf-light"} {
			j.do("a long name", chromedp.Navigate(s.base+"/products/"+id), chromedp.WaitVisible(sel("breadcrumb")))
			type crumbs struct {
				Step    float64 `json:"step"`
				Divider string  `json:"divider"`
				Alone   string  `json:"alone"`
			}
			// Alone is the name's last word, in the breadcrumb or the
			// heading, when it sits on a line of its own ("Midnight Decaf
			// 250 / g").
			b := evalJS[crumbs](j, "the breadcrumb", `(() => {
				const items = document.querySelectorAll('[data-testid="breadcrumb"] li');
				const last = items[items.length - 1];
				const alone = e => {
					const walk = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
					let text = null;
					while (walk.nextNode()) { if (walk.currentNode.textContent.trim()) text = walk.currentNode; }
					const words = [...text.textContent.matchAll(/\S+/g)];
					const top = w => { const r = document.createRange(); r.setStart(text, w.index); r.setEnd(text, w.index + w[0].length); return r.getClientRects()[0].top; };
					const [before, end] = words.slice(-2);
					return before && top(end) > top(before) + 1 ? end[0] : '';
				};
				const inCrumb = alone(last), inName = alone(document.querySelector('[data-testid="product-name"]'));
				return {step: last.getBoundingClientRect().top - items[0].getBoundingClientRect().top,
					divider: getComputedStyle(items[0], '::after').content,
					alone: inCrumb ? 'breadcrumb: ' + inCrumb : inName ? 'heading: ' + inName : ''};
			})()`)
			if b.Alone != "" {
				t.Errorf("%s: %s on a phone: the name's last word is alone on its line in the %s", l, id, b.Alone)
			}
			if b.Step > 1 {
				t.Errorf("%s: %s on a phone: the breadcrumb's last item starts %.0f px below the first, on a line of its own", l, id, b.Step)
			}
			if b.Divider == "none" || b.Divider == "" {
				t.Errorf("%s: the breadcrumb has no divider after its first item", l)
			}
			if id == "cf-decaf" {
				j.shot("layout-06-breadcrumb-weight-phone-" + l)
			}
		}
		j.shot("layout-05-breadcrumb-phone-" + l)
	}

	// The ticket put in the cart: its drop's page and /tickets offer the
	// cart instead of Add to cart, on a phone and at 1280 px.
	j.do("add the ticket", chromedp.Navigate(s.base+"/tickets?lang=en"), chromedp.WaitVisible(sel("ticket-buy")),
		chromedp.Click(sel("ticket-buy")), chromedp.WaitVisible(sel("cart")))
	for _, w := range []int{phoneWidth, 1280} {
		j.do(fmt.Sprintf("%d px wide", w), chromedp.EmulateViewport(int64(w), 900))
		j.noSidewaysScroll("/drops/"+drop.ID, "/tickets")
		for _, p := range []string{"/drops/" + drop.ID, "/tickets"} {
			j.do("open "+p, chromedp.Navigate(s.base+p), chromedp.WaitVisible(sel("ticket-cart-link")))
			if j.count(sel("ticket-buy")) != 0 {
				t.Errorf("%d px: %s offers Add to cart for a ticket in the cart", w, p)
			}
		}
		j.shot(fmt.Sprintf("layout-07-ticket-in-cart-%d", w))
	}
}
