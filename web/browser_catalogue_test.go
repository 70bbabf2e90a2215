package web_test

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"shop/store"
)

// A shopper sorts the catalogue by price, high to low (htmx swaps the list
// and the address follows), shows more (the address names the page), and
// a reload and going back show the lists they had.
func TestBrowserCatalogueSortsAndShowsMore(t *testing.T) {
	t.Parallel()
	s := sharedShop(t)
	all, err := s.env.Store.AllProducts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	slices.SortStableFunc(all, func(a, b store.Product) int { return cmp.Compare(b.Price.Amount, a.Price.Amount) })
	var dearest []string
	for _, p := range all[:24] {
		dearest = append(dearest, p.ID)
	}
	total := strconv.Itoa(len(all))

	j := newJourney(t, s.base)
	cards := func() []string {
		t.Helper()
		ids, err := chromedp.Run(j.ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('[data-testid="product-card"] a')).map(a => a.getAttribute('href').replace('/products/', ''))`))
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	waitAddress := func(step, want string) {
		t.Helper()
		j.waitFor(step, `location.pathname + location.search === '`+want+`'`, 10*time.Second)
	}

	j.do("catalogue", chromedp.Navigate(s.base+"/products"), chromedp.WaitVisible(sel("sort-select")),
		// Gone if the page is loaded again rather than swapped.
		chromedp.Evaluate[chromedp.Void](`window.sameDocument = 1`))
	// A pick is enough: htmx sends the form as the choice changes.
	j.do("sort by price, high to low",
		chromedp.SetValue(sel("sort-select"), "price-desc"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="sort-select"]').dispatchEvent(new Event('change', {bubbles: true}))`),
	)
	waitAddress("the address follows the sort", "/products?sort=price-desc")
	j.waitFor("the dearest first", `document.querySelector('[data-testid="product-card"] a').getAttribute('href') === '/products/`+dearest[0]+`'`, 10*time.Second)
	if got := cards(); strings.Join(got, " ") != strings.Join(dearest[:12], " ") {
		t.Fatalf("by price, high to low: %v, want %v", got, dearest[:12])
	}
	j.waitText("count", sel("catalogue-count"), "Showing 12 of "+total)
	j.shot("catalogue-sorted")

	j.do("show more", chromedp.Click(sel("catalogue-more")))
	j.waitFor("24 cards", `document.querySelectorAll('[data-testid="product-card"]').length === 24`, 10*time.Second)
	waitAddress("the address names the page", "/products?page=2&sort=price-desc")
	j.waitText("count after show more", sel("catalogue-count"), "Showing 24 of "+total)
	if got := cards(); strings.Join(got, " ") != strings.Join(dearest, " ") {
		t.Fatalf("after show more: %v, want %v", got, dearest)
	}
	if marker, err := chromedp.Run(j.ctx, chromedp.Evaluate[int](`window.sameDocument || 0`)); err != nil || marker != 1 {
		t.Fatalf("the page was loaded again instead of swapped (%d, %v)", marker, err)
	}
	j.shot("catalogue-more")
	// Focus goes to the first product "show more" added.
	if focus, err := chromedp.Run(j.ctx, chromedp.Evaluate[string](`document.activeElement.getAttribute('href') || document.activeElement.tagName`)); err != nil || focus != "/products/"+dearest[12] {
		t.Errorf("after show more focus is on %q (%v), want the 13th card's link", focus, err)
	}

	j.do("reload", chromedp.Reload(), chromedp.WaitVisible(sel("catalogue-count")))
	if got := cards(); strings.Join(got, " ") != strings.Join(dearest, " ") {
		t.Fatalf("after a reload: %v, want %v", got, dearest)
	}
	if got := j.text(sel("catalogue-count")); got != "Showing 24 of "+total {
		t.Errorf("after a reload the count says %q", got)
	}
	if got, err := chromedp.Run(j.ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="sort-select"]').value`)); err != nil || got != "price-desc" {
		t.Errorf("after a reload the sort control shows %q (%v)", got, err)
	}

	j.do("back", chromedp.NavigateBack())
	waitAddress("back to the first page", "/products?sort=price-desc")
	j.waitFor("12 cards again", `document.querySelectorAll('[data-testid="product-card"]').length === 12`, 10*time.Second)
	if got := cards(); strings.Join(got, " ") != strings.Join(dearest[:12], " ") {
		t.Fatalf("after going back: %v", got)
	}
}
