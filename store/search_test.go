package store_test

import (
	"slices"
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
