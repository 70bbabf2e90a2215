package store_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
)

// Many staff make the shipments of many orders at once while the numbers
// drawn keep repeating: every shipment still ends with a number of its
// own, kept on it with its order's number, and each number's item names
// its one shipment. The first thirty draws come from three numbers, so
// most first tries find their number taken and draw again.
func TestShipmentNumbersAreUniqueUnderARace(t *testing.T) {
	var mu sync.Mutex
	draws := 0
	draw := func() string {
		mu.Lock()
		defer mu.Unlock()
		draws++
		if draws <= 30 {
			return []string{"SH-222222", "SH-333333", "SH-444444"}[draws%3]
		}
		return fmt.Sprintf("SH-%06d", draws) // not the alphabet's, but unique
	}
	orders := 12
	f := newFixture(t, map[string][2]int{"a": {orders, -1}, "b": {-1, orders}}, 1000, store.WithShipmentNumbers(draw))
	st, ctx := f.env.Store, ctxT(t)
	placed := make([]store.Order, orders)
	for i := range orders {
		o, err := f.pay.Checkout(ctx, request(fmt.Sprintf("numbers-%d", i), "c",
			store.CheckoutLine{ProductID: "a", Quantity: 1}, store.CheckoutLine{ProductID: "b", Quantity: 1}))
		if err != nil {
			t.Fatal(err)
		}
		placed[i] = o
	}
	var wg sync.WaitGroup
	made := make([][]store.Shipment, orders)
	errs := make([]error, orders)
	start := make(chan struct{})
	for i, o := range placed {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			made[i], errs[i] = st.CreateShipments(ctx, o.ID, "Standard")
		}()
	}
	close(start)
	wg.Wait()
	seen := map[string]string{} // number -> shipment id
	for i, o := range placed {
		if errs[i] != nil || len(made[i]) != 2 {
			t.Fatalf("order %s: %d shipments, %v", o.Number, len(made[i]), errs[i])
		}
		d, err := st.OrderDetails(ctx, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, sh := range d.Shipments {
			if !strings.HasPrefix(sh.Number, "SH-") || sh.Label() != sh.Number {
				t.Fatalf("shipment %s of %s has number %q", sh.ID, o.Number, sh.Number)
			}
			if other, ok := seen[sh.Number]; ok {
				t.Fatalf("number %s given to %s and %s", sh.Number, other, sh.ID)
			}
			seen[sh.Number] = sh.ID
			if sh.OrderNumber != o.Number {
				t.Fatalf("shipment %s keeps order number %q, want %q", sh.Number, sh.OrderNumber, o.Number)
			}
			if again := shipmentNow(t, st, sh.ID); again.Number != sh.Number || again.OrderNumber != o.Number {
				t.Fatalf("shipment %s reads back as %q of %q", sh.ID, again.Number, again.OrderNumber)
			}
			key := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "shno#" + sh.Number}, "SK": &types.AttributeValueMemberS{Value: "shno#" + sh.Number}}
			out, err := f.env.Client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(f.env.Table), Key: key})
			if err != nil || out.Item == nil {
				t.Fatalf("number %s has no item: %v", sh.Number, err)
			}
			if got := out.Item["ShipmentID"].(*types.AttributeValueMemberS).Value; got != sh.ID {
				t.Fatalf("number %s names shipment %s, want %s", sh.Number, got, sh.ID)
			}
		}
	}
	if len(seen) != 2*orders {
		t.Fatalf("%d numbers for %d shipments", len(seen), 2*orders)
	}
	if draws <= 2*orders {
		t.Fatalf("%d numbers drawn for %d shipments: none was drawn again", draws, 2*orders)
	}
}
