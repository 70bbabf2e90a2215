package store_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
	"shop/store/storetest"
)

var (
	sam = store.Customer{ID: "staff-sam", Name: "Sam Staff"}
	kim = store.Customer{ID: "staff-kim", Name: "Kim Staff"}
)

// shippingOrder places an order of one product from one warehouse and
// makes its one shipment.
func shippingOrder(t *testing.T, f shopFixture, key string) (store.Order, store.Shipment) {
	t.Helper()
	ctx := ctxT(t)
	req := request(key, "c", store.CheckoutLine{ProductID: "a", Quantity: 1})
	o, err := f.pay.Checkout(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	shs, err := f.env.Store.CreateShipments(ctx, o.ID, "Standard")
	if err != nil || len(shs) != 1 {
		t.Fatalf("shipments %v, %v", shs, err)
	}
	return o, shs[0]
}

func shipmentNow(t *testing.T, st *store.Store, id string) store.Shipment {
	t.Helper()
	sh, err := st.Shipment(ctxT(t), id)
	if err != nil {
		t.Fatal(err)
	}
	return sh
}

func orderStatus(t *testing.T, st *store.Store, id string) store.OrderStatus {
	t.Helper()
	d, err := st.OrderDetails(ctxT(t), id)
	if err != nil {
		t.Fatal(err)
	}
	return d.Order.Status
}

// Shipped with a carrier and a checked tracking number, delivered, undone
// within the window, stepped back: each change recorded with who and when,
// the order following, the list by status in step.
func TestShipmentChangesAndUndo(t *testing.T) {
	t.Parallel()
	clock := storetest.NewClock(time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), 0)
	f := newFixture(t, map[string][2]int{"a": {5, -1}}, 1000, store.WithClock(clock.Now), store.WithListShards(4))
	st, ctx := f.env.Store, ctxT(t)
	o, sh := shippingOrder(t, f, "k1")
	if sh.Version != 1 {
		t.Fatalf("new shipment at version %d", sh.Version)
	}

	if _, err := st.ChangeShipment(ctx, o.ID, sh.ID, store.ShipmentStep{To: store.ShipmentShipped, Carrier: "ups", Tracking: "1Z999AA10123456785", Version: 1}, sam); !errors.Is(err, store.ErrBadTracking) {
		t.Fatalf("bad check digit: %v", err)
	}
	if _, err := st.ChangeShipment(ctx, o.ID, sh.ID, store.ShipmentStep{To: store.ShipmentShipped, Carrier: "pigeon", Tracking: "1234", Version: 1}, sam); !errors.Is(err, store.ErrBadTracking) {
		t.Fatalf("unknown carrier: %v", err)
	}
	if got := shipmentNow(t, st, sh.ID); got.Version != 1 || len(got.Changes) != 0 {
		t.Fatalf("a refused change wrote: %+v", got)
	}

	clock.Set(clock.Now().Add(time.Hour))
	var shipped store.ShipmentChange
	f.env.Costs(t, "ship", 2, func() { // the order's collection, then one transaction
		var err error
		shipped, err = st.ChangeShipment(ctx, o.ID, sh.ID, store.ShipmentStep{To: store.ShipmentShipped, Carrier: "ups", Tracking: "1z999aa1 0123456784", Version: 1}, sam)
		if err != nil {
			t.Fatal(err)
		}
	})
	got := shipmentNow(t, st, sh.ID)
	if got.Status != store.ShipmentShipped || got.Carrier != "ups" || got.Tracking != "1Z999AA10123456784" || got.Version != 2 || !got.ShippedAt.Equal(clock.Now()) {
		t.Fatalf("shipped: %+v", got)
	}
	if len(got.Changes) != 1 || got.Changes[0].ByName != "Sam Staff" || got.Changes[0].From != store.ShipmentPending || !got.Changes[0].At.Equal(clock.Now()) {
		t.Fatalf("history %+v", got.Changes)
	}
	if s := orderStatus(t, st, o.ID); s != store.OrderShipped {
		t.Fatalf("order %s after its one shipment left", s)
	}
	if _, err := st.ChangeShipment(ctx, o.ID, sh.ID, store.ShipmentStep{To: store.ShipmentDelivered, Version: 1}, kim); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a change on a version seen before: %v", err)
	}

	clock.Set(clock.Now().Add(24 * time.Hour))
	delivered, err := st.ChangeShipment(ctx, o.ID, sh.ID, store.ShipmentStep{To: store.ShipmentDelivered, Version: 2}, kim)
	if err != nil {
		t.Fatal(err)
	}
	if s := orderStatus(t, st, o.ID); s != store.OrderDelivered {
		t.Fatalf("order %s", s)
	}
	assertListed(t, st, store.ShipmentDelivered, sh.ID)

	// The ship change is no longer the last: its undo fails cleanly.
	if _, err := st.UndoShipmentChange(ctx, o.ID, sh.ID, shipped.ID, sam); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("undo of an earlier change: %v", err)
	}
	clock.Set(clock.Now().Add(9 * time.Minute))
	if _, ok := shipmentNow(t, st, sh.ID).LastChange(clock.Now()); !ok {
		t.Fatal("delivery not undoable 9 minutes on")
	}
	var undo store.ShipmentChange
	f.env.Costs(t, "undo", 2, func() { // the order's collection, then one transaction
		if undo, err = st.UndoShipmentChange(ctx, o.ID, sh.ID, delivered.ID, sam); err != nil {
			t.Fatal(err)
		}
	})
	got = shipmentNow(t, st, sh.ID)
	if got.Status != store.ShipmentShipped || !got.DeliveredAt.IsZero() || got.Tracking != "1Z999AA10123456784" || got.Version != 4 {
		t.Fatalf("after undo: %+v", got)
	}
	if len(got.Changes) != 3 || got.Changes[1].UndoneBy != undo.ID || got.Changes[2].Undoes != delivered.ID || got.Changes[2].ByName != "Sam Staff" {
		t.Fatalf("history after undo %+v", got.Changes)
	}
	if s := orderStatus(t, st, o.ID); s != store.OrderShipped {
		t.Fatalf("order %s after the delivery was undone", s)
	}
	assertListed(t, st, store.ShipmentShipped, sh.ID)
	if _, err := st.UndoShipmentChange(ctx, o.ID, sh.ID, undo.ID, sam); !errors.Is(err, store.ErrNotUndoable) {
		t.Fatalf("undo of an undo: %v", err)
	}
	if _, err := st.UndoShipmentChange(ctx, o.ID, sh.ID, delivered.ID, sam); !errors.Is(err, store.ErrNotUndoable) {
		t.Fatalf("second undo: %v", err)
	}

	// Too late to undo.
	again, err := st.ChangeShipment(ctx, o.ID, sh.ID, store.ShipmentStep{To: store.ShipmentDelivered, Version: 4}, kim)
	if err != nil {
		t.Fatal(err)
	}
	clock.Set(clock.Now().Add(store.UndoWindow + time.Second))
	if _, err := st.UndoShipmentChange(ctx, o.ID, sh.ID, again.ID, kim); !errors.Is(err, store.ErrUndoExpired) {
		t.Fatalf("undo after the window: %v", err)
	}

	// Steps back, one at a time.
	if _, err := st.ChangeShipment(ctx, o.ID, sh.ID, store.ShipmentStep{To: store.ShipmentPending, Version: 5}, kim); !errors.Is(err, store.ErrBadTransition) {
		t.Fatalf("two steps back: %v", err)
	}
	if _, err := st.ChangeShipment(ctx, o.ID, sh.ID, store.ShipmentStep{To: store.ShipmentShipped, Version: 5}, kim); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ChangeShipment(ctx, o.ID, sh.ID, store.ShipmentStep{To: store.ShipmentPending, Version: 6}, kim); err != nil {
		t.Fatal(err)
	}
	got = shipmentNow(t, st, sh.ID)
	if got.Status != store.ShipmentPending || got.Carrier != "" || got.Tracking != "" || !got.ShippedAt.IsZero() {
		t.Fatalf("back to pending: %+v", got)
	}
	if s := orderStatus(t, st, o.ID); s != store.OrderShipping {
		t.Fatalf("order %s with its shipment back to packing", s)
	}
	assertListed(t, st, store.ShipmentPending, sh.ID)
}

