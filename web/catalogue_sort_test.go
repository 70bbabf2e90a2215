package web_test

import (
	"cmp"
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"shop/store"
)

// cardIDs are the product ids of a page's cards, in order.
func cardIDs(p page) []string {
	var ids []string
	p.testid("product-card").Each(func(_ int, card *goquerySelection) {
		href, _ := card.Find("a").Attr("href")
		ids = append(ids, strings.TrimPrefix(href, "/products/"))
	})
	return ids
}

// "Show more" pages through every product, each page's address the one
// a reload shows the same list at; without JavaScript the same links are
// plain previous and next links to full pages.
func TestCataloguePagesThroughEveryProduct(t *testing.T) {
	t.Parallel()
	s := sharedShop(t)
	b := s.browser(t)
	all, err := s.env.Store.AllProducts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	total := len(all)
	showing := func(n int) string { return "Showing " + strconv.Itoa(n) + " of " + strconv.Itoa(total) }

	first := b.get("/products")
	wantStatus(t, "catalogue", first, http.StatusOK)
	if n := first.testid("product-card").Length(); n != 12 {
		t.Fatalf("first page has %d products, want 12", n)
	}
	if first.testid("category-link").Length() != 5 {
		t.Fatalf("categories shown: %d", first.testid("category-link").Length())
	}
	if got := first.testid("catalogue-count").Text(); got != showing(12) {
		t.Errorf("first page says %q, want %q", got, showing(12))
	}
	if first.testid("catalogue-prev").Length() != 0 {
		t.Error("the first page links to a previous one")
	}
	more := first.testid("catalogue-more")
	for name, want := range map[string]string{"href": "/products?page=2#page-2", "hx-get": "/products?page=2", "hx-push-url": "/products?page=2", "hx-target": "closest nav"} {
		if got := attr(more, name); got != want {
			t.Errorf("show more %s = %q, want %q", name, got, want)
		}
	}
	if got := attr(first.testid("catalogue-next"), "href"); got != "/products?page=2#page-2" {
		t.Errorf("next page link %q", got)
	}

	seen := map[string]bool{}
	collect := func(p page) {
		for _, id := range cardIDs(p) {
			if seen[id] {
				t.Fatalf("%s listed twice", id)
			}
			seen[id] = true
		}
	}
	collect(first)
	next, pages := attr(more, "hx-get"), 1
	for next != "" {
		// htmx asks for the next cards only, and the pager out of band.
		p := b.get(next, "HX-Request", "true")
		wantStatus(t, "next page", p, http.StatusOK)
		pages++
		if strings.Contains(p.body, "<html") || p.doc.Find("header").Length() != 0 {
			t.Fatal("htmx page of cards came with the whole layout")
		}
		if vary := p.header.Get("Vary"); !strings.Contains(vary, "HX-Request") || !strings.Contains(vary, "HX-Target") {
			t.Errorf("Vary = %q, want HX-Request and HX-Target in it", vary)
		}
		if got := p.header.Get("HX-Push-Url"); got != next {
			t.Errorf("%s pushes %q, want itself", next, got)
		}
		if p.testid("catalogue-pager").Length() != 1 || !p.testid("product-card").Last().Next().Is("nav") {
			t.Errorf("%s: the new pager does not follow the new cards", next)
		}
		if got, want := p.testid("catalogue-count").Text(), showing(min(pages*12, total)); got != want {
			t.Errorf("%s says %q, want %q", next, got, want)
		}
		if id := attr(p.testid("product-card").First().Find("a"), "id"); id != "page-"+strconv.Itoa(pages) {
			t.Errorf("%s: the first card's anchor is %q", next, id)
		}
		collect(p)
		next = attr(p.testid("catalogue-more"), "hx-get")
	}
	if len(seen) != total || total < 30 || pages != (total+11)/12 {
		t.Fatalf("paged through %d of %d products in %d pages", len(seen), total, pages)
	}

	// Without JavaScript, or on a reload: the list as long as it was, with
	// the page's first card as the link's landing place.
	second := b.get("/products?page=2")
	wantStatus(t, "page 2", second, http.StatusOK)
	ids := cardIDs(second)
	if second.doc.Find("header").Length() == 0 || len(ids) != 24 || strings.Join(ids[:12], " ") != strings.Join(cardIDs(first), " ") {
		t.Fatalf("page 2 without JavaScript shows %v", ids)
	}
	if got := second.testid("catalogue-count").Text(); got != showing(24) {
		t.Errorf("page 2 says %q", got)
	}
	if id := attr(second.testid("product-card").Eq(12).Find("a"), "id"); id != "page-2" {
		t.Errorf("the 13th card's anchor is %q, want page-2", id)
	}
	if got := attr(second.testid("catalogue-prev"), "href"); got != "/products" {
		t.Errorf("previous from page 2 is %q, want /products", got)
	}
	if got := attr(second.testid("catalogue-next"), "href"); got != "/products?page=3#page-3" {
		t.Errorf("next from page 2 is %q", got)
	}
	// A history restore needs the full page although htmx sends HX-Request.
	restore := b.get("/products?page=2", "HX-Request", "true", "HX-History-Restore-Request", "true")
	if restore.doc.Find("header").Length() == 0 || restore.testid("product-card").Length() != 24 {
		t.Fatal("history restore did not get the full list")
	}

	// A page past the end shows the whole list, as its last page.
	past := b.get("/products?page=999")
	wantStatus(t, "page past the end", past, http.StatusOK)
	last := (total + 11) / 12
	if past.testid("product-card").Length() != total || past.testid("catalogue-more").Length() != 0 || past.testid("catalogue-count").Text() != showing(total) {
		t.Fatalf("page 999: %d cards, more link %d, %q", past.testid("product-card").Length(), past.testid("catalogue-more").Length(), past.testid("catalogue-count").Text())
	}
	if got, want := attr(past.testid("catalogue-prev"), "href"), "/products?page="+strconv.Itoa(last-1)+"#page-"+strconv.Itoa(last-1); got != want {
		t.Errorf("previous from past the end is %q, want %q", got, want)
	}

	coffee := b.get("/products?category=coffee")
	wantStatus(t, "coffee", coffee, http.StatusOK)
	if n := coffee.testid("product-card").Length(); n != 7 || coffee.testid("catalogue-more").Length() != 0 || coffee.testid("catalogue-count").Text() != "Showing 7 of 7" {
		t.Fatalf("coffee shows %d products (more link %d, %q)", n, coffee.testid("catalogue-more").Length(), coffee.testid("catalogue-count").Text())
	}
	// Links from before pages had numbers: their cursor is left aside.
	wantStatus(t, "old cursor link", b.get("/products?after=garbage"), http.StatusOK)
	wantStatus(t, "unknown category", b.get("/products?category=shoes"), http.StatusNotFound)
}

