package storetest

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"
)

// pools are the tables Reused keeps between tests, by name.
var pools = struct {
	sync.Mutex
	byName map[string]*tablePool
}{byName: map[string]*tablePool{}}

// tablePool holds a name's tables free for the next test.
type tablePool struct {
	free []pooledTable
}

// pooledTable is a table and what it held when its first test began (what
// fill and Migrate wrote), by primary key.
type pooledTable struct {
	name  string
	start map[string]map[string]types.AttributeValue
}

// Reused is New for tests that each start from the same items (the demo
// shop, say): the test gets a table of its own, filled by fill the first
// time and taken from a pool after that, and gives it back when it ends
// with what it wrote undone. Finding a test's writes (the keys its
// requests named, whatever client sent them) and undoing them (a few writes) costs DynamoDB
// Local a small part of writing a thousand items into a new table, which
// was most of what a short test cost.
//
// The table is the test's alone while it runs, as with New, and it is
// given back after the test's own cleanups (an app or scheduler over it
// stops first), put back as it was in the background while the next
// tests run. A table that cannot be put back as it was is dropped.
// Every fill under one name must write the same items: a name for each
// (the demo of a day, say).
func Reused(t testing.TB, name string, fill func(t testing.TB, env Env)) Env {
	t.Helper()
	ep := Endpoint(t)
	pool, table := takeTable(name)
	if table.name == "" {
		// Until it is filled and read, the table is dropped when the test
		// ends, as New's are.
		env := newTable(t, func(env Env) { keepTable(t, env, pool, &table) })
		fill(t, env)
		if t.Failed() {
			t.FailNow()
		}
		table.name, table.start = env.Table, byKey(env.Items(t))
		logWrites(env.Table)
		env.Counter.Reset()
		return env
	}
	env := open(t, ep, table.name)
	logWrites(env.Table)
	keepTable(t, env, pool, &table)
	return env
}

// takeTable finds name's pool and a free table in it; a table without a
// name means none is free.
func takeTable(name string) (*tablePool, pooledTable) {
	pools.Lock()
	defer pools.Unlock()
	pool := pools.byName[name]
	if pool == nil {
		pool = &tablePool{}
		pools.byName[name] = pool
	}
	if n := len(pool.free); n > 0 {
		table := pool.free[n-1]
		pool.free = pool.free[:n-1]
		return pool, table
	}
	return pool, pooledTable{}
}

func byKey(items []map[string]types.AttributeValue) map[string]map[string]types.AttributeValue {
	m := make(map[string]map[string]types.AttributeValue, len(items))
	for _, it := range items {
		m[itemKey(it)] = it
	}
	return m
}

// restoring counts the tables being put back in the background: Main
// waits for them before it drops the pools.
var restoring sync.WaitGroup

// keepTable registers the table's return to pool when the test ends (in
// place of New's drop). It is put back in the background: the restore
// (then a scan of the whole table, a few writes) took a short test's slot
// for a good part of a second, while the next test could start on another
// table. A test that finds no table free gets a new one (WaitRestores
// waits for those being put back).
func keepTable(t testing.TB, env Env, pool *tablePool, table *pooledTable) {
	t.Cleanup(func() {
		if table.start == nil { // never filled
			dropTable(t, env.Client, env.Table)
			return
		}
		restoring.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := restoreWritten(ctx, env, takeWrites(env.Table), table.start); err != nil {
				// The test has ended: its log is closed.
				fmt.Fprintf(os.Stderr, "storetest: table %s not reused (%v): dropped\n", env.Table, err)
				_, _ = env.Client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(env.Table)})
				return
			}
			pools.Lock()
			pool.free = append(pool.free, *table)
			pools.Unlock()
		})
	})
}

// WaitRestores waits until the tables of the tests that have ended are
// back in their pools.
func WaitRestores() { restoring.Wait() }