// assertListed: the shipment is in its status's list and in no other.
func assertListed(t *testing.T, st *store.Store, status store.ShipmentStatus, id string) {
	t.Helper()
	for _, s := range []store.ShipmentStatus{store.ShipmentPending, store.ShipmentShipped, store.ShipmentDelivered} {
		p, err := st.ShipmentsByStatus(ctxT(t), s, 50, "")
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, sh := range p.Items {
			found = found || sh.ID == id
		}
		if found != (s == status) {
			t.Fatalf("shipment %s listed under %s: %v (it is %s)", id, s, found, status)
		}
	}
}

// Two staff change the same shipment at once: exactly one wins, the other
// gets ErrConflict and nothing of theirs is written.
func TestShipmentChangeRaceOneWins(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string][2]int{"a": {5, -1}}, 1000)
	st, ctx := f.env.Store, ctxT(t)
	o, sh := shippingOrder(t, f, "race")
	version := sh.Version
	for round := range 6 {
		to := store.ShipmentShipped
		if round%2 == 1 {
			to = store.ShipmentPending
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, by := range []store.Customer{sam, kim} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = st.ChangeShipment(ctx, o.ID, sh.ID, store.ShipmentStep{To: to, Carrier: "dhl", Tracking: "1234567890", Version: version}, by)
			}()
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, store.ErrConflict):
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d of two changes won (%v)", round, won, errs)
		}
		version++
		got := shipmentNow(t, st, sh.ID)
		if got.Version != version || got.Status != to || len(got.Changes) != round+1 {
			t.Fatalf("round %d: shipment %+v", round, got)
		}
	}
}

