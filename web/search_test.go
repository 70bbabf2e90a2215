package web_test

import (
	"net/http"
	"net/url"
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
