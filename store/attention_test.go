package store_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
	"shop/store/storetest/paytest"
)

// An order waits on the to-ship list, oldest first, from checkout until
// every shipment has gone; a step back puts it on again.
func TestOrdersWaitToShipUntilShipped(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string][2]int{"p": {20, 0}}, 1000)
	ctx := ctxT(t)
	start := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	var placed []store.Order
	for i := range 3 {
		st := store.New(f.env.Client, f.env.Table, store.WithClock(func() time.Time { return start.Add(time.Duration(i) * time.Hour) }))
		req := request(fmt.Sprintf("ship-%d", i), "c1", store.CheckoutLine{ProductID: "p", Quantity: 1})
		o, err := paytest.New(t, st).Checkout(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		placed = append(placed, o)
	}
	waiting := func() []string {
		t.Helper()
		p, err := f.env.Store.OrdersToShip(ctx, 10, "")
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, o := range p.Items {
			ids = append(ids, o.ID)
		}
		return ids
	}
	if got := waiting(); !slices.Equal(got, []string{placed[0].ID, placed[1].ID, placed[2].ID}) {
		t.Fatalf("waiting %v, want the three oldest first", got)
	}
	ships, err := f.env.Store.CreateShipments(ctx, placed[0].ID, "Standard")
	if err != nil {
		t.Fatal(err)
	}
	if got := waiting(); len(got) != 3 {
		t.Fatalf("an order being packed left the list: %v", got)
	}
	var last store.ShipmentChange
	for _, sh := range ships {
		step := store.ShipmentStep{To: store.ShipmentShipped, Carrier: "other", Tracking: "PARCEL-" + sh.ID, Version: sh.Version}
		if last, err = f.env.Store.ChangeShipment(ctx, placed[0].ID, sh.ID, step, stocktaker); err != nil {
			t.Fatal(err)
		}
	}
	if got := waiting(); !slices.Equal(got, []string{placed[1].ID, placed[2].ID}) {
		t.Fatalf("after shipping the first: %v", got)
	}
	// Undone: it waits again, in its place.
	if _, err := f.env.Store.UndoShipmentChange(ctx, placed[0].ID, last.ShipmentID, last.ID, stocktaker); err != nil {
		t.Fatal(err)
	}
	if got := waiting(); !slices.Equal(got, []string{placed[0].ID, placed[1].ID, placed[2].ID}) {
		t.Fatalf("after undoing the shipping: %v", got)
	}
	step := store.ShipmentStep{To: store.ShipmentShipped, Carrier: "other", Tracking: "PARCEL-AGAIN", Version: last.Version + 1}
	if _, err := f.env.Store.ChangeShipment(ctx, placed[0].ID, last.ShipmentID, step, stocktaker); err != nil {
		t.Fatal(err)
	}
	if got := waiting(); !slices.Equal(got, []string{placed[1].ID, placed[2].ID}) {
		t.Fatalf("after shipping it again: %v", got)
	}
	p, err := f.env.Store.OrdersToShip(ctx, 1, "")
	if err != nil || len(p.Items) != 1 || p.Next == "" {
		t.Fatalf("a page of one: %+v, %v", p, err)
	}
	rest, err := f.env.Store.OrdersToShip(ctx, 1, p.Next)
	if err != nil || len(rest.Items) != 1 || rest.Items[0].ID != placed[2].ID {
		t.Fatalf("the next page: %+v, %v", rest, err)
	}
}

// A day's totals are the orders of the day in the shop's zone, summed over
// the shards; a day without orders is there with none.
func TestDayTotalsAreTheShopsDays(t *testing.T) {
	t.Parallel()
	stockholm, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, map[string][2]int{"p": {100, 0}}, 1250, store.WithTimeZone(stockholm))
	ctx := ctxT(t)
	at := []time.Time{
		time.Date(2026, 3, 27, 22, 30, 0, 0, time.UTC), // 27 Mar, 23:30 CET
		time.Date(2026, 3, 27, 23, 30, 0, 0, time.UTC), // 28 Mar, 00:30 CET
		time.Date(2026, 3, 28, 12, 0, 0, 0, time.UTC),  // 28 Mar
		time.Date(2026, 3, 28, 22, 15, 0, 0, time.UTC), // 28 Mar, 23:15 CET: the clocks change at 02:00 on the 29th
		time.Date(2026, 3, 30, 8, 0, 0, 0, time.UTC),   // 30 Mar
	}
	for i, when := range at {
		st := store.New(f.env.Client, f.env.Table, store.WithTimeZone(stockholm), store.WithClock(func() time.Time { return when }))
		req := request(fmt.Sprintf("day-%d", i), "c1", store.CheckoutLine{ProductID: "p", Quantity: i + 1})
		if _, err := paytest.New(t, st).Checkout(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	days, err := f.env.Store.DayTotals(ctx, time.Date(2026, 3, 27, 12, 0, 0, 0, stockholm), time.Date(2026, 3, 30, 12, 0, 0, 0, stockholm))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		day            string
		orders, amount int
	}{{"2026-03-27", 1, 1}, {"2026-03-28", 3, 2 + 3 + 4}, {"2026-03-29", 0, 0}, {"2026-03-30", 1, 5}}
	if len(days) != len(want) {
		t.Fatalf("%d days: %+v", len(days), days)
	}
	for i, w := range want {
		d := days[i]
		if d.Day.Format(time.DateOnly) != w.day || d.Orders != w.orders || d.Revenue.Amount != int64(w.amount)*1250 {
			t.Errorf("day %d: %s %d orders %s; want %s %d orders %d cents", i, d.Day.Format(time.DateOnly), d.Orders, d.Revenue, w.day, w.orders, w.amount*1250)
		}
	}
	if avg := days[1].Average(); avg.Amount != 9*1250/3 {
		t.Errorf("average of the 28th %s", avg)
	}
}

