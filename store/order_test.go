package store_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"shop/store"
	"shop/store/storetest"
	"shop/store/storetest/paytest"
)

// The staff's order list walks the months of its range, newest first,
// pages of any size crossing month boundaries, and its cursor belongs to it.
func TestOrdersBetweenAcrossMonths(t *testing.T) {
	clock := storetest.NewClock(time.Now(), 0)
	f := newFixture(t, map[string][2]int{"a": {100, 0}}, 1000, store.WithClock(clock.Now))
	ctx := ctxT(t)
	st := f.env.Store
	day := func(m time.Month, d int) time.Time { return time.Date(2025, m, d, 12, 0, 0, 0, time.UTC) }
	ids := map[string]string{} // order id -> its day
	for i, at := range []time.Time{day(1, 15), day(2, 10), day(2, 25), day(3, 5), day(3, 10), day(3, 20)} {
		clock.Set(at)
		req := request(fmt.Sprintf("k%d", i), "c1", store.CheckoutLine{ProductID: "a", Quantity: 1})
		o, err := paytest.New(t, st).Checkout(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		ids[o.ID] = at.Format("01-02")
	}
	from, to := day(2, 1).Truncate(24*time.Hour), day(3, 31)

	// walk reads every page of size limit; requests[i] is what page i cost.
	walk := func(limit int) (days []string, requests []int) {
		t.Helper()
		cursor := ""
		for range 10 {
			f.env.Counter.Reset()
			p, err := st.OrdersBetween(ctx, from, to, limit, cursor)
			if err != nil {
				t.Fatalf("limit %d after %q: %v", limit, cursor, err)
			}
			requests = append(requests, f.env.Counter.Total())
			for _, o := range p.Items {
				days = append(days, ids[o.ID])
			}
			if cursor = p.Next; cursor == "" {
				return days, requests
			}
		}
		t.Fatalf("limit %d: no end after 10 pages", limit)
		return nil, nil
	}
	want := []string{"03-20", "03-10", "03-05", "02-25", "02-10"}
	n := store.DefaultListShards
	for _, tc := range []struct {
		limit    int
		requests []int
	}{
		// Each month is read in every list shard; a shard that ran out is
		// not read again.
		{2, []int{n, 1 + n, 1}}, // the second page ends March (one shard left) and starts February
		{3, []int{n, n}},        // the first page ends with March: its cursor starts February
		{10, []int{2 * n}},
	} {
		days, requests := walk(tc.limit)
		if !slices.Equal(days, want) {
			t.Errorf("limit %d: orders of %v, want %v", tc.limit, days, want)
		}
		if !slices.Equal(requests, tc.requests) {
			t.Errorf("limit %d: pages cost %v requests, want %v", tc.limit, requests, tc.requests)
		}
	}

	// A cursor of another query, of a range without its month, or made up,
	// is refused before anything is read.
	other, err := st.CustomerOrders(ctx, "c1", 1, "")
	if err != nil || other.Next == "" {
		t.Fatalf("customer orders: %+v, %v", other, err)
	}
	page, err := st.OrdersBetween(ctx, from, to, 2, "")
	if err != nil || page.Next == "" {
		t.Fatalf("first page: %+v, %v", page, err)
	}
	for _, tc := range []struct {
		name, cursor string
		from, to     time.Time
	}{
		{"another query's", other.Next, from, to},
		{"another range's", page.Next, day(1, 1), day(1, 31)},
		{"made up", "bm9wZQ", from, to},
	} {
		f.env.Counter.Reset()
		if _, err := st.OrdersBetween(ctx, tc.from, tc.to, 2, tc.cursor); !errors.Is(err, store.ErrBadCursor) {
			t.Errorf("%s cursor: %v, want ErrBadCursor", tc.name, err)
		}
		if n := f.env.Counter.Total(); n != 0 {
			t.Errorf("%s cursor: %d requests, want none", tc.name, n)
		}
	}
}
