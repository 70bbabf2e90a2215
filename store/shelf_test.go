package store_test

import (
	"slices"
	"testing"
	"time"

	"shop/store"
	"shop/store/storetest"
)

// The storefront's sorted lists are cut from the window's one copy of the
// whole catalogue: each order is right (ties by name), paging slices it,
// and a cold window reads the catalogue once for every category and order.
func TestShelvesSortTheWholeCatalogueInMemory(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	st, ctx := env.Store, ctxT(t)
	day := time.Date(2031, 3, 1, 10, 0, 0, 0, time.UTC)
	for i, p := range []store.Product{
		{ID: "tin", Name: "Coffee Tin", Category: "kitchen", Price: eur(1490)},
		{ID: "mug", Name: "Mug", Category: "kitchen", Price: eur(1890)},
		{ID: "beans", Name: "Beans", Category: "coffee", Price: eur(1290)},
		{ID: "apron", Name: "apron", Category: "kitchen", Price: eur(1490)}, // lower case sorts by name all the same
		{ID: "kettle", Name: "Kettle", Category: "kitchen", Price: eur(4490)},
	} {
		p.CreatedAt = day.AddDate(0, 0, i) // the kettle is the newest
		if err := st.PutProduct(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	w := st.Window()
	ids := func(sh store.Shelf) []string {
		var out []string
		for _, p := range sh.Products {
			out = append(out, p.ID)
		}
		return out
	}
	env.Costs(t, "the first list, cold", 1, func() {
		if _, err := w.Shelf(ctx, "kitchen", store.ByName, 0, 10); err != nil {
			t.Fatal(err)
		}
	})
	env.Counter.Reset()
	for _, tc := range []struct {
		category string
		order    store.CatalogueOrder
		want     []string
	}{
		{"kitchen", store.ByName, []string{"apron", "tin", "kettle", "mug"}},
		{"kitchen", store.ByPrice, []string{"apron", "tin", "mug", "kettle"}},
		{"kitchen", store.ByPriceDesc, []string{"kettle", "mug", "apron", "tin"}},
		{"kitchen", store.ByNewest, []string{"kettle", "apron", "mug", "tin"}},
		{"", store.ByName, []string{"apron", "beans", "tin", "kettle", "mug"}},
		{"", store.ByPrice, []string{"beans", "apron", "tin", "mug", "kettle"}},
		{"coffee", store.ByNewest, []string{"beans"}},
		{"outdoor", store.ByPrice, nil},
	} {
		sh, err := w.Shelf(ctx, tc.category, tc.order, 0, 10)
		if err != nil || !slices.Equal(ids(sh), tc.want) || sh.Total != len(tc.want) {
			t.Errorf("%q by %s: %v of %d, %v; want %v", tc.category, tc.order, ids(sh), sh.Total, err, tc.want)
		}
	}
	if n := env.Counter.Total(); n != 0 {
		t.Errorf("every category in every order, warm: %d DynamoDB requests %v, want 0", n, env.Counter.Ops())
	}
	for _, tc := range []struct {
		from, limit int
		want        []string
	}{{1, 2, []string{"tin", "mug"}}, {3, 2, []string{"kettle"}}, {4, 2, nil}, {9, 2, nil}, {-1, 1, []string{"apron"}}} {
		sh, err := w.Shelf(ctx, "kitchen", store.ByPrice, tc.from, tc.limit)
		if err != nil || !slices.Equal(ids(sh), tc.want) || sh.Total != 4 {
			t.Errorf("kitchen by price from %d for %d: %v of %d, %v; want %v of 4", tc.from, tc.limit, ids(sh), sh.Total, err, tc.want)
		}
	}
	// What a caller does with its run leaves the window's list alone.
	sh, _ := w.Shelf(ctx, "kitchen", store.ByName, 0, 1)
	sh.Products[0].Name = "Changed"
	if again, _ := w.Shelf(ctx, "kitchen", store.ByName, 0, 1); again.Products[0].Name != "apron" {
		t.Errorf("the window's list changed under a caller: %q", again.Products[0].Name)
	}

	for in, want := range map[string]store.CatalogueOrder{"": store.ByName, "name": store.ByName, "price": store.ByPrice, "price-desc": store.ByPriceDesc, "newest": store.ByNewest} {
		if got, ok := store.ParseCatalogueOrder(in); !ok || got != want {
			t.Errorf("order %q: %s %v, want %s", in, got, ok, want)
		}
	}
	for _, in := range []string{"Price", "cheapest", "name ", "price-asc"} {
		if _, ok := store.ParseCatalogueOrder(in); ok {
			t.Errorf("order %q was taken", in)
		}
	}
}

// The whole catalogue is read a Query per 1,000 products, not one per page
// a shopper sees.
func TestAllProductsReadsTheCatalogueInBigPages(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	st, ctx := env.Store, ctxT(t)
	for i := range 3 {
		if err := st.PutProduct(ctx, store.Product{ID: "p" + string(rune('a'+i)), Name: "Product " + string(rune('A'+i)), Category: "kitchen", Price: eur(100)}); err != nil {
			t.Fatal(err)
		}
	}
	var all []store.Product
	env.Costs(t, "the whole catalogue", 1, func() {
		var err error
		if all, err = st.AllProducts(ctx); err != nil {
			t.Fatal(err)
		}
	})
	if len(all) != 3 || all[0].ID != "pa" || all[2].ID != "pc" {
		t.Fatalf("all products: %+v", all)
	}
}
