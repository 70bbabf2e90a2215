package store_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"shop/store"
	"shop/store/storetest"
)

// A drop's words and picture are kept, changed after, and never undo its
// count; too long a description is refused and nothing changes.
func TestDropDescriptionAndPhoto(t *testing.T) {
	t.Parallel()
	clock := storetest.NewClock(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC), time.Millisecond)
	env := storetest.New(t, store.WithClock(clock.Now))
	ctx := ctxT(t)
	now := clock.Now()
	d, err := env.Store.CreateDrop(ctx, store.NewDrop{Title: "Tasting evening", Description: "  Two seats at the roastery's tasting, 12 June.  ",
		Quantity: 3, Opens: now, Closes: now.Add(time.Hour), Published: true})
	if err != nil {
		t.Fatal(err)
	}
	if d.Description != "Two seats at the roastery's tasting, 12 June." {
		t.Fatalf("description %q", d.Description)
	}
	if _, err := env.Store.Claim(ctx, store.ClaimRequest{DropID: d.ID, Client: "c1", DropTitle: d.Title}, false); err != nil {
		t.Fatal(err)
	}
	photo := store.Photo{Key: "ph1", Format: "jpeg", Width: 800, Height: 600}
	if err := env.Store.SetDropPhoto(ctx, d.ID, photo); err != nil {
		t.Fatal(err)
	}
	if err := env.Store.SetDropDescription(ctx, d.ID, "Seats for two."); err != nil {
		t.Fatal(err)
	}
	var de *store.DropError
	if err := env.Store.SetDropDescription(ctx, d.ID, strings.Repeat("é", store.MaxDropDescription+1)); !errors.As(err, &de) || de.Field != "description" {
		t.Fatalf("a long description: %v", err)
	}
	got, err := env.Store.DropConsistent(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Description != "Seats for two." || got.Photo != photo || got.Claimed != 1 {
		t.Fatalf("drop %+v", got)
	}
	if err := env.Store.SetDropDescription(ctx, d.ID, " "); err != nil {
		t.Fatal(err)
	}
	if got, _ := env.Store.DropConsistent(ctx, d.ID); got.Description != "" {
		t.Fatalf("description after clearing: %q", got.Description)
	}
	if err := env.Store.SetDropPhoto(ctx, "nosuchdrop", photo); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("no such drop: %v", err)
	}
	if _, err := env.Store.CreateDrop(ctx, store.NewDrop{Title: "Long", Description: strings.Repeat("x", store.MaxDropDescription+1),
		Quantity: 1, Opens: now, Closes: now.Add(time.Hour)}); !errors.As(err, &de) || de.Field != "description" {
		t.Fatalf("a new drop with a long description: %v", err)
	}
}
