package store_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"shop/store"
	"shop/store/rules"
	"shop/store/storetest"
)

// The shop window answers a page from memory while it is fresh, loads a
// cold key once however many ask at once, and drops what this replica
// changed at once; another replica's change shows when the copy expires.
// stocktaker is the staff member the tests' stock adjustments are made by.
var stocktaker = store.Customer{ID: "staff-1", Name: "Stina Lager", Email: "stina@fikafield.example", Role: store.RoleStaff}

func TestWindowCachesLoadsOnceAndForgetsWhatChanged(t *testing.T) {
	t.Parallel()
	clock := storetest.NewClock(time.Date(2031, 3, 1, 10, 0, 0, 0, time.UTC), 0)
	env := storetest.New(t, store.WithClock(clock.Now))
	st, ctx := env.Store, ctxT(t)
	p := store.Product{ID: "beans", Name: "Beans", Category: "coffee", Price: eur(900)}
	w := store.Warehouse{ID: "gbg", Name: "Göteborg"}
	if err := st.PutProduct(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := st.PutWarehouse(ctx, w); err != nil {
		t.Fatal(err)
	}
	if err := st.PutStockLevel(ctx, store.StockLevel{ProductID: p.ID, WarehouseID: w.ID, ProductName: p.Name, WarehouseName: w.Name, Quantity: 5}); err != nil {
		t.Fatal(err)
	}
	win := st.Window()
	stockOf := func(win *store.Window) int {
		t.Helper()
		_, levels, err := win.ProductWithStock(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		return store.TotalStock(levels)
	}

	// Fifty views of a cold product page: one read.
	env.Counter.Reset()
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() { defer wg.Done(); stockOf(win) }()
	}
	wg.Wait()
	if n := env.Counter.Total(); n != 1 {
		t.Fatalf("50 parallel cold views made %d requests %v, want 1", n, env.Counter.Ops())
	}
	env.Costs(t, "a warm product page", 0, func() { stockOf(win) })

	// A stock adjustment here shows at once.
	if _, err := st.AdjustStock(ctx, p, w, -2, "broken bag", stocktaker); err != nil {
		t.Fatal(err)
	}
	if got := stockOf(win); got != 3 {
		t.Fatalf("after an adjustment here the window shows %d, want 3", got)
	}
	// One on another replica shows once the second has passed.
	replica := store.New(env.Client, env.Table, store.WithClock(clock.Now))
	if _, err := replica.AdjustStock(ctx, p, w, -1, "sample", stocktaker); err != nil {
		t.Fatal(err)
	}
	if got := stockOf(win); got != 3 {
		t.Fatalf("within the second the window shows %d, want the 3 it holds", got)
	}
	clock.Set(clock.Now().Add(1100 * time.Millisecond))
	if got := stockOf(win); got != 2 {
		t.Fatalf("after the second the window shows %d, want 2", got)
	}

	// Lists: kept a minute, dropped when a product changes here.
	list := func() store.Shelf {
		t.Helper()
		sh, err := win.Shelf(ctx, "coffee", store.ByPrice, 0, 12)
		if err != nil {
			t.Fatal(err)
		}
		return sh
	}
	list()
	env.Costs(t, "a warm catalogue list", 0, func() { list() })
	env.Costs(t, "the whole catalogue in another order, warm", 0, func() {
		if _, err := win.Shelf(ctx, "", store.ByNewest, 0, 12); err != nil {
			t.Fatal(err)
		}
	})
	clock.Set(clock.Now().Add(30 * time.Second))
	env.Costs(t, "a catalogue list half a minute on", 0, func() { list() })
	p.Name = "Dark Beans"
	if err := st.UpdateProduct(ctx, p); err != nil {
		t.Fatal(err)
	}
	var sh store.Shelf
	env.Costs(t, "the catalogue after a product edit here", 1, func() { sh = list() })
	if len(sh.Products) != 1 || sh.Products[0].Name != "Dark Beans" || sh.Total != 1 {
		t.Fatalf("catalogue after the edit: %+v", sh)
	}
	env.Costs(t, "categories, cold", 1, func() {
		if _, err := win.Categories(ctx); err != nil {
			t.Fatal(err)
		}
	})
	env.Costs(t, "categories, warm", 0, func() {
		if _, err := win.Categories(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

// /drops through the window: kept a second, so a drop's opening and closing
// show within it; a drop made or cancelled here shows at once.
func TestWindowKeepsDropsASecond(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2031, 3, 1, 10, 0, 0, 0, time.UTC)
	clock := storetest.NewClock(t0, 0)
	env := storetest.New(t, store.WithClock(clock.Now))
	st, ctx := env.Store, ctxT(t)
	win := st.Window()
	list := func() []store.Drop {
		t.Helper()
		pg, err := win.PublishedDrops(ctx, 12, "")
		if err != nil {
			t.Fatal(err)
		}
		return pg.Items
	}
	first := newDrop(t, st, 3, t0, t0.Add(1500*time.Millisecond))
	env.Costs(t, "/drops, cold", 1, func() { list() })
	env.Costs(t, "/drops, warm", 0, func() { list() })
	second := newDrop(t, st, 3, t0, t0.Add(time.Hour))
	var got []store.Drop
	env.Costs(t, "/drops after a drop made here", 1, func() { got = list() })
	if len(got) != 2 {
		t.Fatalf("after a drop made here: %v", ids(got))
	}
	// Closing at its deadline shows once the second has passed.
	clock.Set(t0.Add(1600 * time.Millisecond))
	if got := list(); len(got) != 1 || got[0].ID != second.ID {
		t.Fatalf("after %s closed: %v", first.ID, ids(got))
	}
	if err := st.SetDropStatus(ctx, second.ID, store.DropCancelled); err != nil {
		t.Fatal(err)
	}
	if got := list(); len(got) != 0 {
		t.Fatalf("after cancelling %s here: %v", second.ID, ids(got))
	}
}

// The subscribe form's preview needs the product's scheduled price: it is
// in the product's collection, so the window's read of the page has it and
// asking costs nothing more.
func TestWindowKnowsAProductsPriceChangeFromItsPageRead(t *testing.T) {
	t.Parallel()
	clock := storetest.NewClock(time.Date(2031, 3, 1, 10, 0, 0, 0, time.UTC), 0)
	env := storetest.New(t, store.WithClock(clock.Now))
	st, ctx := env.Store, ctxT(t)
	tea := store.Product{ID: "tea", Name: "Tea", Category: "coffee", Price: eur(900), Subscribable: true, MonthlyPrice: eur(1290)}
	plain := store.Product{ID: "mug", Name: "Mug", Category: "kitchen", Price: eur(900)}
	for _, p := range []store.Product{tea, plain} {
		if err := st.PutProduct(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.SchedulePriceChange(ctx, tea, eur(1390), rules.DateOf(clock.Now(), time.UTC).AddDate(0, 0, 40), "staff"); err != nil {
		t.Fatal(err)
	}
	win := st.Window()
	env.Costs(t, "a product page with a price change, cold", 1, func() {
		if _, _, err := win.ProductWithStock(ctx, tea.ID); err != nil {
			t.Fatal(err)
		}
	})
	env.Costs(t, "its price change", 0, func() {
		c, err := win.ProductPriceChange(ctx, tea.ID)
		if err != nil || c.New != eur(1390) || store.FormatDate(c.EffectiveOn) != "2031-04-10" {
			t.Fatalf("price change %+v, %v", c, err)
		}
	})
	env.Costs(t, "a product without one", 1, func() {
		if _, err := win.ProductPriceChange(ctx, plain.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("no price change: %v, want ErrNotFound", err)
		}
	})
	// The product's page asks for all three at once, from the same entry.
	env.Costs(t, "a product on sale, its stock and price change", 0, func() {
		p, _, c, err := win.ProductOnSale(ctx, tea.ID)
		if err != nil || p.ID != tea.ID || c == nil || c.New != eur(1390) {
			t.Fatalf("on sale: %+v, %+v, %v", p, c, err)
		}
		c.New = eur(1) // the caller's copy
		if again, _ := win.ProductPriceChange(ctx, tea.ID); again.New != eur(1390) {
			t.Fatalf("a caller's change reached the window: %+v", again)
		}
		if _, _, c, err := win.ProductOnSale(ctx, plain.ID); err != nil || c != nil {
			t.Fatalf("a product without a change: %+v, %v", c, err)
		}
	})
	if _, _, _, err := win.ProductOnSale(ctx, "none"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("no such product: %v, want ErrNotFound", err)
	}
}

// A note under a context tells when the first of the entries read under it
// expires (a page made from them is as fresh as they are that long), and
// Changes counts what this replica changed in the window.
func TestWindowNoteTellsWhenWhatWasReadExpires(t *testing.T) {
	t.Parallel()
	start := time.Date(2031, 3, 1, 10, 0, 0, 0, time.UTC)
	clock := storetest.NewClock(start, 0)
	env := storetest.New(t, store.WithClock(clock.Now))
	st, ctx := env.Store, ctxT(t)
	p := store.Product{ID: "beans", Name: "Beans", Category: "coffee", Price: eur(900)}
	if err := st.PutProduct(ctx, p); err != nil {
		t.Fatal(err)
	}
	win := st.Window()

	noted, note := win.Noting(ctx)
	if !note.Until().IsZero() {
		t.Fatalf("nothing read yet, but the note says %v", note.Until())
	}
	if _, err := win.Categories(noted); err != nil { // kept a minute
		t.Fatal(err)
	}
	if got := note.Until(); !got.Equal(start.Add(time.Minute)) {
		t.Fatalf("after the categories: %v, want a minute on", got)
	}
	clock.Set(start.Add(10 * time.Second))
	if _, _, err := win.ProductWithStock(noted, p.ID); err != nil { // kept a second
		t.Fatal(err)
	}
	if got := note.Until(); !got.Equal(start.Add(11 * time.Second)) {
		t.Fatalf("after the product: %v, want the product's second", got)
	}
	// A warm read notes its entry's own expiry, not a new one.
	clock.Set(start.Add(10*time.Second + 500*time.Millisecond))
	again, warm := win.Noting(ctx)
	if _, _, err := win.ProductWithStock(again, p.ID); err != nil {
		t.Fatal(err)
	}
	if got := warm.Until(); !got.Equal(start.Add(11 * time.Second)) {
		t.Fatalf("a warm read: %v, want the entry's expiry", got)
	}

	before := win.Changes()
	if _, err := st.CreateProduct(ctx, store.Product{ID: "tea", Name: "Tea", Category: "coffee", Price: eur(500)}); err != nil {
		t.Fatal(err)
	}
	if win.Changes() == before {
		t.Fatal("a product made here, and the window's changes did not move")
	}
}

// A copy made from the window is answered while the entries its note saw
// are fresh, never past keep, and not after a change here; a copy made
// from nothing the window answered is not kept.
func TestWindowCopiesAreAsFreshAsTheWindow(t *testing.T) {
	t.Parallel()
	start := time.Date(2031, 3, 1, 10, 0, 0, 0, time.UTC)
	clock := storetest.NewClock(start, 0)
	env := storetest.New(t, store.WithClock(clock.Now))
	st, ctx := env.Store, ctxT(t)
	if err := st.PutProduct(ctx, store.Product{ID: "beans", Name: "Beans", Category: "coffee", Price: eur(900)}); err != nil {
		t.Fatal(err)
	}
	win := st.Window()
	copies := store.NewWindowCopies[string](win, 30*time.Second, 10)
	made := func(key string) {
		t.Helper()
		noted, note := win.Noting(ctx)
		if _, err := win.Categories(noted); err != nil { // kept a minute
			t.Fatal(err)
		}
		copies.Put(key, "page", note)
	}
	want := func(key string, kept bool, when string) {
		t.Helper()
		if _, ok := copies.Get(key); ok != kept {
			t.Fatalf("%s: kept %v, want %v", when, ok, kept)
		}
	}

	made("a")
	want("a", true, "at once")
	clock.Set(start.Add(29 * time.Second))
	want("a", true, "within keep")
	clock.Set(start.Add(30 * time.Second))
	want("a", false, "at keep, though the categories stay a minute")

	made("b")
	if _, err := st.CreateProduct(ctx, store.Product{ID: "tea", Name: "Tea", Category: "coffee", Price: eur(500)}); err != nil {
		t.Fatal(err)
	}
	want("b", false, "after a product made here")

	_, note := win.Noting(ctx)
	copies.Put("c", "page", note)
	want("c", false, "made from nothing the window answered")
}
