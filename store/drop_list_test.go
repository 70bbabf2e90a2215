package store_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"shop/store"
	"shop/store/storetest"
)

func ids(drops []store.Drop) []string {
	var out []string
	for _, d := range drops {
		out = append(out, d.ID)
	}
	return out
}

// More than a page of drops that have closed does not push the one still
// open off the first page of /drops: closed drops are outside the key
// condition, not filtered out of a page the limit already cut.
func TestPublishedDropsShowTheOpenDropBehindPastOnes(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	clock := storetest.NewClock(t0, 0)
	env := storetest.New(t, store.WithClock(clock.Now))
	ctx := ctxT(t)
	const pageSize = 5
	for range 2*pageSize + 1 { // opened first, closed within the hour
		newDrop(t, env.Store, 3, t0, t0.Add(time.Hour))
	}
	open := newDrop(t, env.Store, 3, t0.Add(90*time.Minute), t0.Add(7*24*time.Hour))
	clock.Set(t0.Add(2 * time.Hour))
	var page store.Page[store.Drop]
	var err error
	env.Once(t, "the first page of /drops", func() { page, err = env.Store.PublishedDrops(ctx, pageSize, "") })
	if err != nil || len(page.Items) != 1 || page.Items[0].ID != open.ID || page.Next != "" {
		t.Fatalf("first page: %v (next %q), %v; want only the open drop %s", ids(page.Items), page.Next, err, open.ID)
	}
}

// /drops lists open and coming drops by closing time, soonest first. A
// "show more" link whose last drop closed since is the top of the list
// (the next drop still open), not a refused cursor; a cursor of another
// list is refused.
func TestPublishedDropsByClosingTime(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	clock := storetest.NewClock(t0, 0)
	env := storetest.New(t, store.WithClock(clock.Now))
	ctx := ctxT(t)
	late := newDrop(t, env.Store, 3, t0, t0.Add(3*time.Hour))
	coming := newDrop(t, env.Store, 3, t0.Add(time.Hour), t0.Add(2*time.Hour))
	soon := newDrop(t, env.Store, 3, t0, t0.Add(time.Hour))
	all, err := env.Store.PublishedDrops(ctx, 10, "")
	if got, want := fmt.Sprint(ids(all.Items)), fmt.Sprint([]string{soon.ID, coming.ID, late.ID}); err != nil || got != want {
		t.Fatalf("drops %s, %v; want closing soonest first %s", got, err, want)
	}
	first, err := env.Store.PublishedDrops(ctx, 1, "")
	if err != nil || len(first.Items) != 1 || first.Items[0].ID != soon.ID || first.Next == "" {
		t.Fatalf("first page: %v next %q, %v", ids(first.Items), first.Next, err)
	}
	clock.Set(t0.Add(90 * time.Minute)) // soon has closed; coming is open
	next, err := env.Store.PublishedDrops(ctx, 1, first.Next)
	if err != nil || len(next.Items) != 1 || next.Items[0].ID != coming.ID {
		t.Fatalf("the page after a closed drop: %v, %v; want %s", ids(next.Items), err, coming.ID)
	}
	other, err := env.Store.AllDrops(ctx, 1, "")
	if err != nil || other.Next == "" {
		t.Fatalf("staff list: %v", err)
	}
	if _, err := env.Store.PublishedDrops(ctx, 1, other.Next); !errors.Is(err, store.ErrBadCursor) {
		t.Fatalf("a cursor of the staff list: %v, want ErrBadCursor", err)
	}
	// Cancelled or closed early, a drop leaves /drops at once.
	if err := env.Store.SetDropStatus(ctx, late.ID, store.DropCancelled); err != nil {
		t.Fatal(err)
	}
	left, err := env.Store.PublishedDrops(ctx, 10, "")
	if got := fmt.Sprint(ids(left.Items)); err != nil || got != fmt.Sprint([]string{coming.ID}) {
		t.Fatalf("after cancelling %s: %s, %v", late.ID, got, err)
	}
}

// The reconcile step's list reads only product drops past their deadline
// and still open: one Query, however many drops were closed before.
func TestEndedProductDropsReadsOnlyDropsToClose(t *testing.T) {
	t.Parallel()
	f := newProductDropFixture(t, 50, 50)
	st, ctx := f.env.Store, ctxT(t)
	t0 := f.clock.Now()
	var done []store.Drop
	for range 3 {
		d, err := f.teaDrop(t, 2)
		if err != nil {
			t.Fatal(err)
		}
		done = append(done, d)
	}
	ending, err := f.teaDrop(t, 2)
	if err != nil {
		t.Fatal(err)
	}
	later, err := st.CreateDrop(ctx, store.NewDrop{Title: "Later tea", Quantity: 2, Opens: t0, Closes: t0.Add(72 * time.Hour),
		ProductID: "tea", Price: eur(1500), RedeemWithin: store.DefaultRedeemWithin})
	if err != nil {
		t.Fatal(err)
	}
	newDrop(t, st, 3, t0, t0.Add(time.Hour)) // no product: nothing to give back
	for i, d := range done {
		to := store.DropClosed
		if i == 0 {
			to = store.DropCancelled
		}
		if err := st.SetDropStatus(ctx, d.ID, to); err != nil {
			t.Fatal(err)
		}
	}
	f.clock.Set(t0.Add(48 * time.Hour))
	var ended []store.Drop
	f.env.Once(t, "ended product drops", func() { ended, err = st.EndedProductDrops(ctx) })
	if err != nil || len(ended) != 1 || ended[0].ID != ending.ID || ended[0].ProductID != "tea" || !ended[0].Closes.Equal(ending.Closes) {
		t.Fatalf("ended: %+v, %v; want %s alone (not %s, still running)", ended, err, ending.ID, later.ID)
	}
	if err := st.SetDropStatus(ctx, ending.ID, store.DropClosed); err != nil {
		t.Fatal(err)
	}
	if ended, err := st.EndedProductDrops(ctx); err != nil || len(ended) != 0 {
		t.Fatalf("after closing it: %+v, %v", ended, err)
	}
}
