package store_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
	"shop/store/payment"
	"shop/store/storetest"
	"shop/store/storetest/paytest"
)

// A past order written by SeedPaidOrders is what a checkout (held, paid at
// the test provider, placed), CreateShipments and ChangeShipment leave:
// the same items with the same attributes, read back the same (ids, times
// and the settled hold aside), the codes spent alike. A change to
// what a checkout or shipping writes that SeedOrders does not follow fails
// here.
func TestSeedOrdersWriteWhatCheckoutAndShippingWrite(t *testing.T) {
	f := newFixture(t, map[string][2]int{"p1": {10, 10}, "p2": {10, -1}}, 1250)
	ctx := ctxT(t)
	st := f.env.Store
	tracking := func(parcel int) string { return []string{"RR123456785SE", "RR100000015SE"}[parcel] }
	c, err := st.CreateCustomer(ctx, store.NewCustomer{Email: "past@example.com", Name: "Past Customer"})
	if err != nil {
		t.Fatal(err)
	}
	gift := store.GiftCard{Code: "GIFT-1000", Balance: eur(1000), Initial: eur(1000), CreatedAt: time.Now().AddDate(0, -1, 0)}
	code := store.DiscountCode{Code: "TENOFF", Kind: store.DiscountPercent, Percent: 10, Amount: eur(0), ExpiresAt: time.Now().AddDate(1, 0, 0), UsageLimit: 5, CreatedAt: gift.CreatedAt}
	if _, err := st.CreateGiftCard(ctx, gift); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateDiscountCode(ctx, code); err != nil {
		t.Fatal(err)
	}
	shipTo := store.Address{Name: "Past Customer", Street: "Storgatan", Number: "1", ZipCode: "11111", City: "Stockholm", Country: "Sweden"}
	placed := time.Now().Add(-72 * time.Hour).UTC().Truncate(time.Millisecond)
	made, shipped, delivered := placed.Add(20*time.Hour), placed.Add(25*time.Hour), placed.Add(60*time.Hour)

	// The shop's way: a checkout, then staff ship it and mark it delivered.
	clock := storetest.NewClock(placed, time.Millisecond)
	then := st.At(clock.Now)
	placedOrder, err := paytest.New(t, then).Checkout(ctx, store.CheckoutRequest{
		Key: "past-checkout", CustomerID: c.ID, Buyer: c.Buyer(), ShipTo: shipTo, Lines: []store.CheckoutLine{{ProductID: "p1", Quantity: 2}, {ProductID: "p2", Quantity: 1}},
		DiscountCode: code.Code, GiftCardCode: gift.Code,
	})
	if err != nil {
		t.Fatal(err)
	}
	clock.Set(made)
	shipments, err := then.CreateShipments(ctx, placedOrder.ID, "Standard")
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		at time.Time
		to store.ShipmentStatus
	}{{shipped, store.ShipmentShipped}, {delivered, store.ShipmentDelivered}} {
		clock.Set(step.at)
		for i, sh := range shipments {
			version := 2
			if step.to == store.ShipmentDelivered {
				version = 3
			}
			s := store.ShipmentStep{To: step.to, Version: version - 1}
			if step.to == store.ShipmentShipped {
				s.Carrier, s.Tracking = "postnord", tracking(i)
			}
			if _, err := then.ChangeShipment(ctx, placedOrder.ID, sh.ID, s, stocktaker); err != nil {
				t.Fatal(err)
			}
		}
	}
	giftLeft, err := st.GiftCard(ctx, gift.Code)
	if err != nil {
		t.Fatal(err)
	}
	codeUsed, err := st.DiscountCode(ctx, code.Code)
	if err != nil {
		t.Fatal(err)
	}
	want, err := st.OrderDetails(ctx, placedOrder.ID)
	if err != nil {
		t.Fatal(err)
	}

	// The seed's way, from the codes as they stood before.
	past := store.PastOrder{
		Number: "FF-2345AB", CustomerID: c.ID, Buyer: c.Buyer(), PlacedAt: placed, ShipTo: shipTo,
		Carrier: "postnord", Tracking: tracking, By: stocktaker,
		DiscountCode: code.Code, GiftCardCode: gift.Code, Card: &store.Card{Brand: "Visa", Last4: "4242", Provider: payment.ProviderTest}, ShippingType: "Standard",
		ShipmentsAt: made, ShippedAt: shipped, DeliveredAt: delivered,
	}
	for _, it := range want.Items {
		past.Items = append(past.Items, store.OrderItem{ProductID: it.ProductID, ProductName: it.ProductName, Price: it.Price, Quantity: it.Quantity, Allocations: it.Allocations, VATRate: it.VATRate})
	}
	// Its card part paid on the provider's page when it was placed (before
	// the count: the provider's requests are not the seed's).
	wantInvoice, _ := want.Invoice()
	paid, err := paytest.New(t, then).PayPast(ctx, past, wantInvoice.Payments[len(wantInvoice.Payments)-1].Amount)
	if err != nil {
		t.Fatal(err)
	}
	pay := func(context.Context, store.PastOrder, store.Money) (store.PastCardPayment, error) { return paid, nil }
	f.env.Counter.Reset()
	n, err := st.SeedPaidOrders(ctx, []store.PastOrder{past}, []store.GiftCard{gift}, []store.DiscountCode{code}, pay)
	if err != nil || n != 1 {
		t.Fatalf("seed: %d, %v", n, err)
	}
	if ops := f.env.Counter.Ops(); ops["BatchWriteItem"] != 1 || ops["TransactWriteItems"] != 2 || ops["GetItem"] != 1 || f.env.Counter.Total() != 5 {
		t.Errorf("seeding one order made %v, want a BatchGetItem, a GetItem and a transaction (its invoice's number), a BatchWriteItem and a transaction (its day's totals)", ops)
	}
	id, err := st.OrderIDByNumber(ctx, past.Number)
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.OrderDetails(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if g, err := st.GiftCard(ctx, gift.Code); err != nil || g != giftLeft {
		t.Errorf("gift card after seeding %+v (%v), after the checkout %+v", g, err, giftLeft)
	}
	if d, err := st.DiscountCode(ctx, code.Code); err != nil || d.Used != codeUsed.Used {
		t.Errorf("discount code after seeding %+v (%v), after the checkout %+v", d, err, codeUsed)
	}

	// Read back the same, ids and times aside.
	if g, w := sameShape(got), sameShape(want); g != w {
		t.Errorf("seeded order reads\n%s\nthe checkout's\n%s", g, w)
	}
	if !got.Order.PlacedAt.Equal(placed) || !got.Shipments[0].DeliveredAt.Equal(delivered) || !got.Shipments[0].CreatedAt.Equal(made) {
		t.Errorf("seeded times: %+v", got)
	}
	// The same items with the same attributes: the order's partition, its
	// number and its charge in the ledger.
	if g, w := attributeShapes(t, f.env, "o#"+id, got), attributeShapes(t, f.env, "o#"+placedOrder.ID, want); !slices.Equal(g, w) {
		t.Errorf("seeded items\n%s\nthe checkout's\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
	}

	// Seeded again: nothing more, the codes as they were.
	if n, err := st.SeedPaidOrders(ctx, []store.PastOrder{past}, []store.GiftCard{gift}, []store.DiscountCode{code}, pay); err != nil || n != 0 {
		t.Fatalf("seeded again: %d, %v", n, err)
	}
	if g, err := st.GiftCard(ctx, gift.Code); err != nil || g != giftLeft {
		t.Errorf("gift card after seeding twice %+v (%v)", g, err)
	}
}

// sameShape is an order's details without ids and times.
func sameShape(d store.OrderDetails) string {
	var b strings.Builder
	o := d.Order
	number := o.Number
	o.ID, o.Number, o.PlacedAt = "", "", time.Time{}
	o.Hold = nil // how the shop waited for its payment: a past order's was settled long ago
	b.WriteString(strings.ReplaceAll(strings.TrimSpace(fmtAny(o)), "\n", " "))
	for _, it := range d.Items {
		it.OrderID, it.PlacedAt = "", time.Time{}
		b.WriteString("\n" + fmtAny(it))
	}
	for _, inv := range d.Invoices {
		inv.ID, inv.OrderID, inv.Date = "", "", time.Time{}
		inv.Payments = slices.Clone(inv.Payments)
		for i := range inv.Payments {
			if _, last4, ok := strings.Cut(inv.Payments[i].Reference, "·"); ok {
				inv.Payments[i].Reference = last4 // the charge id aside
			}
		}
		b.WriteString("\n" + fmtAny(inv))
	}
	for _, sh := range d.Shipments {
		sh.ID, sh.OrderID, sh.CreatedAt, sh.ShippedAt, sh.DeliveredAt = "", "", time.Time{}, time.Time{}, time.Time{}
		if strings.HasPrefix(sh.Number, "SH-") && sh.OrderNumber == number && number != "" {
			sh.Number, sh.OrderNumber = "SH-…", "its order's" // drawn, and the order's kept
		}
		sh.Items = slices.Clone(sh.Items)
		for i := range sh.Items {
			sh.Items[i].ID, sh.Items[i].ShipmentID, sh.Items[i].OrderID = "", "", ""
		}
		slices.SortFunc(sh.Items, func(a, b store.ShipmentItem) int { return strings.Compare(a.ProductID, b.ProductID) })
		sh.Changes = slices.Clone(sh.Changes)
		for i := range sh.Changes {
			c := &sh.Changes[i]
			c.ID, c.ShipmentID, c.At, c.PrevShippedAt, c.PrevDeliveredAt = "", "", time.Time{}, time.Time{}, time.Time{}
		}
		b.WriteString("\n" + fmtAny(sh))
	}
	return b.String()
}

// attributeShapes lists, for the items of an order (its partition, its
// number and the charge its invoice names), each item's entity type and
// attribute names.
func attributeShapes(t *testing.T, env storetest.Env, pk string, d store.OrderDetails) []string {
	t.Helper()
	ctx := ctxT(t)
	expr, err := expression.NewBuilder().WithKeyCondition(expression.Key("PK").Equal(expression.Value(pk))).Build()
	if err != nil {
		t.Fatal(err)
	}
	out, err := env.Client.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(env.Table), KeyConditionExpression: expr.KeyCondition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values()})
	if err != nil {
		t.Fatal(err)
	}
	items := out.Items
	number, err := env.Client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(env.Table), Key: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "ordno#" + d.Order.Number}, "SK": &types.AttributeValueMemberS{Value: "ordno#" + d.Order.Number}}})
	if err != nil || number.Item == nil {
		t.Fatalf("order number %s: %v", d.Order.Number, err)
	}
	items = append(items, number.Item)
	inv, _ := d.Invoice()
	for _, p := range inv.Payments {
		if p.Type == "GiftCard" {
			continue
		}
		chargeID := strings.Fields(p.Reference)[0]
		if p.Provider != "" { // its payment at the test provider
			pi, err := env.Client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(env.Table), Key: map[string]types.AttributeValue{
				"PK": &types.AttributeValueMemberS{Value: "gwintent#" + chargeID}, "SK": &types.AttributeValueMemberS{Value: "intent"}}})
			if err != nil || pi.Item == nil {
				t.Fatalf("payment %s at the test provider: %v", chargeID, err)
			}
			items = append(items, pi.Item)
			continue
		}
		expr, err := expression.NewBuilder().WithKeyCondition(expression.Key("GSI1-PK").Equal(expression.Value("gwcharge#" + chargeID))).Build()
		if err != nil {
			t.Fatal(err)
		}
		out, err := env.Client.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(env.Table), IndexName: aws.String("GSI1"), KeyConditionExpression: expr.KeyCondition(),
			ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values()})
		if err != nil || len(out.Items) != 1 {
			t.Fatalf("charge %s in the ledger: %v, %v", chargeID, out, err)
		}
		items = append(items, out.Items...)
	}
	var shapes []string
	for _, it := range items {
		kind, _ := it["EntityType"].(*types.AttributeValueMemberS)
		if kind.Value == "order" {
			delete(it, "Hold") // as sameShape: the settled hold is not the seed's
		}
		names := slices.Sorted(maps.Keys(it))
		shapes = append(shapes, kind.Value+": "+strings.Join(names, " "))
	}
	slices.Sort(shapes)
	return shapes
}

func fmtAny(v any) string { return fmt.Sprintf("%+v", v) }