// restore puts the table's items back to start, scanning it whole: what
// the test added is deleted, what it changed or deleted is written again.
// For a table written where the keys were not seen (WrittenElsewhere).
func restore(ctx context.Context, env Env, start map[string]map[string]types.AttributeValue) error {
	var writes []types.WriteRequest
	seen := make(map[string]bool, len(start))
	p := dynamodb.NewScanPaginator(env.Client, &dynamodb.ScanInput{TableName: aws.String(env.Table), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("scan: %w", err)
		}
		for _, it := range out.Items {
			key := itemKey(it)
			seen[key] = true
			was, ok := start[key]
			switch {
			case !ok:
				writes = append(writes, types.WriteRequest{DeleteRequest: &types.DeleteRequest{
					Key: map[string]types.AttributeValue{"PK": it["PK"], "SK": it["SK"]}}})
			case !itemsEqual(it, was):
				writes = append(writes, types.WriteRequest{PutRequest: &types.PutRequest{Item: was}})
			}
		}
	}
	for key, it := range start {
		if !seen[key] {
			writes = append(writes, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
		}
	}
	return batchWrite(ctx, env.Client, env.Table, writes)
}

// itemKey is an item's primary key as one string.
func itemKey(it map[string]types.AttributeValue) string {
	s := func(name string) string {
		if v, ok := it[name].(*types.AttributeValueMemberS); ok {
			return v.Value
		}
		return fmt.Sprint(it[name])
	}
	return s("PK") + "\x00" + s("SK")
}

// batchWrite sends writes 25 a request, a few requests at once, until the
// engine has taken them all.
func batchWrite(ctx context.Context, client *dynamodb.Client, table string, writes []types.WriteRequest) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for batch := range slices.Chunk(writes, 25) {
		g.Go(func() error {
			pending := map[string][]types.WriteRequest{table: batch}
			for len(pending) > 0 {
				out, err := client.BatchWriteItem(gctx, &dynamodb.BatchWriteItemInput{RequestItems: pending})
				if err != nil {
					return fmt.Errorf("batch write: %w", err)
				}
				pending = out.UnprocessedItems
				if len(pending) > 0 {
					time.Sleep(20 * time.Millisecond) // the engine is busy: let it catch up
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// dropPooledTables drops the pools' tables, for an engine that outlives
// the tests. A table it cannot drop goes with the engine at the run's end.
func dropPooledTables(ctx context.Context, client *dynamodb.Client) {
	pools.Lock()
	defer pools.Unlock()
	for _, pool := range pools.byName {
		for _, table := range pool.free {
			_, _ = client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table.name)})
		}
	}
}

// itemsEqual is reflect.DeepEqual for items as the SDK decodes them: a
// restore compares every item of the demo shop, and DeepEqual's reflection
// (slow under the race detector) was a tenth of what a test's newShop cost.
func itemsEqual(a, b map[string]types.AttributeValue) bool {
	if len(a) != len(b) {
		return false
	}
	for name, v := range a {
		w, ok := b[name]
		if !ok || !valuesEqual(v, w) {
			return false
		}
	}
	return true
}

func valuesEqual(a, b types.AttributeValue) bool {
	switch a := a.(type) {
	case *types.AttributeValueMemberS:
		b, ok := b.(*types.AttributeValueMemberS)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberN:
		b, ok := b.(*types.AttributeValueMemberN)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberBOOL:
		b, ok := b.(*types.AttributeValueMemberBOOL)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberNULL:
		b, ok := b.(*types.AttributeValueMemberNULL)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberM:
		b, ok := b.(*types.AttributeValueMemberM)
		return ok && itemsEqual(a.Value, b.Value)
	case *types.AttributeValueMemberL:
		b, ok := b.(*types.AttributeValueMemberL)
		return ok && slices.EqualFunc(a.Value, b.Value, valuesEqual)
	case *types.AttributeValueMemberSS:
		b, ok := b.(*types.AttributeValueMemberSS)
		return ok && slices.Equal(a.Value, b.Value)
	case *types.AttributeValueMemberNS:
		b, ok := b.(*types.AttributeValueMemberNS)
		return ok && slices.Equal(a.Value, b.Value)
	}
	return reflect.DeepEqual(a, b) // B, BS and anything newer
}
