package store_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"shop/store"
	"shop/store/storetest"
	"shop/store/storetest/paytest"
)

// deliveredOrder places an order of qty units of product "a" for customer
// "c", ships it and marks it delivered at the clock's time.
func deliveredOrder(t *testing.T, f shopFixture, key string, qty int) store.OrderDetails {
	t.Helper()
	return deliveredOrderOf(t, f, key, store.CheckoutLine{ProductID: "a", Quantity: qty})
}

// deliveredOrderOf places an order of lines for customer "c", ships it
// (a shipment from each warehouse it was allocated to) and marks it
// delivered.
func deliveredOrderOf(t *testing.T, f shopFixture, key string, lines ...store.CheckoutLine) store.OrderDetails {
	t.Helper()
	ctx, st := ctxT(t), f.env.Store
	req := request(key, "c", lines...)
	o, err := paytest.New(t, st).Checkout(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	shs, err := st.CreateShipments(ctx, o.ID, "Standard")
	if err != nil {
		t.Fatal(err)
	}
	for _, sh := range shs {
		if _, err := st.ChangeShipment(ctx, o.ID, sh.ID, store.ShipmentStep{To: store.ShipmentShipped, Carrier: "ups", Tracking: "1Z999AA10123456784", Version: 1}, sam); err != nil {
			t.Fatal(err)
		}
		if _, err := st.ChangeShipment(ctx, o.ID, sh.ID, store.ShipmentStep{To: store.ShipmentDelivered, Version: 2}, sam); err != nil {
			t.Fatal(err)
		}
	}
	d, err := st.OrderDetails(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// one is the return of an ask whose units all left from one warehouse.
func one(t *testing.T) func([]store.Return, error) (store.Return, error) {
	return func(rs []store.Return, err error) (store.Return, error) {
		t.Helper()
		if err == nil && len(rs) != 1 {
			t.Fatalf("%d returns of units from one warehouse, want 1", len(rs))
		}
		if err != nil {
			return store.Return{}, err
		}
		return rs[0], nil
	}
}

func askA(n int) store.ReturnRequest {
	return store.ReturnRequest{Lines: []store.ReturnAsk{{ProductID: "a", Quantity: n}}, Reason: "Changed my mind"}
}

// A return is asked within the window, received with its mail, inspected
// and shown in the order's collection and its status list at each step;
// the window closes on its day, a placed order is not returnable, and bad
// asks write nothing.
func TestReturnLifecycle(t *testing.T) {
	t.Parallel()
	clock := storetest.NewClock(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC), 0)
	f := newFixture(t, map[string][2]int{"a": {20, -1}}, 1200, store.WithClock(clock.Now), store.WithListShards(2), store.WithReturnDays(14))
	st, ctx := f.env.Store, ctxT(t)

	// Not shipped yet: nothing to return.
	req := request("placed", "c", store.CheckoutLine{ProductID: "a", Quantity: 1})
	placed, err := paytest.New(t, st).Checkout(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.RequestReturn(ctx, placed.ID, "c", askA(1)); !errors.Is(err, store.ErrNotReturnable) {
		t.Fatalf("placed order: %v", err)
	}

	d := deliveredOrder(t, f, "k1", 3)
	id := d.Order.ID
	if got := st.ReturnClosesAt(d); !got.Equal(clock.Now().AddDate(0, 0, 14)) {
		t.Fatalf("window closes %v", got)
	}
	for name, ask := range map[string]store.ReturnRequest{
		"no reason":    {Lines: askA(1).Lines},
		"odd reason":   {Lines: askA(1).Lines, Reason: "Because"},
		"nothing":      {Reason: "Other"},
		"zero units":   askA(0),
		"negative":     askA(-1),
		"other line":   {Lines: []store.ReturnAsk{{ProductID: "zz", Quantity: 1}}, Reason: "Other"},
		"line twice":   {Lines: []store.ReturnAsk{{ProductID: "a", Quantity: 1}, {ProductID: "a", Quantity: 1}}, Reason: "Other"},
		"over the top": askA(4),
	} {
		if _, err := st.RequestReturn(ctx, id, "c", ask); err == nil {
			t.Fatalf("%s: accepted", name)
		}
	}
	if _, err := st.RequestReturn(ctx, id, "c", askA(4)); !errors.Is(err, store.ErrReturnTooMany) {
		t.Fatalf("over quantity: %v", err)
	}
	if _, err := st.RequestReturn(ctx, id, "someone-else", askA(1)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another's order: %v", err)
	}
	if n := f.env.CountEntities(t, "return"); n != 0 {
		t.Fatalf("refused asks wrote %d returns", n)
	}

	clock.Set(clock.Now().Add(24 * time.Hour))
	r, err := one(t)(st.RequestReturn(ctx, id, "c", askA(2)))
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != store.ReturnRequested || r.Units() != 2 || r.Value() != eur(2400) || r.Version != 1 {
		t.Fatalf("requested: %+v", r)
	}
	// One unit is left to ask for; two more are too many.
	if _, err := st.RequestReturn(ctx, id, "c", askA(2)); !errors.Is(err, store.ErrReturnTooMany) {
		t.Fatalf("second ask over what is left: %v", err)
	}
	list, err := st.ReturnsByStatus(ctx, store.ReturnRequested, 10, "")
	if err != nil || len(list.Items) != 1 || list.Items[0].ID != r.ID {
		t.Fatalf("requested list: %+v %v", list, err)
	}

	// Received: the mail goes with the step, once.
	mail := func(r store.Return) store.Mail {
		return store.Mail{To: "c@example.com", Kind: store.MailReturnReceived, Subject: "Received", Text: "ok", CustomerID: r.CustomerID, CreatedAt: r.ReceivedAt, Status: store.MailPending}
	}
	if _, err := st.ReceiveReturn(ctx, id, r.ID, 2, sam, mail); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale version: %v", err)
	}
	r, err = st.ReceiveReturn(ctx, id, r.ID, 1, sam, mail)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.ReceiveReturn(ctx, id, r.ID, 2, kim, mail); !errors.Is(err, store.ErrReturnStep) {
		t.Fatalf("received twice: %v", err)
	}
	if n := f.env.CountEntities(t, "mail"); n != 1 {
		t.Fatalf("%d mails after receiving", n)
	}
	if m, err := st.Mail(ctx, store.ReturnReceivedMailID(r.ID)); err != nil || m.Kind != store.MailReturnReceived {
		t.Fatalf("mail %+v %v", m, err)
	}

	// Inspected: a verdict for each line, or nothing is written.
	if _, err := st.InspectReturn(ctx, id, r.ID, 2, sam, store.Inspection{}); !errors.Is(err, store.ErrBadReturn) {
		t.Fatalf("no verdicts: %v", err)
	}
	if _, err := st.InspectReturn(ctx, id, r.ID, 2, sam, store.Inspection{Verdicts: []store.ReturnVerdict{"maybe"}, Notes: []string{""}}); !errors.Is(err, store.ErrBadReturn) {
		t.Fatalf("odd verdict: %v", err)
	}
	r, err = st.InspectReturn(ctx, id, r.ID, 2, sam, store.Inspection{Verdicts: []store.ReturnVerdict{store.VerdictAccepted}, Notes: []string{" unopened "}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != store.ReturnInspected || r.Lines[0].Note != "unopened" || r.Accepted() != eur(2400) || r.InspectedBy != sam.Name {
		t.Fatalf("inspected: %+v", r)
	}
	d, err = st.OrderDetails(ctx, id)
	if err != nil || len(d.Returns) != 1 || d.Returns[0].Status != store.ReturnInspected || d.Returns[0].ReceivedAt.IsZero() {
		t.Fatalf("order's returns: %+v %v", d.Returns, err)
	}
	if left := store.ReturnableOf(d, d.Items[0]); left != 1 {
		t.Fatalf("returnable %d", left)
	}
	for _, s := range []store.ReturnStatus{store.ReturnRequested, store.ReturnReceived} {
		if l, err := st.ReturnsByStatus(ctx, s, 10, ""); err != nil || len(l.Items) != 0 {
			t.Fatalf("%s still lists %+v %v", s, l.Items, err)
		}
	}

	// Refunded: the accepted units' money back to the card, their stock
	// back in the warehouse staff chose, the return closed.
	before := stockIn(t, st, "a", "w2")
	if _, err := st.RefundReturn(ctx, id, r.ID, 3, store.ReturnRefund{Warehouse: "nowhere"}, sam, f.pay.Refunds(), nil); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown warehouse: %v", err)
	}
	r, err = st.RefundReturn(ctx, id, r.ID, 3, store.ReturnRefund{Warehouse: "w2"}, sam, f.pay.Refunds(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != store.ReturnRefunded || r.Refunded != eur(2400) || r.RestockedTo != "w2" || r.RefundedBy != sam.Name {
		t.Fatalf("refunded: %+v", r)
	}
	if got := stockIn(t, st, "a", "w2"); got != before+2 {
		t.Fatalf("stock in w2 %d, want %d", got, before+2)
	}
	if _, err := st.RefundReturn(ctx, id, r.ID, 4, store.ReturnRefund{Warehouse: "w2"}, sam, f.pay.Refunds(), nil); !errors.Is(err, store.ErrReturnStep) {
		t.Fatalf("refunded twice: %v", err)
	}
	d, err = st.OrderDetails(ctx, id)
	if err != nil || len(d.Refunds) != 1 || d.Refunds[0].Amount != eur(2400) || d.Refunds[0].ID != store.ReturnRefundKey(r.ID) {
		t.Fatalf("order's refunds: %+v %v", d.Refunds, err)
	}

	// The window closes 14 days after delivery, to the millisecond.
	clock.Set(st.ReturnClosesAt(d))
	if _, err := st.RequestReturn(ctx, id, "c", askA(1)); !errors.Is(err, store.ErrReturnWindowClosed) {
		t.Fatalf("window closed: %v", err)
	}
}

func stockIn(t *testing.T, st *store.Store, product, warehouse string) int {
	t.Helper()
	levels, err := st.ProductStock(ctxT(t), product)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range levels {
		if l.WarehouseID == warehouse {
			return l.Quantity
		}
	}
	return 0
}

// A return none of whose lines is accepted is rejected and closed.
func TestReturnRejected(t *testing.T) {
	t.Parallel()
	clock := storetest.NewClock(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC), 0)
	f := newFixture(t, map[string][2]int{"a": {20, -1}}, 1200, store.WithClock(clock.Now), store.WithListShards(2))
	st, ctx := f.env.Store, ctxT(t)
	d := deliveredOrder(t, f, "k1", 1)
	r, err := one(t)(st.RequestReturn(ctx, d.Order.ID, "c", askA(1)))
	if err != nil {
		t.Fatal(err)
	}
	mail := func(r store.Return) store.Mail {
		return store.Mail{To: "c@example.com", Kind: store.MailReturnReceived, CreatedAt: r.ReceivedAt, Status: store.MailPending}
	}
	if r, err = st.ReceiveReturn(ctx, d.Order.ID, r.ID, 1, sam, mail); err != nil {
		t.Fatal(err)
	}
	r, err = st.InspectReturn(ctx, d.Order.ID, r.ID, 2, sam, store.Inspection{Verdicts: []store.ReturnVerdict{store.VerdictRejected}, Notes: []string{"worn"}})
	if err != nil || r.Status != store.ReturnRejected || r.Accepted().Amount != 0 {
		t.Fatalf("rejected: %+v %v", r, err)
	}
	if _, err := st.RefundReturn(ctx, d.Order.ID, r.ID, 3, store.ReturnRefund{Warehouse: "w1"}, sam, f.pay.Refunds(), nil); !errors.Is(err, store.ErrReturnStep) {
		t.Fatalf("refund of a rejected return: %v", err)
	}
}

// Units staff refunded without a return (the customer kept them) cannot be
// asked back for money again; a return's own refund is counted once, by
// the return.
func TestReturnLeavesOutUnitsRefundedWithoutOne(t *testing.T) {
	t.Parallel()
	clock := storetest.NewClock(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC), 0)
	f := newFixture(t, map[string][2]int{"a": {20, -1}}, 1200, store.WithClock(clock.Now), store.WithListShards(2))
	st, ctx := f.env.Store, ctxT(t)
	d := deliveredOrder(t, f, "k1", 3)
	if _, err := st.RefundOrder(ctx, store.OrderRefundRequest{OrderID: d.Order.ID, Key: "kept", Reason: "Dented, kept", By: sam,
		Lines: []store.RefundLine{{ProductID: "a", Quantity: 2}}}, f.pay.Refunds()); err != nil {
		t.Fatal(err)
	}
	if _, err := st.RequestReturn(ctx, d.Order.ID, "c", askA(2)); !errors.Is(err, store.ErrReturnTooMany) {
		t.Fatalf("asking back 2 of the 1 unit not refunded: %v", err)
	}
	r, err := one(t)(st.RequestReturn(ctx, d.Order.ID, "c", askA(1)))
	if err != nil {
		t.Fatal(err)
	}
	mail := func(r store.Return) store.Mail {
		return store.Mail{To: "c@example.com", Kind: store.MailReturnReceived, CreatedAt: r.ReceivedAt, Status: store.MailPending}
	}
	if r, err = st.ReceiveReturn(ctx, d.Order.ID, r.ID, 1, sam, mail); err != nil {
		t.Fatal(err)
	}
	if r, err = st.InspectReturn(ctx, d.Order.ID, r.ID, 2, sam, store.Inspection{Verdicts: []store.ReturnVerdict{store.VerdictAccepted}, Notes: []string{""}}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.RefundReturn(ctx, d.Order.ID, r.ID, 3, store.ReturnRefund{Warehouse: "w1"}, sam, f.pay.Refunds(), nil); err != nil {
		t.Fatal(err)
	}
	after, err := st.OrderDetails(ctx, d.Order.ID)
	if err != nil {
		t.Fatal(err)
	}
	if left := store.ReturnableOf(after, after.Items[0]); left != 0 {
		t.Fatalf("%d units left to return of 3 bought, 2 refunded and 1 returned", left)
	}
}

// Ten asks race for a line of five units: exactly five units are asked
// back however the asks interleave, and the returns' units add up.
//
// Not parallel: beside other tests' writes, DynamoDB Local times out the
// lock waits of a race like this one.
func TestReturnQuantityRace(t *testing.T) {
	clock := storetest.NewClock(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC), 0)
	f := newFixture(t, map[string][2]int{"a": {20, -1}}, 1200, store.WithClock(clock.Now), store.WithListShards(2))
	st, ctx := f.env.Store, ctxT(t)
	d := deliveredOrder(t, f, "k1", 5)
	const askers = 10
	var wg sync.WaitGroup
	errs := make([]error, askers)
	start := make(chan struct{})
	for i := range askers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = st.RequestReturn(ctx, d.Order.ID, "c", askA(1+i%2))
		}()
	}
	close(start)
	wg.Wait()
	for _, err := range errs {
		if err != nil && !errors.Is(err, store.ErrReturnTooMany) && !errors.Is(err, store.ErrConflict) {
			t.Fatalf("unexpected: %v", err)
		}
	}
	d, err := st.OrderDetails(ctx, d.Order.ID)
	if err != nil {
		t.Fatal(err)
	}
	units := 0
	for _, r := range d.Returns {
		units += r.Units()
	}
	if units > 5 || store.ReturnableOf(d, d.Items[0]) != 5-units {
		t.Fatalf("%d units asked back of 5 bought (%d returns)", units, len(d.Returns))
	}
	// Whatever is left can still be asked, and then nothing more.
	if left := 5 - units; left > 0 {
		if _, err := st.RequestReturn(ctx, d.Order.ID, "c", askA(left)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.RequestReturn(ctx, d.Order.ID, "c", askA(1)); !errors.Is(err, store.ErrReturnTooMany) {
		t.Fatalf("sixth unit: %v", err)
	}
}
