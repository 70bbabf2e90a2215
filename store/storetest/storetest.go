// Package storetest gives each test its own table in one DynamoDB Local per
// test binary (or in the engine DYNAMODB_ENDPOINT names). Tests never mock
// the store.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
	"shop/store/dynamolocal"
)

var (
	startOnce sync.Once
	engine    *dynamolocal.Engine
	endpoint  string
	startErr  error
)

// Main runs the package's tests and stops the engine they started. Call it
// from TestMain. Each after runs once the tests have, with their exit code,
// and returns the code to exit with (a check over what the tests saw).
func Main(m *testing.M, after ...func(code int) int) {
	code := m.Run()
	restoring.Wait()
	if n := restoresMissed.Load(); n > 0 {
		fmt.Fprintf(os.Stderr, "storetest: %d restores of reused tables missed writes (%s)\n", n, CheckRestoresVariable)
		if code == 0 {
			code = 1
		}
	}
	for _, f := range after {
		code = f(code)
	}
	dropSharedTables()
	if engine != nil {
		engine.Stop()
	}
	os.Exit(code)
}

// Endpoint returns the address of the shared engine, starting it on first use.
func Endpoint(t testing.TB) string {
	t.Helper()
	startOnce.Do(func() {
		// A test run's one engine (testengine), or one a developer keeps
		// running between runs.
		for _, name := range []string{dynamolocal.SharedEndpointVariable, "DYNAMODB_ENDPOINT"} {
			if ep := os.Getenv(name); ep != "" {
				endpoint = ep
				return
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // dynamolocal waits up to 4
		defer cancel()
		engine, startErr = dynamolocal.Start(ctx, dynamolocal.Options{})
		if engine != nil {
			endpoint = engine.Endpoint
		}
	})
	if startErr != nil {
		t.Fatalf("start DynamoDB Local: %v", startErr)
	}
	return endpoint
}

// Counter counts DynamoDB operations by name, to prove how many requests an
// access pattern costs.
type Counter struct {
	mu     sync.Mutex
	ops    map[string]int
	writes map[string]int // since the counter was made: Reset keeps them
}

func (c *Counter) ObserveDynamoDB(op string, _ time.Duration, _ store.Capacity, _ error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ops == nil {
		c.ops = map[string]int{}
	}
	c.ops[op]++
	switch op {
	case "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems":
		if c.writes == nil {
			c.writes = map[string]int{}
		}
		c.writes[op]++
	}
}

// Total is the number of operations since the last Reset.
func (c *Counter) Total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.ops {
		n += v
	}
	return n
}

// Ops is a copy of the counts by operation.
func (c *Counter) Ops() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.ops))
	for k, v := range c.ops {
		out[k] = v
	}
	return out
}

// Reset forgets the counts.
func (c *Counter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ops = nil
}

// Env is one test's table.
type Env struct {
	Store    *store.Store
	Client   *dynamodb.Client // for assertions a request path never makes (Scan)
	Counter  *Counter
	Endpoint string
	Table    string
}

// New creates a fresh table for this test and a store over it that counts
// its requests.
func New(t testing.TB, opts ...store.Option) Env {
	t.Helper()
	// Registered before the test's own cleanups, so it runs after them (an
	// app or scheduler over the table stops first). DynamoDB Local slows
	// down as tables pile up in it.
	return newTable(t, func(env Env) { t.Cleanup(func() { dropTable(t, env.Client, env.Table) }) }, opts...)
}

// newTable creates a table named for no one else and migrates it; made
// sees it before it is created, to register what becomes of it when the
// test ends.
func newTable(t testing.TB, made func(Env), opts ...store.Option) Env {
	t.Helper()
	ep := Endpoint(t)
	var b [6]byte
	_, _ = rand.Read(b[:])
	table := fmt.Sprintf("test-%s", hex.EncodeToString(b[:]))
	counter := &Counter{}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client, err := store.NewClient(ctx, store.ClientConfig{Endpoint: ep}, counter)
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	st := store.New(client, table, opts...)
	env := Env{Store: st, Client: client, Counter: counter, Endpoint: ep, Table: table}
	made(env)
	if err := st.Migrate(ctx); err != nil {
		t.Fatalf("migrate %s: %v", table, err)
	}
	counter.Reset()
	return env
}

// shared are the tables Shared made, by name, each filled once per test
// binary.
var shared = struct {
	sync.Mutex
	tables map[string]*sharedTable
}{tables: map[string]*sharedTable{}}

type sharedTable struct {
	sync.Mutex
	table  string
	filled bool
	failed string // why filling it failed: later tests fail with it too
}

// Shared is a table for tests that only read it, made and filled once per
// test binary (under name) and dropped once the tests have run (Main): a
// test that needs the demo shop, say, gets a loaded one in a few
// milliseconds instead of a table of its own with a thousand items
// written into it. Each call has its own store and Counter over the table
// (opts apply to that store; the first caller's fill the table), so
// request counts stay the test's own while tests run side by side.
//
// A test on a shared table must not write to it: no orders, carts,
// customers, stock or sign-ins (a sign-in writes the customer's record and
// counts toward the sign-in limit). A write through the returned Env's
// store, or through any client observed by its Counter (a web app the test
// serves over it), fails the test when it ends. A test that writes takes
// New (and fills its own table). fill runs once, in the first test that
// asks; if it fails, every test asking for name fails.
func Shared(t testing.TB, name string, fill func(t testing.TB, env Env), opts ...store.Option) Env {
	t.Helper()
	ep := Endpoint(t)
	shared.Lock()
	st := shared.tables[name]
	if st == nil {
		st = &sharedTable{}
		shared.tables[name] = st
	}
	shared.Unlock()

	st.Lock()
	defer st.Unlock()
	if st.failed != "" {
		t.Fatalf("shared table %q: %s", name, st.failed)
	}
	if !st.filled {
		// A fill that fails (t.Fatal ends this goroutine) leaves its
		// reason for the tests after it.
		st.failed = "filling it failed in an earlier test"
		var b [6]byte
		_, _ = rand.Read(b[:])
		st.table = fmt.Sprintf("test-%s-%s", name, hex.EncodeToString(b[:]))
		env := open(t, ep, st.table, opts...)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if err := env.Store.Migrate(ctx); err != nil {
			t.Fatalf("migrate %s: %v", st.table, err)
		}
		env.Counter.Reset()
		fill(t, env)
		if t.Failed() {
			t.FailNow()
		}
		st.filled, st.failed = true, ""
	}
	env := open(t, ep, st.table, opts...)
	t.Cleanup(func() {
		env.Counter.mu.Lock()
		defer env.Counter.mu.Unlock()
		if len(env.Counter.writes) > 0 {
			t.Errorf("the test wrote %v to the shared table %q that other tests read: it needs a table of its own (storetest.New)", env.Counter.writes, name)
		}
	})
	return env
}

