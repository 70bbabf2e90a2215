package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
	"shop/store/storetest"
)

// dropProtected deletes a table a test made with deletion protection on.
func dropProtected(t *testing.T, client *dynamodb.Client, table string) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = client.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table), DeletionProtectionEnabled: aws.Bool(false)})
		_, _ = client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	})
}

func TestPlanSaysWhatMigrateWouldDoAndDoesNothing(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	ctx := ctxT(t)
	for _, tc := range []struct {
		name  string
		opts  []store.Option
		first string
	}{
		{"local", nil, "create table %s: on-demand, keys PK and SK, indexes GSI1, GSI2, RemindersDue, PaymentsDue, Attention, ShipmentsByStatus"},
		{"aws", []store.Option{store.OnAmazonDynamoDB()}, "create table %s: on-demand, keys PK and SK, indexes GSI1, GSI2, RemindersDue, PaymentsDue, Attention, ShipmentsByStatus, deletion protection on"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			table := env.Table + "-" + tc.name
			dropProtected(t, env.Client, table)
			st := store.New(env.Client, table, tc.opts...)
			plan, err := st.PlanTable(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// DynamoDB Local offers no point-in-time recovery: on AWS the
			// plan has a third step for it.
			want := []string{strings.Replace(tc.first, "%s", table, 1), "turn on TTL on ExpiresAt (sessions, receipts, rate limits expire)"}
			if strings.Join(plan, "\n") != strings.Join(want, "\n") {
				t.Fatalf("plan:\n%s\nwant:\n%s", strings.Join(plan, "\n"), strings.Join(want, "\n"))
			}
			var notFound *types.ResourceNotFoundException
			if _, err := env.Client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)}); !errors.As(err, &notFound) {
				t.Fatalf("the plan made the table: %v", err)
			}
			if err := st.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			if plan, err := st.PlanTable(ctx); err != nil || len(plan) != 0 {
				t.Fatalf("after migrate the plan is %q, %v; want nothing", plan, err)
			}
			desc, err := env.Client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
			if err != nil {
				t.Fatal(err)
			}
			if got := aws.ToBool(desc.Table.DeletionProtectionEnabled); got != (tc.name == "aws") {
				t.Fatalf("deletion protection %v on the %s table", got, tc.name)
			}
			if tc.name == "aws" {
				_, err := env.Client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
				if err == nil {
					t.Fatal("a protected table was deleted")
				}
			}
		})
	}
}

// An older table on AWS: the plan names each missing index, the one-time
// steps not yet run and deletion protection; an index of another shape
// stops it, and nothing is dropped.
func TestMigrateOnAWSAddsWhatIsMissingAndNeverDrops(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	ctx := ctxT(t)
	table := env.Table + "-older"
	dropProtected(t, env.Client, table)
	key := func(pk, sk string) []types.KeySchemaElement {
		return []types.KeySchemaElement{{AttributeName: aws.String(pk), KeyType: types.KeyTypeHash}, {AttributeName: aws.String(sk), KeyType: types.KeyTypeRange}}
	}
	var defs []types.AttributeDefinition
	for _, a := range []string{"PK", "SK", "PAY-PK", "PAY-SK"} {
		defs = append(defs, types.AttributeDefinition{AttributeName: aws.String(a), AttributeType: types.ScalarAttributeTypeS})
	}
	_, err := env.Client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String(table), BillingMode: types.BillingModePayPerRequest, AttributeDefinitions: defs, KeySchema: key("PK", "SK"),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("PaymentsDue"), KeySchema: key("PAY-PK", "PAY-SK"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"Email"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	st := store.New(env.Client, table, store.OnAmazonDynamoDB())
	if _, err := st.PlanTable(ctx); !errors.Is(err, store.ErrIndexDiffers) || !strings.Contains(err.Error(), "PaymentsDue") {
		t.Fatalf("plan with an index of another shape: %v, want ErrIndexDiffers naming PaymentsDue", err)
	}
	if err := st.Migrate(ctx); !errors.Is(err, store.ErrIndexDiffers) {
		t.Fatalf("migrate: %v, want ErrIndexDiffers", err)
	}
	desc, err := env.Client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(desc.Table.GlobalSecondaryIndexes); n != 1 || desc.Table.GlobalSecondaryIndexes[0].Projection.ProjectionType != types.ProjectionTypeInclude {
		t.Fatalf("migrate touched the indexes: %d of them", n)
	}

	// A table whose PaymentsDue has the code's shape: the plan is the rest,
	// and Migrate does it.
	older := env.Table + "-older2"
	dropProtected(t, env.Client, older)
	_, err = env.Client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String(older), BillingMode: types.BillingModePayPerRequest, AttributeDefinitions: defs, KeySchema: key("PK", "SK"),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("PaymentsDue"), KeySchema: key("PAY-PK", "PAY-SK"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	st = store.New(env.Client, older, store.OnAmazonDynamoDB())
	plan, err := st.PlanTable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(plan, "\n")
	for _, want := range []string{
		"add index GSI1 and wait until it is built", "add index ShipmentsByStatus and wait until it is built",
		"turn on TTL on ExpiresAt", "turn on deletion protection",
		"once: move orders and card checkouts to their list shards", "once: write every customer's finder items",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("plan lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "drop index") || strings.Contains(got, "PaymentsDue") {
		t.Errorf("the plan touches PaymentsDue or drops something on AWS:\n%s", got)
	}
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if plan, err := st.PlanTable(ctx); err != nil || len(plan) != 0 {
		t.Fatalf("after migrate the plan is %q, %v; want nothing", plan, err)
	}
}
