package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"shop/store/demo"
	"shop/web/paths"
)

// cutTextJS lists the visible controls and cells whose text is wider than
// their box (a button whose label runs out of it, a cell whose word sticks
// out), and the buttons and header links whose label breaks onto a second
// line: Korean and Indonesian words are longer or wider than English ones.
const cutTextJS = `(() => {
	const cut = [];
	for (const e of document.querySelectorAll('button, .button, select, label, legend, th, td, h1, h2, h3, nav a, [role="status"], small')) {
		if (!e.checkVisibility() || e.closest('[aria-hidden="true"]') || !e.innerText.trim()) continue;
		if (e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).display !== 'inline') {
			cut.push(e.tagName.toLowerCase() + (e.dataset.testid ? '[' + e.dataset.testid + ']' : '') + ' "' + e.innerText.trim().slice(0, 30) + '" ' + e.scrollWidth + '>' + e.clientWidth);
		}
	}
	// A button's or a header link's label on two lines reads as two
	// controls: it must fit one.
	for (const e of document.querySelectorAll('button, .button, summary, header nav a, .categories a')) {
		if (!e.checkVisibility() || !e.innerText.trim()) continue;
		const r = document.createRange();
		r.selectNodeContents(e);
		const tops = new Set([...r.getClientRects()].filter(x => x.width > 0).map(x => Math.round(x.bottom)));
		// A box's height tells too (a summary's marker is no text).
		const cs = getComputedStyle(e);
		const inner = e.clientHeight - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom);
		if (tops.size > 1 || inner > 1.5 * (parseFloat(cs.lineHeight) || 1.5 * parseFloat(cs.fontSize))) {
			cut.push(e.tagName.toLowerCase() + (e.dataset.testid ? '[' + e.dataset.testid + ']' : '') + ' "' + e.innerText.trim().slice(0, 30) + '" on ' + tops.size + ' lines');
		}
	}
	// Nothing sticks out of the page's column into its margin.
	const main = document.querySelector('main');
	const edge = main.getBoundingClientRect().right - parseFloat(getComputedStyle(main).paddingRight);
	for (const e of main.querySelectorAll('*')) {
		if (!e.checkVisibility() || e.closest('.table-scroll')) continue;
		const r = e.getBoundingClientRect();
		if (r.width > 0 && r.right > edge + 1) {
			cut.push(e.tagName.toLowerCase() + (e.dataset.testid ? '[' + e.dataset.testid + ']' : '') + ' sticks out of the column to ' + Math.round(r.right) + ' (edge ' + Math.round(edge) + ')');
		}
	}
	return cut.slice(0, 8);
})()`

// On a 360 px phone the catalogue, a product, the cart and checkout in
// Korean and in Indonesian neither scroll sideways nor cut a word.
func TestBrowserPhoneInKoreanAndIndonesian(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	for _, l := range []string{"ko", "id"} {
		t.Run(l, func(t *testing.T) {
			j := newJourney(t, s.base)
			j.name = l
			j.phone()
			// Signed in first: sign-in reads the shop in the record's
			// language (the demo's Ada has English), and a choice after it
			// is the record's from then on.
			j.signIn(demo.CustomerEmail, demo.CustomerPassword)
			j.do("choose "+l, chromedp.Navigate(s.base+"/?lang="+l), chromedp.WaitVisible(sel("product-grid")))
			for _, product := range []string{"cf-grinder", "bk-fjord"} {
				j.do("add "+product, chromedp.Navigate(s.base+"/products/"+product), chromedp.WaitVisible(sel("add-submit")),
					chromedp.Click(sel("add-submit")), chromedp.WaitVisible(sel("added")))
			}
			pages := []string{"/", paths.Category("coffee"), "/products/cf-grinder", "/cart", "/checkout", "/search?q=zzzz", "/search?q=cofee&sort=price", "/products/no-such-product"}
			j.noSidewaysScroll(pages...)
			for _, p := range pages {
				j.do("open "+p, chromedp.Navigate(s.base+p), chromedp.WaitReady("body > footer"))
				if got, _ := chromedp.Run(j.ctx, chromedp.Evaluate[string](`document.documentElement.lang`)); got != l {
					t.Fatalf("%s: the page is in %q", p, got)
				}
				cut, err := chromedp.Run(j.ctx, chromedp.Evaluate[[]string](cutTextJS))
				if err != nil {
					t.Fatal(err)
				}
				if len(cut) > 0 {
					t.Errorf("%s in %s at %d px: text cut in %s", p, l, phoneWidth, strings.Join(cut, "; "))
				}
				j.shot("phone-" + l + strings.NewReplacer("/", "-", "?", "-", "=", "-").Replace(p))
			}
		})
	}
}
