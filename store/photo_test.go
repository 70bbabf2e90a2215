package store_test

import (
	"context"
	"errors"
	"testing"

	"shop/store"
	"shop/store/storetest"
)

// A product's photo rides on its item: one UpdateItem records it, the
// catalogue's Query brings it, and an edit of the product keeps it.
func TestProductPhotoRidesOnTheProduct(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	st, ctx := env.Store, context.Background()
	p, err := st.CreateProduct(ctx, store.Product{Name: "Pour-over Kettle", Category: "coffee", Price: store.Money{Amount: 4900, Currency: "EUR"}})
	if err != nil {
		t.Fatal(err)
	}
	photo := store.Photo{Key: "0123456789abcdef0123456789abcdef", Format: "jpeg", Width: 1500, Height: 1000}
	env.Once(t, "recording a photo", func() {
		if err := st.SetProductPhoto(ctx, p.ID, photo); err != nil {
			t.Fatal(err)
		}
	})
	if err := st.SetProductPhoto(ctx, "no-such-product", photo); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a photo for no product: %v, want ErrNotFound", err)
	}
	got, err := st.Product(ctx, p.ID)
	if err != nil || got.Photo != photo {
		t.Fatalf("the product's photo is %+v (%v), want %+v", got.Photo, err, photo)
	}
	pg, err := st.Catalogue(ctx, "coffee", 10, "")
	if err != nil || len(pg.Items) != 1 || pg.Items[0].Photo != photo {
		t.Fatalf("the catalogue brings %+v (%v), want the photo", pg.Items, err)
	}
	// An edit saves the product over what it read, photo included: the
	// photo it did not touch stays.
	got.Name = "Pour-over Kettle, 1 l"
	got.Photo = store.Photo{}
	if err := st.UpdateProduct(ctx, got); err != nil {
		t.Fatal(err)
	}
	if after, err := st.Product(ctx, p.ID); err != nil || after.Photo != photo || after.Name != got.Name {
		t.Fatalf("after an edit: %+v (%v), want the new name and the photo", after, err)
	}
	if ws := photo.Widths(); len(ws) != 3 || ws[2] != 1280 {
		t.Fatalf("widths of a 1500-wide photo: %v", ws)
	}
	if ws := (store.Photo{Width: 200}).Widths(); len(ws) != 1 || ws[0] != 200 {
		t.Fatalf("widths of a 200-wide photo: %v, want [200]", ws)
	}
}
