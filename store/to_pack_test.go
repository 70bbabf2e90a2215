package store_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
)

// queueIn is the packing queue as staff see it: per warehouse, the orders
// oldest first with the lines it picks ("order:product×n").
func queueIn(t *testing.T, st *store.Store) map[string][]string {
	t.Helper()
	p, err := st.OrdersToPack(ctxT(t), 50, "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, g := range store.GroupToPack(p.Items) {
		for _, o := range g.Orders {
			for _, l := range o.Lines {
				out[g.WarehouseID] = append(out[g.WarehouseID], fmt.Sprintf("%s:%s×%d", o.Order.ID, l.ProductID, l.Quantity))
			}
		}
	}
	return out
}

// A placed order is on the packing queue at once, in the groups of the
// warehouses its checkout allocated, oldest first; a paid held order too.
// A refunded unit leaves the pick; packing and cancelling take it off.
func TestPackingQueueByWarehouseOldestFirst(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string][2]int{"a": {10, 0}, "b": {0, 10}}, 1000)
	ctx := ctxT(t)
	held := f.checkoutInOneTransaction(t, request("pack-1", "c1", store.CheckoutLine{ProductID: "a", Quantity: 1})).Order
	second, err := f.pay.Checkout(ctx, request("pack-2", "c2", store.CheckoutLine{ProductID: "b", Quantity: 2}))
	if err != nil {
		t.Fatal(err)
	}
	both, err := f.pay.Checkout(ctx, request("pack-3", "c3", store.CheckoutLine{ProductID: "a", Quantity: 3}, store.CheckoutLine{ProductID: "b", Quantity: 1}))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"w1": {held.ID + ":a×1", both.ID + ":a×3"},
		"w2": {second.ID + ":b×2", both.ID + ":b×1"},
	}
	if got := queueIn(t, f.env.Store); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("queue %v, want %v", got, want)
	}
	// Two of the three units of a are refunded before packing: one is left
	// to pick.
	_, err = f.env.Store.RefundOrder(ctx, store.OrderRefundRequest{OrderID: both.ID, Key: "refund-a", SawPlaced: true, By: stocktaker, Reason: "asked",
		Lines: []store.RefundLine{{ProductID: "a", Quantity: 2}}}, f.pay.Refunds())
	if err != nil {
		t.Fatal(err)
	}
	want["w1"][1] = both.ID + ":a×1"
	if got := queueIn(t, f.env.Store); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after the refund: queue %v, want %v", got, want)
	}
	shs, err := f.env.Store.CreateShipments(ctx, both.ID, "Standard")
	if err != nil || len(shs) != 2 {
		t.Fatalf("packing: %d shipments, %v", len(shs), err)
	}
	if _, err := f.env.Store.CancelOrder(ctx, second.ID, "c2", "cancel-2", nil, f.pay.Refunds()); err != nil {
		t.Fatal(err)
	}
	want = map[string][]string{"w1": {held.ID + ":a×1"}}
	if got := queueIn(t, f.env.Store); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after packing one and cancelling one: queue %v, want %v", got, want)
	}
}

// Twenty staff press Pack on one order at once: one set of shipments is
// made (one per warehouse), the others are told it is packed, no stock
// moves, and the order leaves the queue.
//
// Not parallel: beside other tests' writes, DynamoDB Local times out the
// lock waits of a race like this one.
func TestPackRacesMakeOneSetOfShipments(t *testing.T) {
	f := newFixture(t, map[string][2]int{"a": {10, 0}, "b": {0, 10}}, 1000)
	ctx := ctxT(t)
	o, err := f.pay.Checkout(ctx, request("race", "c1", store.CheckoutLine{ProductID: "a", Quantity: 2}, store.CheckoutLine{ProductID: "b", Quantity: 3}))
	if err != nil {
		t.Fatal(err)
	}
	const packers = 20
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		won  int
		errs []error
	)
	start := make(chan struct{})
	for range packers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, err := f.env.Store.CreateShipments(ctx, o.ID, "Standard")
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				won++
			} else if !errors.Is(err, store.ErrShipmentsExist) {
				errs = append(errs, err)
			}
		}()
	}
	close(start)
	wg.Wait()
	if won != 1 || len(errs) > 0 {
		t.Fatalf("%d packers made shipments (want 1); other errors: %v", won, errs)
	}
	d, err := f.env.Store.OrderDetails(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	units := 0
	for _, sh := range d.Shipments {
		for _, it := range sh.Items {
			units += it.Quantity
		}
	}
	if len(d.Shipments) != 2 || units != 5 || d.Order.Status != store.OrderShipping {
		t.Fatalf("%d shipments of %d units, order %s; want 2 of 5, shipping", len(d.Shipments), units, d.Order.Status)
	}
	if a, b := f.stockOf(t, "a"), f.stockOf(t, "b"); a != 8 || b != 7 {
		t.Fatalf("stock a %d, b %d after packing; want 8 and 7 (taken at checkout only)", a, b)
	}
	if got := queueIn(t, f.env.Store); len(got) != 0 {
		t.Fatalf("packed order still queued: %v", got)
	}
	if p, err := f.env.Store.ShipmentsByStatus(ctx, store.ShipmentPending, 10, ""); err != nil || len(p.Items) != 2 {
		t.Fatalf("pending shipments %d, %v; want 2", len(p.Items), err)
	}
	if !slices.ContainsFunc(d.Shipments, func(sh store.Shipment) bool { return sh.WarehouseID == "w2" }) {
		t.Fatal("no shipment from w2")
	}
}

// On a table from before the packing queue, Migrate puts the placed orders
// on it with what their warehouses pick; a packed one stays off.
func TestMigrateQueuesOlderPlacedOrders(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string][2]int{"a": {10, 0}}, 1000)
	ctx := ctxT(t)
	var placed []store.Order
	for i := range 3 {
		o, err := f.pay.Checkout(ctx, request(fmt.Sprintf("older-%d", i), "c1", store.CheckoutLine{ProductID: "a", Quantity: 1}))
		if err != nil {
			t.Fatal(err)
		}
		placed = append(placed, o)
	}
	if _, err := f.env.Store.CreateShipments(ctx, placed[2].ID, "Standard"); err != nil {
		t.Fatal(err)
	}
	// Back to how an older shop left the table.
	scan, err := f.env.Client.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(f.env.Table)})
	if err != nil {
		t.Fatal(err)
	}
	for _, item := range scan.Items {
		pk, sk := item["PK"].(*types.AttributeValueMemberS).Value, item["SK"].(*types.AttributeValueMemberS).Value
		key := map[string]types.AttributeValue{"PK": item["PK"], "SK": item["SK"]}
		switch {
		case sk == "marker#to-pack-listed":
			_, err = f.env.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(f.env.Table), Key: key})
		case strings.HasPrefix(pk, "o#") && strings.HasPrefix(sk, "c#"):
			_, err = f.env.Client.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(f.env.Table), Key: key,
				UpdateExpression: aws.String("REMOVE Pick, #pk, #sk"), ExpressionAttributeNames: map[string]string{"#pk": "SHS-PK", "#sk": "SHS-SK"}})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := queueIn(t, f.env.Store); len(got) != 0 {
		t.Fatalf("queue before migrating: %v", got)
	}
	if err := store.New(f.env.Client, f.env.Table).Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"w1": {placed[0].ID + ":a×1", placed[1].ID + ":a×1"}}
	if got := queueIn(t, f.env.Store); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("queue after migrating %v, want %v", got, want)
	}
}
