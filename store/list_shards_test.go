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
)

// A table from before the lists were sharded: its orders sit under
// orders#YYYY-MM, an open card checkout of the old in-request charge under
// checkout-intents, and the table records no list shard count. Migrate
// moves each order to its shard, once, and leaves the old intent alone
// (nothing reads it; its TTL ends it); the lists then show the orders, and
// a second Migrate scans nothing.
func TestMigrateMovesOrdersToTheirShards(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string][2]int{"p": {50, 0}}, 1000)
	ctx := ctxT(t)
	var orders []store.Order
	for i := range 5 {
		req := request(fmt.Sprintf("legacy-%d", i), "ada", store.CheckoutLine{ProductID: "p", Quantity: 1})
		o, err := f.pay.Checkout(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		orders = append(orders, o)
	}
	// A card checkout an older shop left charging (its intent, listed
	// for the reconcile step), as it wrote it.
	open := request("legacy-open", "ada")
	started := time.Now().UTC().Add(-time.Minute).Format("2006-01-02T15:04:05.000Z")
	_, err := f.env.Client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(f.env.Table), Item: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "idem#" + open.Key}, "SK": &types.AttributeValueMemberS{Value: "idem#" + open.Key},
		"EntityType": &types.AttributeValueMemberS{Value: "idempotency"}, "Status": &types.AttributeValueMemberS{Value: "charging"},
		"CustomerID": &types.AttributeValueMemberS{Value: "ada"}, "Attempt": &types.AttributeValueMemberN{Value: "1"},
		"ChargeKey": &types.AttributeValueMemberS{Value: "checkout-" + open.Key + "-a1"}, "StartedAt": &types.AttributeValueMemberS{Value: started},
		"ExpiresAt": &types.AttributeValueMemberN{Value: fmt.Sprint(time.Now().Add(time.Hour).Unix())},
		"GSI2-PK":   &types.AttributeValueMemberS{Value: "checkout-intents#0"}, "GSI2-SK": &types.AttributeValueMemberS{Value: started + "#" + open.Key},
	}})
	if err != nil {
		t.Fatal(err)
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
	// The old card checkout's intent is left as it was: nothing reads its
	// list any more, and its TTL removes it.
	out, err := f.env.Client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(f.env.Table), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "idem#" + open.Key}, "SK": &types.AttributeValueMemberS{Value: "idem#" + open.Key}}})
	if gsi2, _ := out.Item["GSI2-PK"].(*types.AttributeValueMemberS); err != nil || gsi2 == nil || gsi2.Value != "checkout-intents" {
		t.Fatalf("the old intent after migrate: %v, %v", out.Item, err)
	}
	// Its key answers no order, and a hold under it is refused, not crashed on.
	if _, err := shop.OrderForKey(ctx, open.Key, "ada"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the old intent's key: %v", err)
	}
	open.Lines, open.HoldFor = []store.CheckoutLine{{ProductID: "p", Quantity: 1}}, 30*time.Minute
	if _, err := shop.HoldCheckout(ctx, open); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a hold under the old intent's key: %v", err)
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
