package store_test

import (
	"slices"
	"strings"
	"testing"

	"shop/store"
	"shop/store/demo"
	"shop/store/storetest"
)

func TestFoldText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"Göteborg", "goteborg"},
		{"  Crème   Brûlée ", "creme brulee"},
		{"Ørsted Æble", "orsted aeble"},
		{"STRASSE Straße", "strasse strasse"},
		{"", ""},
	} {
		if got := store.FoldText(tc.in); got != tc.want {
			t.Errorf("FoldText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Search finds by name and category, ignoring case and accents; a warm
// search reads nothing from the table.
func TestSearchTheCatalogue(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	ctx, w := ctxT(t), env.Store.Window()
	if _, err := demo.Load(ctx, env.Store, 4); err != nil {
		t.Fatal(err)
	}
	ids := func(r store.SearchResult) []string {
		var out []string
		for _, p := range r.Products {
			out = append(out, p.ID)
		}
		return out
	}
	cold, err := w.Search(ctx, "grinder", 10)
	if err != nil || !slices.Contains(ids(cold), "cf-grinder") {
		t.Fatalf("grinder: %v, %v", ids(cold), err)
	}
	env.Counter.Reset()
	for _, tc := range []struct {
		q    string
		want string // a product found
	}{
		{"GRINDER", "cf-grinder"},
		{"goteborg", "cf-gbg-dark"}, // its name says Göteborg
		{"coffee light", "cf-light"},
	} {
		r, err := w.Search(ctx, tc.q, 50)
		if err != nil || !slices.Contains(ids(r), tc.want) || r.Total != len(r.Products) {
			t.Errorf("search %q: %v (of %d), %v; want %s among them", tc.q, ids(r), r.Total, err, tc.want)
		}
	}
	if n := env.Counter.Total(); n != 0 {
		t.Errorf("warm searches made %d DynamoDB requests, want 0", n)
	}
	if r, _ := w.Search(ctx, "no such thing", 10); r.Total != 0 {
		t.Errorf("a search for nothing found %v", ids(r))
	}
	if r, _ := w.Search(ctx, "c", 2); len(r.Products) != 2 || r.Total <= 2 {
		t.Errorf("limit 2: %d of %d", len(r.Products), r.Total)
	}
}

// A word with a typo or two still finds what it meant, after what is spelt
// right; short words must be right; results can be sorted, all without a
// DynamoDB request once warm.
func TestSearchForgivesTyposAndSorts(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	ctx, w := ctxT(t), env.Store.Window()
	if _, err := demo.Load(ctx, env.Store, 4); err != nil {
		t.Fatal(err)
	}
	ids := func(r store.SearchResult) []string {
		var out []string
		for _, p := range r.Products {
			out = append(out, p.ID)
		}
		return out
	}
	if _, err := w.Search(ctx, "warm", 1); err != nil {
		t.Fatal(err)
	}
	env.Counter.Reset()
	for _, tc := range []struct{ q, want string }{
		{"cofee", "cf-grinder"}, // the category is Coffee
		{"expresso", "cf-espresso"},
		{"expres", "cf-espresso"}, // still typing
		{"hand grindr", "cf-grinder"},
		{"harbuor expresso", "cf-espresso"},
		{"Göteborg drak", "cf-gbg-dark"},
	} {
		r, err := w.Search(ctx, tc.q, 100)
		if err != nil || !slices.Contains(ids(r), tc.want) {
			t.Errorf("search %q: %v, %v; want %s among them", tc.q, ids(r), err, tc.want)
		}
	}
	for _, q := range []string{"cfo", "xqzzyv", "expressoxx"} { // "cfo": three letters must be right
		if r, _ := w.Search(ctx, q, 10); r.Total != 0 {
			t.Errorf("search %q found %v", q, ids(r))
		}
	}
	// "roasts" is in no name: it finds what "roast" finds, by the typo.
	right, _ := w.Search(ctx, "roast", 100)
	typo, _ := w.Search(ctx, "roasts", 100)
	if right.Total == 0 || !slices.Equal(ids(right), ids(typo)[:min(len(ids(typo)), right.Total)]) {
		t.Errorf("roast: %v; roasts: %v", ids(right), ids(typo))
	}

	all, err := w.SearchSorted(ctx, "coffee", store.ByPrice, 100)
	if err != nil || all.Total < 4 {
		t.Fatalf("coffee by price: %v, %v", ids(all), err)
	}
	for i := 1; i < len(all.Products); i++ {
		if all.Products[i-1].Price.Amount > all.Products[i].Price.Amount {
			t.Fatalf("by price, %s (%v) before %s (%v)", all.Products[i-1].ID, all.Products[i-1].Price, all.Products[i].ID, all.Products[i].Price)
		}
	}
	desc, _ := w.SearchSorted(ctx, "coffee", store.ByPriceDesc, 100)
	if first, last := desc.Products[0], desc.Products[len(desc.Products)-1]; first.Price.Amount < last.Price.Amount || desc.Total != all.Total {
		t.Errorf("dearest first: %v … %v", first.Price, last.Price)
	}
	byName, _ := w.SearchSorted(ctx, "coffee", store.ByName, 100)
	if !slices.IsSortedFunc(byName.Products, func(a, b store.Product) int { return strings.Compare(store.FoldText(a.Name), store.FoldText(b.Name)) }) {
		t.Errorf("by name: %v", ids(byName))
	}
	if n := env.Counter.Total(); n != 0 {
		t.Errorf("warm searches made %d DynamoDB requests, want 0", n)
	}
	for _, c := range []struct {
		s  string
		ok bool
	}{{"", true}, {"relevance", true}, {"price-desc", true}, {"newest", true}, {"cheapest", false}} {
		if _, ok := store.ParseSearchOrder(c.s); ok != c.ok {
			t.Errorf("ParseSearchOrder(%q) ok = %v", c.s, ok)
		}
	}
}