// The list of every warehouse's shipments by status pages through all of
// them, oldest to pack first, one Query per shard a page.
func TestShipmentsByStatusPaged(t *testing.T) {
	t.Parallel()
	const shards = 4
	clock := storetest.NewClock(time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), time.Second)
	f := newFixture(t, map[string][2]int{"a": {50, -1}}, 1000, store.WithClock(clock.Now), store.WithListShards(shards))
	st, ctx := f.env.Store, ctxT(t)
	var want []string
	for i := range 7 {
		_, sh := shippingOrder(t, f, fmt.Sprintf("k%d", i))
		want = append(want, sh.ID)
	}
	var got []string
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 5 {
			t.Fatal("the list does not end")
		}
		f.env.Counter.Reset()
		p, err := st.ShipmentsByStatus(ctx, store.ShipmentPending, 3, cursor)
		if err != nil {
			t.Fatal(err)
		}
		// One Query per shard; a shard that ran out is not read again.
		if n := f.env.Counter.Ops()["Query"]; n > shards || (pages == 0 && n != shards) || f.env.Counter.Total() != n {
			t.Fatalf("page %d cost %v", pages, f.env.Counter.Ops())
		}
		for _, sh := range p.Items {
			got = append(got, sh.ID)
		}
		if cursor = p.Next; cursor == "" {
			break
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("to pack %v, want oldest first %v", got, want)
	}
	if _, err := st.ShipmentsByStatus(ctx, "lost", 3, ""); err == nil {
		t.Fatal("a status that is none listed")
	}
	if _, err := st.ShipmentsByStatus(ctx, store.ShipmentShipped, 3, cursor+"x"); err == nil {
		t.Fatal("a cursor of nothing taken")
	}
}

// A table from before the list by status gets its shipments listed by
// Migrate, once.
func TestMigrateListsOlderShipments(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string][2]int{"a": {5, -1}}, 1000)
	st, ctx := f.env.Store, ctxT(t)
	o, sh := shippingOrder(t, f, "old")
	_, err := f.env.Client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(f.env.Table),
		Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "o#" + o.ID}, "SK": &types.AttributeValueMemberS{Value: "sh#" + sh.ID}},
		UpdateExpression:         aws.String("REMOVE #pk, #sk, Version"),
		ExpressionAttributeNames: map[string]string{"#pk": "SHS-PK", "#sk": "SHS-SK"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.env.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(f.env.Table), Key: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "meta"}, "SK": &types.AttributeValueMemberS{Value: "marker#shipments-listed"}}}); err != nil {
		t.Fatal(err)
	}
	p, err := st.ShipmentsByStatus(ctx, store.ShipmentPending, 10, "")
	if err != nil || len(p.Items) != 0 {
		t.Fatalf("unlisted shipment listed: %v, %v", p.Items, err)
	}
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	assertListed(t, st, store.ShipmentPending, sh.ID)
	// A shipment from before versions changes on "no version yet".
	if _, err := st.ChangeShipment(ctx, o.ID, sh.ID, store.ShipmentStep{To: store.ShipmentShipped, Carrier: "gls", Tracking: "12345678901", Version: 0}, sam); err != nil {
		t.Fatal(err)
	}
	assertListed(t, st, store.ShipmentShipped, sh.ID)
}