// lowLevels are the low-stock list's entries, as "product/warehouse".
func lowLevels(t *testing.T, f shopFixture) []string {
	t.Helper()
	levels, err := f.env.Store.LowStock(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range levels {
		out = append(out, l.ProductID+"/"+l.WarehouseID)
	}
	return out
}

// Sales and adjustments racing over one stock level leave it on the
// low-stock list exactly when it ends under its threshold.
//
// Not parallel: beside other tests' writes, DynamoDB Local times out
// the lock waits of a race like this one.
func TestLowStockListFollowsRacingSalesAndAdjustments(t *testing.T) {
	f := newFixture(t, map[string][2]int{"p": {8, -1}, "q": {50, -1}}, 1000)
	ctx := ctxT(t)
	if got := lowLevels(t, f); len(got) != 0 {
		t.Fatalf("low before any sale: %v", got)
	}
	product, err := f.env.Store.Product(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	w1, err := f.env.Store.Warehouse(ctx, "w1")
	if err != nil {
		t.Fatal(err)
	}
	race := func(round string, buys, restocks int) {
		t.Helper()
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make(chan error, buys+restocks)
		for i := range buys {
			wg.Go(func() {
				<-start
				req := request(fmt.Sprintf("%s-buy-%02d", round, i), fmt.Sprintf("c%02d", i), store.CheckoutLine{ProductID: "p", Quantity: 1})
				_, err := f.pay.Checkout(ctx, req)
				errs <- err
			})
		}
		for range restocks {
			wg.Go(func() {
				<-start
				_, err := f.env.Store.AdjustStock(ctx, product, w1, 1, "found one", stocktaker)
				errs <- err
			})
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("%s: %v", round, err)
			}
		}
	}
	// 8 - 6 + 2 = 4: under the default threshold of 5.
	race("down", 6, 2)
	if left := f.stockOf(t, "p"); left != 4 {
		t.Fatalf("stock %d, want 4", left)
	}
	if got := lowLevels(t, f); !slices.Equal(got, []string{"p/w1"}) {
		t.Fatalf("low after selling down to 4: %v", got)
	}
	// 4 - 3 + 8 = 9: off the list.
	race("up", 3, 8)
	if left := f.stockOf(t, "p"); left != 9 {
		t.Fatalf("stock %d, want 9", left)
	}
	if got := lowLevels(t, f); len(got) != 0 {
		t.Fatalf("low after restocking to 9: %v", got)
	}
	// Staff raise the product's threshold over its stock: low again.
	if err := f.env.Store.SetLowStockAt(ctx, "p", 10); err != nil {
		t.Fatal(err)
	}
	if got := lowLevels(t, f); !slices.Equal(got, []string{"p/w1"}) {
		t.Fatalf("low under a threshold of 10: %v", got)
	}
	if err := f.env.Store.SetLowStockAt(ctx, "p", 0); err == nil {
		t.Fatal("a threshold of 0 was taken")
	}
	levels, err := f.env.Store.ProductStock(ctx, "p")
	if err != nil || len(levels) != 1 || levels[0].LowStockAt() != 10 {
		t.Fatalf("levels %+v, %v", levels, err)
	}
}

// A table from before the dashboard gets its orders counted in their days,
// those waiting listed to ship and its low stock listed, once: a second
// run (after a crash before the mark, say) counts nothing twice.
func TestMigrateListsWhatNeedsStaffOnAnOlderTable(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string][2]int{"p": {7, -1}}, 1000)
	ctx := ctxT(t)
	for i := range 3 {
		req := request(fmt.Sprintf("older-%d", i), "c1", store.CheckoutLine{ProductID: "p", Quantity: 1})
		if _, err := f.pay.Checkout(ctx, req); err != nil {
			t.Fatal(err)
		}
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
		case strings.HasPrefix(pk, "day-totals#") || sk == "marker#attention-listed":
			_, err = f.env.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(f.env.Table), Key: key})
		case strings.HasPrefix(pk, "o#") && strings.HasPrefix(sk, "c#"), strings.HasPrefix(pk, "p#") && strings.HasPrefix(sk, "w#"):
			_, err = f.env.Client.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(f.env.Table), Key: key,
				UpdateExpression: aws.String("REMOVE DayCounted, #pk, #sk"), ExpressionAttributeNames: map[string]string{"#pk": "ATTN-PK", "#sk": "ATTN-SK"}})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	check := func(when string) {
		t.Helper()
		days, err := f.env.Store.DayTotals(ctx, time.Now(), time.Now())
		if err != nil || len(days) != 1 || days[0].Orders != 3 || days[0].Revenue.Amount != 3000 {
			t.Fatalf("%s: today's totals %+v, %v", when, days, err)
		}
		waiting, err := f.env.Store.OrdersToShip(ctx, 10, "")
		if err != nil || len(waiting.Items) != 3 {
			t.Fatalf("%s: %d waiting to ship, %v", when, len(waiting.Items), err)
		}
		if got := lowLevels(t, f); !slices.Equal(got, []string{"p/w1"}) {
			t.Fatalf("%s: low %v", when, got)
		}
	}
	if days, err := f.env.Store.DayTotals(ctx, time.Now(), time.Now()); err != nil || days[0].Orders != 0 {
		t.Fatalf("totals before migrating: %+v, %v", days, err)
	}
	if err := store.New(f.env.Client, f.env.Table).Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	check("after migrating")
	_, err = f.env.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(f.env.Table),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "meta"}, "SK": &types.AttributeValueMemberS{Value: "marker#attention-listed"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.New(f.env.Client, f.env.Table).Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	check("after running the step again")
}
