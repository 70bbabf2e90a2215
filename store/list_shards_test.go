package store_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
	"shop/store/payment"
)

// A table from before the lists were sharded: its orders sit under
// orders#YYYY-MM and its open card checkouts under checkout-intents, and
// the table records no list shard count. Migrate moves each to its shard,
// once; the lists then show them, and a second Migrate scans nothing.
func TestMigrateMovesOrdersAndCheckoutIntentsToTheirShards(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string][2]int{"p": {50, 0}}, 1000)
	ctx, st := ctxT(t), f.env.Store
	var orders []store.Order
	for i := range 5 {
		req := request(fmt.Sprintf("legacy-%d", i), "ada", store.CheckoutLine{ProductID: "p", Quantity: 1})
		req.Card = f.card
		o, err := st.Checkout(ctx, req, f.gateway)
		if err != nil {
			t.Fatal(err)
		}
		orders = append(orders, o)
	}
	declined, err := f.gateway.Tokenize(ctx, payment.CardDeclined, "12/99", "123")
	if err != nil {
		t.Fatal(err)
	}
	open := request("legacy-open", "ada", store.CheckoutLine{ProductID: "p", Quantity: 1})
	open.Card = &declined
	if _, err := st.Checkout(ctx, open, f.gateway); !errors.Is(err, payment.ErrDeclined) {
		t.Fatalf("declined checkout: %v", err)
	}

	// Back to the old keys, as an older shop wrote them.
	set := func(pk, sk, attr, value string) {
		t.Helper()
		_, err := f.env.Client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:                 aws.String(f.env.Table),
			Key:                       map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: sk}},
			UpdateExpression:          aws.String("SET #a = :v"),
			ExpressionAttributeNames:  map[string]string{"#a": attr},
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberS{Value: value}},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range orders {
		set("o#"+o.ID, "c#ada", "GSI1-PK", "orders#"+o.PlacedAt.UTC().Format("2006-01"))
	}
	set("idem#"+open.Key, "idem#"+open.Key, "GSI2-PK", "checkout-intents")
	for _, sk := range []string{"list-shards", "marker#lists-sharded"} {
		_, err = f.env.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(f.env.Table),
			Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "meta"}, "SK": &types.AttributeValueMemberS{Value: sk}}})
		if err != nil {
			t.Fatal(err)
		}
	}

	// Today's shop over that table.
	shop := store.New(f.env.Client, f.env.Table)
	day := time.Now().UTC().Add(-time.Hour)
	if page, err := shop.OrdersBetween(ctx, day, day.Add(2*time.Hour), 20, ""); err == nil {
		t.Fatalf("orders listed before the table is migrated: %d, want an error that says to migrate", len(page.Items))
	}
	if err := shop.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	page, err := shop.OrdersBetween(ctx, day, day.Add(2*time.Hour), 20, "")
	if err != nil || len(page.Items) != len(orders) {
		t.Fatalf("orders after migrate: %d, %v; want %d", len(page.Items), err, len(orders))
	}
	intents, err := shop.OpenCheckoutIntents(ctx, time.Now().Add(time.Second), 10)
	if err != nil || len(intents) != 1 || intents[0].Key != open.Key {
		t.Fatalf("open checkout intents after migrate: %+v, %v", intents, err)
	}

	f.env.Counter.Reset()
	if err := store.New(f.env.Client, f.env.Table).Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if ops := f.env.Counter.Ops(); ops["Scan"] != 0 {
		t.Fatalf("a second migrate scanned the table: %v", ops)
	}
	other := store.New(f.env.Client, f.env.Table, store.WithListShards(store.DefaultListShards/2))
	if err := other.Migrate(ctx); !errors.Is(err, store.ErrShardsChanged) {
		t.Fatalf("migrate with another list shard count: %v, want ErrShardsChanged", err)
	}
}
