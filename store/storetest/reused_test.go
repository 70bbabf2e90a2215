package storetest_test

import (
	"context"
	"reflect"
	"sort"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

func item(pk, sk, v string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: sk},
		"V": &types.AttributeValueMemberS{Value: v},
	}
}

// A test's writes to a reused table (an item added, one changed, one
// deleted) are undone before the next test gets it, and a table in use is
// never handed to another test.
func TestReusedTableComesBackAsItWas(t *testing.T) {
	items := []map[string]types.AttributeValue{item("a", "1", "x"), item("a", "2", "y"), item("b", "1", "z")}
	fill := func(t testing.TB, env storetest.Env) { env.PutItems(t, items) }
	ctx := context.Background()
	var used string
	t.Run("writes", func(t *testing.T) {
		env := storetest.Reused(t, "check", fill)
		used = env.Table
		if got := keysOf(env.Items(t)); !reflect.DeepEqual(got, []string{"a/1=x", "a/2=y", "b/1=z"}) {
			t.Fatalf("a new table holds %v", got)
		}
		env.PutItems(t, []map[string]types.AttributeValue{item("c", "1", "new"), item("a", "1", "changed")})
		if _, err := env.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(env.Table),
			Key: map[string]types.AttributeValue{"PK": items[1]["PK"], "SK": items[1]["SK"]}}); err != nil {
			t.Fatal(err)
		}
	})
	storetest.WaitRestores() // the first test's table is put back in the background
	t.Run("reuses", func(t *testing.T) {
		env := storetest.Reused(t, "check", fill)
		if env.Table != used {
			t.Fatalf("got table %s, not the one given back (%s)", env.Table, used)
		}
		if got := keysOf(env.Items(t)); !reflect.DeepEqual(got, []string{"a/1=x", "a/2=y", "b/1=z"}) {
			t.Fatalf("the reused table holds %v, not the items it started with", got)
		}
		if other := storetest.Reused(t, "check", fill); other.Table == env.Table {
			t.Fatal("a table in use was handed to another test")
		}
	})
}

func keysOf(items []map[string]types.AttributeValue) []string {
	var keys []string
	for _, it := range items {
		if it["V"] == nil {
			continue // Migrate's
		}
		s := func(n string) string { return it[n].(*types.AttributeValueMemberS).Value }
		keys = append(keys, s("PK")+"/"+s("SK")+"="+s("V"))
	}
	sort.Strings(keys)
	return keys
}
