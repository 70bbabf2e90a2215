package storetest_test

import (
	"context"
	"reflect"
	"sort"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
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
// deleted; through the test's client, one no Counter observes, or one
// storetest never sees, as a child process's, when the test says so) are
// undone before the next test gets it, test after test, and a table in
// use is never handed to another test.
func TestReusedTableComesBackAsItWas(t *testing.T) {
	items := []map[string]types.AttributeValue{item("a", "1", "x"), item("a", "2", "y"), item("b", "1", "z")}
	fill := func(t testing.TB, env storetest.Env) { env.PutItems(t, items) }
	ctx := context.Background()
	want := []string{"a/1=x", "a/2=y", "b/1=z"}
	var used string
	t.Run("writes", func(t *testing.T) {
		env := storetest.Reused(t, "check", fill)
		used = env.Table
		if got := keysOf(env.Items(t)); !reflect.DeepEqual(got, want) {
			t.Fatalf("a new table holds %v", got)
		}
		env.PutItems(t, []map[string]types.AttributeValue{item("c", "1", "new"), item("a", "1", "changed")})
		if _, err := env.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(env.Table),
			Key: map[string]types.AttributeValue{"PK": items[1]["PK"], "SK": items[1]["SK"]}}); err != nil {
			t.Fatal(err)
		}
		unobserved(t, env).PutItems(t, []map[string]types.AttributeValue{item("b", "1", "changed elsewhere"), item("d", "1", "new elsewhere")})
	})
	storetest.WaitRestores() // the first test's table is put back in the background
	t.Run("reuses", func(t *testing.T) {
		env := storetest.Reused(t, "check", fill)
		if env.Table != used {
			t.Fatalf("got table %s, not the one given back (%s)", env.Table, used)
		}
		if got := keysOf(env.Items(t)); !reflect.DeepEqual(got, want) {
			t.Fatalf("the reused table holds %v, not the items it started with", got)
		}
		if other := storetest.Reused(t, "check", fill); other.Table == env.Table {
			t.Fatal("a table in use was handed to another test")
		}
		// The next test's writes, to keys the first one wrote too.
		unobserved(t, env).PutItems(t, []map[string]types.AttributeValue{item("a", "1", "again"), item("c", "1", "again")})
		if _, err := env.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(env.Table),
			Key: map[string]types.AttributeValue{"PK": items[2]["PK"], "SK": items[2]["SK"]}}); err != nil {
			t.Fatal(err)
		}
	})
	storetest.WaitRestores()
	t.Run("written elsewhere", func(t *testing.T) {
		env := storetest.Reused(t, "check", fill)
		if env.Table != used {
			t.Fatalf("got table %s, not the one given back (%s)", env.Table, used)
		}
		env.WrittenElsewhere("a client of a process of its own")
		elsewhere(t, env).PutItems(t, []map[string]types.AttributeValue{item("a", "2", "elsewhere"), item("e", "1", "elsewhere")})
	})
	storetest.WaitRestores()
	t.Run("reuses again", func(t *testing.T) {
		env := storetest.Reused(t, "check", fill)
		if env.Table != used {
			t.Fatalf("got table %s, not the one given back (%s)", env.Table, used)
		}
		if got := keysOf(env.Items(t)); !reflect.DeepEqual(got, want) {
			t.Fatalf("the table reused twice holds %v, not the items it started with", got)
		}
	})
}

// unobserved is env's table over a client of its own that no Counter
// observes.
func unobserved(t testing.TB, env storetest.Env) storetest.Env {
	t.Helper()
	client, err := store.NewClient(context.Background(), store.ClientConfig{Endpoint: env.Endpoint})
	if err != nil {
		t.Fatal(err)
	}
	env.Client, env.Counter, env.Store = client, nil, store.New(client, env.Table)
	return env
}

// elsewhere is env's table over a client storetest cannot see, as a
// child process's is.
func elsewhere(t testing.TB, env storetest.Env) storetest.Env {
	t.Helper()
	o := env.Client.Options()
	o.APIOptions = nil
	env.Client, env.Counter, env.Store = dynamodb.New(o), nil, nil
	return env
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
