package web_test

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Search finds products by name and category whatever the case and
// accents; as you type (htmx) it answers with the results alone; an empty
// or silly query gets a clear word, never an error.
func TestSearchAsYouTypeAndAsAPage(t *testing.T) {
	t.Parallel()
	s := sharedShop(t)
	b := s.browser(t)
	p := b.get("/search?q=" + url.QueryEscape("GÖTEBORG dark"))
	wantStatus(t, "search page", p, http.StatusOK)
	if p.testid("search-form").Length() != 1 || !strings.Contains(p.testid("search-results").Text(), "Göteborg Dark Roast") {
		t.Fatalf("search page: %s", trim(p.testid("search-results").Text()))
	}
	wantText(t, "count", p.testid("search-count"), "1 product matches")

	typed := b.get("/search?q=grind", "HX-Request", "true")
	wantStatus(t, "as you type", typed, http.StatusOK)
	if strings.Contains(typed.body, "<html") || typed.testid("search-results").Length() != 1 || typed.testid("product-card").Length() == 0 {
		t.Fatalf("as you type: %s", trim(typed.body))
	}
	s.env.Counter.Reset()
	b.get("/search?q=grinder", "HX-Request", "true")
	if n := s.env.Counter.Total(); n != 0 {
		t.Errorf("a warm search made %d DynamoDB requests", n)
	}

	wantText(t, "nothing found", b.get("/search?q=zzzz").testid("search-none"), "Nothing matches")
	// Every storefront page has the box; typing into it fills the results
	// under it, and emptying it empties them.
	if b.get("/products/cf-light").testid("search-input").Length() != 1 {
		t.Fatal("a product page without the search box")
	}
	if cleared := b.get("/search?q=", "HX-Request", "true"); strings.TrimSpace(cleared.testid("search-results").Text()) != "" {
		t.Fatalf("an emptied box still shows %q", cleared.testid("search-results").Text())
	}
	wantStatus(t, "no query", b.get("/search"), http.StatusOK)
	wantText(t, "a query too long", b.get("/search?q="+strings.Repeat("a", 101)).testid("search-problem"), "a word or two")
	wantStatus(t, "invalid UTF-8", b.get("/search?q=%ff"), http.StatusOK)
}

// A typo still finds the product, in Korean and Indonesian pages too; the
// results sort by price (the sort form is a plain GET, so it works without
// JavaScript), and a sort that is no order is a 400 that says which are.
func TestSearchForgivesTyposAndSorts(t *testing.T) {
	t.Parallel()
	s := sharedShop(t)
	b := s.browser(t)
	for lang, name := range map[string]string{"en": "Harbour Espresso", "ko": "하버 에스프레소", "id": "Harbour Espresso"} {
		p := b.get("/search?q=expresso&lang=" + lang)
		wantStatus(t, lang+" expresso", p, http.StatusOK)
		if !strings.Contains(p.testid("search-results").Text(), name) {
			t.Errorf("%s: expresso found %q", lang, trim(p.testid("search-results").Text()))
		}
	}
	p := b.get("/search?q=cofee&lang=en")
	if p.testid("product-card").Length() < 4 || p.testid("search-sort").Length() != 1 {
		t.Fatalf("cofee: %d products, %d sort forms", p.testid("product-card").Length(), p.testid("search-sort").Length())
	}
	if q := p.testid("search-sort").Find(`input[name="q"]`).AttrOr("value", ""); q != "cofee" {
		t.Errorf("the sort form keeps the query %q", q)
	}
	sorted := b.get("/search?q=cofee&sort=price&lang=en")
	wantStatus(t, "by price", sorted, http.StatusOK)
	var prices []int // cents: the digits of "€12.90"
	sorted.testid("product-card").Each(func(_ int, card *goquerySelection) {
		digits := strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, card.Find(`.price [data-testid="money"]`).Text())
		if n, err := strconv.Atoi(digits); err == nil {
			prices = append(prices, n)
		}
	})
	if len(prices) < 4 || !slices.IsSorted(prices) {
		t.Errorf("sorted by price: %v", prices)
	}
	if got := sorted.testid("search-sort-select").Find("option[selected]").AttrOr("value", ""); got != "price" {
		t.Errorf("the sort form shows %q chosen", got)
	}
	bad := b.get("/search?q=cofee&sort=cheapest&lang=en")
	wantStatus(t, "a sort that is no order", bad, http.StatusBadRequest)
	if !strings.Contains(bad.body, "best match, name, price or newest") {
		t.Errorf("the 400 does not say which orders there are")
	}
}
