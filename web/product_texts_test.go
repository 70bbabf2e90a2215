package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Staff give a product's name and description in Korean and Indonesian;
// a customer reading the shop in either sees them on the product page,
// in the catalogue and in search (which finds the product by those names
// too), and the English where a text is left empty.
func TestProductTextsInTheCustomersLanguage(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.staff(t)
	form := b.get("/admin/products/new")
	for _, l := range []string{"ko", "id"} {
		if form.testid("product-text-"+l).Find(`input[name="name_`+l+`"]`).Length() != 1 {
			t.Fatalf("the new product form has no %s name field", l)
		}
	}
	if _, open := form.testid("product-texts").Attr("open"); open {
		t.Error("the other languages start open on an empty form")
	}

	fields := url.Values{"name": {"Birch Spoon"}, "description": {"Carved by hand."}, "category": {"kitchen"}, "price": {"12.50"},
		"name_ko": {"자작나무 숟가락"}, "description_ko": {"손으로 깎았습니다."}, "name_id": {"Sendok Kayu Birch"}}
	long := url.Values{}
	for k, v := range fields {
		long[k] = v
	}
	long.Set("name_id", strings.Repeat("x", 101))
	bad := b.post("/admin/products", long)
	wantStatus(t, "a name too long in Indonesian", bad, http.StatusUnprocessableEntity)
	wantText(t, "its message", bad.testid("error-name_id"), "100")
	if v, _ := bad.testid("field-name_ko").Attr("value"); v != "자작나무 숟가락" {
		t.Fatalf("the Korean name typed is lost: %q", v)
	}
	if _, open := bad.testid("product-texts").Attr("open"); !open {
		t.Error("the other languages are folded away over an error")
	}
	if n := b.get("/admin/products?q=birch+spoon").testid("admin-product-row").Length(); n != 0 {
		t.Fatalf("a refused product was written: %d rows", n)
	}

	created := b.post("/admin/products", fields)
	wantStatus(t, "create", created, http.StatusSeeOther)
	loc := created.header.Get("Location")
	id := strings.TrimPrefix(loc, "/admin/products/")
	edit := b.get(loc)
	if v, _ := edit.testid("field-name_ko").Attr("value"); v != "자작나무 숟가락" {
		t.Fatalf("the edit form shows the Korean name as %q", v)
	}
	if _, open := edit.testid("product-texts").Attr("open"); !open {
		t.Error("the other languages are folded away though given")
	}
	p, err := s.env.Store.Product(context.Background(), id)
	if err != nil || p.TextIn("id").Description != "" || p.TextIn("ko").Description != "손으로 깎았습니다." {
		t.Fatalf("stored %+v (%v)", p.Texts, err)
	}

	v := s.browser(t)
	for _, tc := range []struct{ lang, name, description string }{
		{"en", "Birch Spoon", "Carved by hand."},
		{"ko", "자작나무 숟가락", "손으로 깎았습니다."},
		{"id", "Sendok Kayu Birch", "Carved by hand."},
	} {
		pg := v.get("/products/" + id + "?lang=" + tc.lang)
		wantStatus(t, tc.lang+" product page", pg, http.StatusOK)
		wantText(t, tc.lang+" name", pg.testid("product-name"), tc.name)
		wantText(t, tc.lang+" description", pg.testid("product-description"), tc.description)
		if title := pg.doc.Find("title").Text(); !strings.Contains(title, tc.name) {
			t.Errorf("%s: the title is %q, want %q in it", tc.lang, title, tc.name)
		}
		shelf := v.get("/products?category=kitchen&sort=newest&lang=" + tc.lang)
		if got := shelf.testid("product-card").First().Find("h2").Text(); got != tc.name {
			t.Errorf("%s catalogue's newest card is %q, want %q", tc.lang, got, tc.name)
		}
	}
	for q, lang := range map[string]string{"숟가락": "ko", "sendok kayu": "id", "birch spoon": "ko"} {
		found := v.get("/search?q=" + url.QueryEscape(q) + "&lang=" + lang)
		cards := found.testid("search-results").Find(`[data-testid="product-card"] h2`)
		if !strings.Contains(cards.Text(), map[string]string{"ko": "자작나무 숟가락", "id": "Sendok Kayu Birch"}[lang]) {
			t.Errorf("searching %q in %s finds %q", q, lang, cards.Text())
		}
	}
}