// open is a store over table with a Counter of its own.
func open(t testing.TB, ep, table string, opts ...store.Option) Env {
	t.Helper()
	counter := &Counter{}
	client, err := store.NewClient(context.Background(), store.ClientConfig{Endpoint: ep}, counter)
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	return Env{Store: store.New(client, table, opts...), Client: client, Counter: counter, Endpoint: ep, Table: table}
}

// dropSharedTables drops what Shared made, for an engine that outlives
// the tests (DYNAMODB_ENDPOINT).
func dropSharedTables() {
	restoring.Wait() // tables being put back into the pools dropped below
	shared.Lock()
	defer shared.Unlock()
	if endpoint == "" || engine != nil {
		return // none made, or in memory that goes with the engine
	}
	client, err := store.NewClient(context.Background(), store.ClientConfig{Endpoint: endpoint})
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dropPooledTables(ctx, client)
	for _, st := range shared.tables {
		if st.table != "" {
			_, _ = client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(st.table)})
		}
	}
}

// dropTable deletes a test's table; one the test deleted itself, or never
// got to create, is no error.
func dropTable(t testing.TB, client *dynamodb.Client, table string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err := client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	var gone *types.ResourceNotFoundException
	if err != nil && !errors.As(err, &gone) {
		t.Errorf("drop table %s: %v", table, err)
	}
}

// Once asserts that fn costs exactly one DynamoDB request.
func (e Env) Once(t testing.TB, what string, fn func()) {
	t.Helper()
	e.Costs(t, what, 1, fn)
}

// CountEntities scans the test's table for items of one EntityType. Only
// tests scan: they check that nothing half-written was left behind.
func (e Env) CountEntities(t testing.TB, entityType string) int {
	t.Helper()
	expr, err := expression.NewBuilder().WithFilter(expression.Name("EntityType").Equal(expression.Value(entityType))).Build()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	p := dynamodb.NewScanPaginator(e.Client, &dynamodb.ScanInput{
		TableName: aws.String(e.Table), FilterExpression: expr.Filter(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatalf("scan: %v", err)
		}
		n += int(out.Count)
	}
	return n
}

// Items reads every item of the test's table, to copy what a slow setup
// wrote into the tables of later tests (PutItems).
func (e Env) Items(t testing.TB) []map[string]types.AttributeValue {
	t.Helper()
	var items []map[string]types.AttributeValue
	p := dynamodb.NewScanPaginator(e.Client, &dynamodb.ScanInput{TableName: aws.String(e.Table), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatalf("scan: %v", err)
		}
		items = append(items, out.Items...)
	}
	return items
}

// PutItems writes items into the test's table as they are, 25 a request,
// a few requests at once (the demo shop with its history is over a
// thousand items).
func (e Env) PutItems(t testing.TB, items []map[string]types.AttributeValue) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	writes := make([]types.WriteRequest, len(items))
	for i, it := range items {
		writes[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
	}
	if err := batchWrite(ctx, e.Client, e.Table, writes); err != nil {
		t.Fatal(err)
	}
}

// Clock is a settable clock for store.WithClock. Each read moves it on by
// Tick (a millisecond makes two charges' times differ, as a real clock
// would; zero stands still).
type Clock struct {
	mu   sync.Mutex
	t    time.Time
	Tick time.Duration
}

// NewClock returns a clock standing at t that moves tick per read.
func NewClock(t time.Time, tick time.Duration) *Clock { return &Clock{t: t, Tick: tick} }

// Now reads the clock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(c.Tick)
	return c.t
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// Costs asserts that fn costs exactly want DynamoDB requests.
func (e Env) Costs(t testing.TB, what string, want int, fn func()) {
	t.Helper()
	e.Counter.Reset()
	fn()
	if n := e.Counter.Total(); n != want {
		t.Errorf("%s: %d DynamoDB requests %v, want %d", what, n, e.Counter.Ops(), want)
	}
}

// Patient is a store on the test's table over a client that keeps
// retrying what DynamoDB Local could not take: with hundreds of
// transactions at once on two cores (more so under the race detector, and
// beside other tests) it times out waiting for its own item locks ("this
// request will succeed in actual DynamoDB"), and the SDK's retry quota
// runs dry. Each retry carries the transaction's first ClientRequestToken,
// so a retried claim cannot count twice.
func (e Env) Patient(opts ...store.Option) *store.Store {
	o := e.Client.Options()
	o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
		so.MaxAttempts = 12
		so.MaxBackoff = 2 * time.Second
		so.RateLimiter = ratelimit.None
	})
	return store.New(dynamodb.New(o), e.Table, opts...)
}
