package store_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"shop/store"
	"shop/store/storetest"
)

// twoWarehouseOrder is an order of 3 of "a", which only w1 stocks, and 3 of
// "b", which only w2 does, shipped and delivered.
func twoWarehouseOrder(t *testing.T) (shopFixture, store.OrderDetails) {
	t.Helper()
	clock := storetest.NewClock(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC), 0)
	f := newFixture(t, map[string][2]int{"a": {20, -1}, "b": {-1, 20}}, 1200, store.WithClock(clock.Now))
	d := deliveredOrderOf(t, f, "k1", store.CheckoutLine{ProductID: "a", Quantity: 3}, store.CheckoutLine{ProductID: "b", Quantity: 3})
	if len(d.Shipments) != 2 {
		t.Fatalf("%d shipments, want one from each warehouse", len(d.Shipments))
	}
	return f, d
}

func askAB(a, b int) store.ReturnRequest {
	return store.ReturnRequest{Lines: []store.ReturnAsk{{ProductID: "a", Quantity: a}, {ProductID: "b", Quantity: b}},
		Reason: "Changed my mind", Mail: mailFor}
}

// Units that left from two warehouses go back as two returns, one to each
// warehouse with its units, numbered one after the other, in one mail;
// staff find each by its number.
func TestReturnSplitByWarehouse(t *testing.T) {
	t.Parallel()
	f, d := twoWarehouseOrder(t)
	st, ctx := f.env.Store, ctxT(t)
	f.env.Counter.Reset()
	rs, err := st.RequestReturn(ctx, d.Order.ID, "c", askAB(1, 2))
	if err != nil {
		t.Fatal(err)
	}
	// The order, the account (this order keeps no buyer), each warehouse,
	// the write.
	if ops := f.env.Counter.Ops(); ops["Query"] != 1 || ops["GetItem"] != 3 || ops["TransactWriteItems"] != 1 {
		t.Errorf("asking took %v, want a Query, three GetItems and a TransactWriteItems", ops)
	}
	if len(rs) != 2 {
		t.Fatalf("%d returns, want one for each warehouse", len(rs))
	}
	label := d.Order.Label()
	for i, want := range []struct {
		number, w, product string
		units              int
	}{{label + "-R1", "w2", "b", 2}, {label + "-R2", "w1", "a", 1}} {
		r := rs[i]
		if r.Number != want.number || r.SendTo.ID != want.w || r.SendTo.Address.City != want.w || r.Part != i+1 || r.Parts != 2 ||
			len(r.Lines) != 1 || r.Lines[0].ProductID != want.product || r.Lines[0].Quantity != want.units {
			t.Errorf("return %d: %+v, want %s to %s with %d of %s", i+1, r, want.number, want.w, want.units, want.product)
		}
		got, err := st.ReturnByNumber(ctx, want.number)
		if err != nil || got.ID != r.ID || got.Part != i+1 || got.Parts != 2 || got.SendTo.ID != want.w {
			t.Errorf("by number %s: %+v, %v", want.number, got, err)
		}
	}
	m, err := st.Mail(ctx, store.ReturnRequestedMailID(rs[0].ID))
	if err != nil || m.Subject != "Return "+label+"-R1 "+label+"-R2" || m.Text != "Send it to Warehouse w2 Warehouse w1" {
		t.Fatalf("one mail of both: %+v, %v", m, err)
	}
	if _, err := st.Mail(ctx, store.ReturnRequestedMailID(rs[1].ID)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a second mail: %v", err)
	}
	// What is left counts both, and the next ask numbers on.
	d, err = st.OrderDetails(ctx, d.Order.ID)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := store.ReturnableOf(d, d.Items[0]), store.ReturnableOf(d, d.Items[1]); a+b != 3 {
		t.Errorf("left %d and %d, want 3 in all", a, b)
	}
	next, err := st.RequestReturn(ctx, d.Order.ID, "c", askAB(0, 1))
	if err != nil || len(next) != 1 || next[0].Number != label+"-R3" || next[0].SendTo.ID != "w2" || next[0].Parts != 0 {
		t.Fatalf("next: %+v, %v", next, err)
	}
	if _, err := st.RequestReturn(ctx, d.Order.ID, "c", askAB(3, 0)); !errors.Is(err, store.ErrReturnTooMany) {
		t.Fatalf("a fourth of a: %v", err)
	}
	if n := f.env.CountEntities(t, "return"); n != 3 {
		t.Fatalf("%d returns written, want 3 (a refused ask writes none)", n)
	}
}

// Asks at once, each split between two warehouses: no line is asked back
// more than was bought, every number is given once and they run from R1
// without a gap, each ask's returns come together with one mail.
//
// Not parallel: beside other tests' writes, DynamoDB Local times out the
// lock waits of a race like this one.
func TestReturnSplitRace(t *testing.T) {
	f, d := twoWarehouseOrder(t)
	st, ctx := f.env.Store, ctxT(t)
	const askers = 8
	var wg sync.WaitGroup
	got := make([][]store.Return, askers)
	errs := make([]error, askers)
	start := make(chan struct{})
	for i := range askers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			got[i], errs[i] = st.RequestReturn(ctx, d.Order.ID, "c", askAB(1, 1))
		}()
	}
	close(start)
	wg.Wait()
	numbers, asks := map[string]bool{}, 0
	for i, err := range errs {
		switch {
		case err == nil:
			asks++
			if len(got[i]) != 2 || got[i][0].SendTo.ID == got[i][1].SendTo.ID {
				t.Errorf("ask %d: %+v, want a return to each warehouse", i, got[i])
			}
			for _, r := range got[i] {
				if numbers[r.Number] {
					t.Errorf("number %s given twice", r.Number)
				}
				numbers[r.Number] = true
			}
			if _, err := st.Mail(ctx, store.ReturnRequestedMailID(got[i][0].ID)); err != nil {
				t.Errorf("ask %d's mail: %v", i, err)
			}
		case !errors.Is(err, store.ErrConflict) && !errors.Is(err, store.ErrReturnTooMany):
			t.Fatalf("unexpected: %v", err)
		}
	}
	if asks == 0 || asks > 3 {
		t.Fatalf("%d asks of one of each went through, of 3 bought", asks)
	}
	d, err := st.OrderDetails(ctx, d.Order.ID)
	if err != nil {
		t.Fatal(err)
	}
	units := map[string]int{}
	for i, r := range d.Returns {
		if want := store.ReturnNumber(d.Order.Label(), i+1); r.Number != want || !numbers[want] {
			t.Errorf("return %d is %s, want %s", i+1, r.Number, want)
		}
		for _, l := range r.Lines {
			units[l.ProductID+" to "+r.SendTo.ID] += l.Quantity
		}
	}
	if len(d.Returns) != len(numbers) || units["a to w1"] != asks || units["b to w2"] != asks || len(units) != 2 {
		t.Fatalf("%d returns written, %d answered; units %v for %d asks", len(d.Returns), len(numbers), units, asks)
	}
	for _, it := range d.Items {
		if left := store.ReturnableOf(d, it); left != 3-asks {
			t.Errorf("%s: %d left to return, want %d", it.ProductID, left, 3-asks)
		}
	}
}