// Each order lists the catalogue (and a category) in that order, ties by
// name; the order survives paging and the category links, and the sort
// control swaps the list in place for htmx.
func TestCatalogueSortsByNamePriceAndNewest(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := context.Background()
	// Demo products are made within moments of each other: one made later
	// is the newest without doubt.
	if err := s.env.Store.PutProduct(ctx, store.Product{
		ID: "kt-spoon", Name: "Birch Spoon", Category: "kitchen", Description: "Carved.",
		Price: store.Money{Amount: 990, Currency: store.DefaultCurrency}, CreatedAt: time.Now().Add(time.Hour),
	}); err != nil {
		t.Fatal(err)
	}
	all, err := s.env.Store.AllProducts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]store.Product{}
	for _, p := range all {
		byID[p.ID] = p
	}
	name := func(p store.Product) string { return strings.ToLower(p.Name) + "#" + p.ID }
	b := s.browser(t)
	for _, tc := range []struct {
		sort, category string
		cmp            func(a, b store.Product) int // <= 0 for every neighbour
	}{
		{"", "", func(a, b store.Product) int { return cmp.Compare(name(a), name(b)) }},
		{"name", "kitchen", func(a, b store.Product) int { return cmp.Compare(name(a), name(b)) }},
		{"price", "", func(a, b store.Product) int {
			return cmp.Or(cmp.Compare(a.Price.Amount, b.Price.Amount), cmp.Compare(name(a), name(b)))
		}},
		{"price-desc", "", func(a, b store.Product) int {
			return cmp.Or(cmp.Compare(b.Price.Amount, a.Price.Amount), cmp.Compare(name(a), name(b)))
		}},
		{"price-desc", "kitchen", func(a, b store.Product) int {
			return cmp.Or(cmp.Compare(b.Price.Amount, a.Price.Amount), cmp.Compare(name(a), name(b)))
		}},
		{"newest", "", func(a, b store.Product) int {
			return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(name(a), name(b)))
		}},
	} {
		what := tc.category + " by " + tc.sort
		q := "/products?page=9&sort=" + tc.sort
		if tc.category != "" {
			q += "&category=" + tc.category
		}
		p := b.get(q)
		wantStatus(t, what, p, http.StatusOK)
		ids := cardIDs(p)
		want := 0
		for _, pr := range all {
			if tc.category == "" || pr.Category == tc.category {
				want++
			}
		}
		if len(ids) != want {
			t.Fatalf("%s: %d cards, want %d", what, len(ids), want)
		}
		for i := 1; i < len(ids); i++ {
			a, c := byID[ids[i-1]], byID[ids[i]]
			if tc.category != "" && c.Category != tc.category {
				t.Fatalf("%s lists %s of %s", what, c.ID, c.Category)
			}
			if tc.cmp(a, c) > 0 {
				t.Fatalf("%s: %s before %s (%v, %v)", what, a.ID, c.ID, ids[i-1], ids[i])
			}
		}
		if tc.sort == "newest" && ids[0] != "kt-spoon" {
			t.Errorf("newest first starts with %s", ids[0])
		}
		order := cmp.Or(tc.sort, "name")
		if got := attr(p.testid("sort-select").Find("option[selected]"), "value"); got != order {
			t.Errorf("%s: the sort control shows %q", what, got)
		}
	}

	// The order survives paging and the category links; the default is
	// left out of every link.
	price := b.get("/products?sort=price")
	if got := attr(price.testid("catalogue-more"), "hx-get"); got != "/products?page=2&sort=price" {
		t.Errorf("show more by price: %q", got)
	}
	links := map[string]string{}
	price.testid("category-link").Each(func(_ int, a *goquerySelection) { links[a.Text()] = attr(a, "href") })
	if links["Coffee"] != "/products?category=coffee&sort=price" || attr(price.testid("category-all"), "href") != "/products?sort=price" {
		t.Errorf("category links by price: %v, all %q", links, attr(price.testid("category-all"), "href"))
	}
	byName := b.get("/products?sort=name&category=coffee")
	if got := attr(byName.testid("category-all"), "href"); got != "/products" {
		t.Errorf("the default order is in a link: %q", got)
	}
	form := price.testid("catalogue-sort")
	if attr(form, "method") != "get" || attr(form, "action") != "/products" || price.testid("sort-submit").Length() != 1 || form.Find(`input[name="category"]`).Length() != 0 {
		t.Errorf("the sort control is not a plain GET form of the whole catalogue")
	}
	if got := attr(b.get("/products?category=coffee").testid("catalogue-sort").Find(`input[name="category"]`), "value"); got != "coffee" {
		t.Errorf("the sort control of a category carries %q", got)
	}

	// htmx: the sort control swaps the list whole, first page, and puts
	// the list's own address in the address bar.
	for sort, push := range map[string]string{"newest": "/products?sort=newest", "name": "/products"} {
		p := b.get("/products?sort="+sort, "HX-Request", "true", "HX-Target", "catalogue-list")
		wantStatus(t, "sort swap "+sort, p, http.StatusOK)
		if p.doc.Find("header").Length() != 0 || p.testid("catalogue-list").Length() != 1 || p.testid("product-card").Length() != 12 {
			t.Fatalf("sort swap %s: %s", sort, trim(p.body))
		}
		if got := p.header.Get("HX-Push-Url"); got != push {
			t.Errorf("sort swap %s pushes %q, want %q", sort, got, push)
		}
	}
}

// A sort or page that is no such thing is a clear 400, never a 500.
func TestCatalogueRefusesBadSortAndPage(t *testing.T) {
	t.Parallel()
	s := sharedShop(t)
	b := s.browser(t)
	for _, q := range []string{"sort=cheapest", "sort=Price", "page=0", "page=-1", "page=abc", "page=1.5", "page=99999999999999999999", "category=coffee&sort=%00"} {
		for _, htmx := range []bool{false, true} {
			var p page
			if htmx {
				p = b.get("/products?"+q, "HX-Request", "true")
			} else {
				p = b.get("/products?" + q)
			}
			wantStatus(t, q, p, http.StatusBadRequest)
			if !htmx && p.testid("error").Length() != 1 {
				t.Errorf("%s: the 400 is not the error page: %s", q, trim(p.body))
			}
			msg := p.body
			if !strings.Contains(msg, "sorts by name, price or newest") && !strings.Contains(msg, "numbered from 1") {
				t.Errorf("%s: the 400 does not say what is wrong: %s", q, trim(p.body))
			}
		}
	}
}
