package store_test

import (
	"context"
	"testing"

	"shop/store"
	"shop/store/storetest"
)

func TestProductInALanguage(t *testing.T) {
	p := store.Product{Name: "Hand Grinder", Description: "Steel burrs.", Texts: map[string]store.ProductText{
		"ko": {Name: "핸드 그라인더", Description: "강철 버."},
		"id": {Name: "Penggiling Tangan"}, // no description: the English one
	}}
	for _, tc := range []struct {
		lang, name, description string
	}{
		{"en", "Hand Grinder", "Steel burrs."},
		{"ko", "핸드 그라인더", "강철 버."},
		{"id", "Penggiling Tangan", "Steel burrs."},
		{"sv", "Hand Grinder", "Steel burrs."},
		{"", "Hand Grinder", "Steel burrs."},
	} {
		got := p.In(tc.lang)
		if got.Name != tc.name || got.Description != tc.description {
			t.Errorf("In(%q) = %q, %q; want %q, %q", tc.lang, got.Name, got.Description, tc.name, tc.description)
		}
	}
	if (store.Product{Name: "Mug"}).In("ko").Name != "Mug" {
		t.Error("a product without texts should read in English")
	}
}

// Texts in the other languages are saved with the product, read back by
// every read of it (the catalogue's Query too), and cleared by an edit
// that empties them.
func TestProductTextsAreSaved(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	st, ctx := env.Store, context.Background()
	p, err := st.CreateProduct(ctx, store.Product{Name: "Stoneware Mug", Category: "kitchen", Price: store.Money{Amount: 1890, Currency: "EUR"},
		Texts: map[string]store.ProductText{"ko": {Name: "석기 머그"}, "id": {}}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.Product(ctx, p.ID)
	if err != nil || got.TextIn("ko").Name != "석기 머그" || len(got.Texts) != 1 {
		t.Fatalf("read back: %+v (%v), want the Korean name alone", got.Texts, err)
	}
	got.Texts = map[string]store.ProductText{"ko": {Name: "석기 머그", Description: "회가나스에서 손으로 유약을 바른 300 ml."}, "id": {Name: "Mug Gerabah"}}
	if err := st.UpdateProduct(ctx, got); err != nil {
		t.Fatal(err)
	}
	after, err := st.Product(ctx, p.ID)
	if err != nil || after.In("id").Name != "Mug Gerabah" || after.In("ko").Description == "" {
		t.Fatalf("after the edit: %+v (%v)", after.Texts, err)
	}
	pg, err := st.Catalogue(ctx, "kitchen", 10, "")
	if err != nil || len(pg.Items) != 1 || pg.Items[0].In("id").Name != "Mug Gerabah" {
		t.Fatalf("the catalogue brings %+v (%v), want the texts", pg.Items, err)
	}
	// Clearing every text removes the attribute; the product reads in English.
	after.Texts = nil
	if err := st.UpdateProduct(ctx, after); err != nil {
		t.Fatal(err)
	}
	if cleared, err := st.Product(ctx, p.ID); err != nil || cleared.In("ko").Name != "Stoneware Mug" {
		t.Fatalf("after clearing: %+v (%v)", cleared, err)
	}
}

// A line keeps the product's names as they were: read in a language with
// a name, it is that name; else the English. A subscription's line counts
// its units in front of either.
func TestLineNamesInALanguage(t *testing.T) {
	names := store.ProductNames{"ko": "핸드 그라인더", "id": ""}
	for _, tc := range []struct {
		lang, want string
		units      int
	}{
		{"ko", "핸드 그라인더", 1},
		{"id", "Hand Grinder", 1}, // an empty name falls back
		{"en", "Hand Grinder", 1},
		{"", "Hand Grinder", 1},
		{"ko", "2 × 핸드 그라인더", 2},
		{"en", "2 × Hand Grinder", 2},
	} {
		item := store.OrderItem{ProductName: "Hand Grinder", Names: names}
		if tc.units == 1 {
			if got := item.NameIn(tc.lang); got != tc.want {
				t.Errorf("OrderItem.NameIn(%q) = %q, want %q", tc.lang, got, tc.want)
			}
			if got := (store.CartLine{ProductName: "Hand Grinder", Names: names}).NameIn(tc.lang); got != tc.want {
				t.Errorf("CartLine.NameIn(%q) = %q, want %q", tc.lang, got, tc.want)
			}
		}
		sub := store.Subscription{ProductName: "Hand Grinder", Names: names, Quantity: tc.units}
		if got := sub.LineNameIn(tc.lang); got != tc.want {
			t.Errorf("%d units: LineNameIn(%q) = %q, want %q", tc.units, tc.lang, got, tc.want)
		}
	}
	if got := (store.OrderItem{ProductName: "Mug"}).NameIn("ko"); got != "Mug" {
		t.Errorf("a line without names reads %q in Korean", got)
	}
}
