package store_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
	"shop/store/storetest"
)

func ids(drops []store.Drop) []string {
	var out []string
	for _, d := range drops {
		out = append(out, d.ID)
	}
	return out
}

func sortedIDs(drops []store.Drop) string {
	return fmt.Sprint(slices.Sorted(slices.Values(ids(drops))))
}

// More than a page of drops that have closed does not push the one still
// open off the first page of /drops: closed drops are outside the key
// condition, not filtered out of a page the limit already cut.
func TestPublishedDropsShowTheOpenDropBehindPastOnes(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	clock := storetest.NewClock(t0, 0)
	env := storetest.New(t, store.WithClock(clock.Now))
	ctx := ctxT(t)
	const pageSize = 5
	for range 2*pageSize + 1 { // opened first, closed within the hour
		newDrop(t, env.Store, 3, t0, t0.Add(time.Hour))
	}
	open := newDrop(t, env.Store, 3, t0.Add(90*time.Minute), t0.Add(7*24*time.Hour))
	clock.Set(t0.Add(2 * time.Hour))
	var page store.Page[store.Drop]
	var err error
	env.Once(t, "the first page of /drops", func() { page, err = env.Store.PublishedDrops(ctx, pageSize, "") })
	if err != nil || len(page.Items) != 1 || page.Items[0].ID != open.ID || page.Next != "" {
		t.Fatalf("first page: %v (next %q), %v; want only the open drop %s", ids(page.Items), page.Next, err, open.ID)
	}
}

// /drops lists open and coming drops by closing time, soonest first. A
// "show more" link whose last drop closed since is the top of the list
// (the next drop still open), not a refused cursor; a cursor of another
// list is refused.
func TestPublishedDropsByClosingTime(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	clock := storetest.NewClock(t0, 0)
	env := storetest.New(t, store.WithClock(clock.Now))
	ctx := ctxT(t)
	late := newDrop(t, env.Store, 3, t0, t0.Add(3*time.Hour))
	coming := newDrop(t, env.Store, 3, t0.Add(time.Hour), t0.Add(2*time.Hour))
	soon := newDrop(t, env.Store, 3, t0, t0.Add(time.Hour))
	all, err := env.Store.PublishedDrops(ctx, 10, "")
	if got, want := fmt.Sprint(ids(all.Items)), fmt.Sprint([]string{soon.ID, coming.ID, late.ID}); err != nil || got != want {
		t.Fatalf("drops %s, %v; want closing soonest first %s", got, err, want)
	}
	first, err := env.Store.PublishedDrops(ctx, 1, "")
	if err != nil || len(first.Items) != 1 || first.Items[0].ID != soon.ID || first.Next == "" {
		t.Fatalf("first page: %v next %q, %v", ids(first.Items), first.Next, err)
	}
	clock.Set(t0.Add(90 * time.Minute)) // soon has closed; coming is open
	next, err := env.Store.PublishedDrops(ctx, 1, first.Next)
	if err != nil || len(next.Items) != 1 || next.Items[0].ID != coming.ID {
		t.Fatalf("the page after a closed drop: %v, %v; want %s", ids(next.Items), err, coming.ID)
	}
	other, err := env.Store.AllDrops(ctx, 1, "")
	if err != nil || other.Next == "" {
		t.Fatalf("staff list: %v", err)
	}
	if _, err := env.Store.PublishedDrops(ctx, 1, other.Next); !errors.Is(err, store.ErrBadCursor) {
		t.Fatalf("a cursor of the staff list: %v, want ErrBadCursor", err)
	}
	// Cancelled or closed early, a drop leaves /drops at once.
	if err := env.Store.SetDropStatus(ctx, late.ID, store.DropCancelled); err != nil {
		t.Fatal(err)
	}
	left, err := env.Store.PublishedDrops(ctx, 10, "")
	if got := fmt.Sprint(ids(left.Items)); err != nil || got != fmt.Sprint([]string{coming.ID}) {
		t.Fatalf("after cancelling %s: %s, %v", late.ID, got, err)
	}
}

// The reconcile step's list reads only product drops past their deadline
// and still open: one Query, however many drops were closed before.
func TestEndedProductDropsReadsOnlyDropsToClose(t *testing.T) {
	t.Parallel()
	f := newProductDropFixture(t, 50, 50)
	st, ctx := f.env.Store, ctxT(t)
	t0 := f.clock.Now()
	var done []store.Drop
	for range 3 {
		d, err := f.teaDrop(t, 2)
		if err != nil {
			t.Fatal(err)
		}
		done = append(done, d)
	}
	ending, err := f.teaDrop(t, 2)
	if err != nil {
		t.Fatal(err)
	}
	later, err := st.CreateDrop(ctx, store.NewDrop{Title: "Later tea", Quantity: 2, Opens: t0, Closes: t0.Add(72 * time.Hour),
		ProductID: "tea", Price: eur(1500), RedeemWithin: store.DefaultRedeemWithin})
	if err != nil {
		t.Fatal(err)
	}
	newDrop(t, st, 3, t0, t0.Add(time.Hour)) // no product: nothing to give back
	for i, d := range done {
		to := store.DropClosed
		if i == 0 {
			to = store.DropCancelled
		}
		if err := st.SetDropStatus(ctx, d.ID, to); err != nil {
			t.Fatal(err)
		}
	}
	f.clock.Set(t0.Add(48 * time.Hour))
	var ended []store.Drop
	f.env.Once(t, "ended product drops", func() { ended, err = st.EndedProductDrops(ctx) })
	if err != nil || len(ended) != 1 || ended[0].ID != ending.ID || ended[0].ProductID != "tea" || !ended[0].Closes.Equal(ending.Closes) {
		t.Fatalf("ended: %+v, %v; want %s alone (not %s, still running)", ended, err, ending.ID, later.ID)
	}
	if err := st.SetDropStatus(ctx, ending.ID, store.DropClosed); err != nil {
		t.Fatal(err)
	}
	if ended, err := st.EndedProductDrops(ctx); err != nil || len(ended) != 0 {
		t.Fatalf("after closing it: %+v, %v", ended, err)
	}
}

// oldDropKeys turns a drop into one written before drops were keyed by
// closing time: GSI1-SK <opens>#id if it is on /drops (or was: cancelled
// drops kept their keys), and no entry in the list of drops to close.
func oldDropKeys(t *testing.T, env storetest.Env, d store.Drop) {
	t.Helper()
	ctx := ctxT(t)
	key := map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "subject#" + d.ID},
		"SK": &types.AttributeValueMemberS{Value: "info"},
	}
	if d.Published {
		upd := expression.Set(expression.Name("GSI1-PK"), expression.Value("drops")).
			Set(expression.Name("GSI1-SK"), expression.Value(d.Opens.UTC().Format("2006-01-02T15:04:05.000Z07:00")+"#"+d.ID))
		expr, err := expression.NewBuilder().WithUpdate(upd).Build()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := env.Client.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(env.Table), Key: key,
			UpdateExpression: expr.Update(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values()}); err != nil {
			t.Fatal(err)
		}
	}
	key["SK"] = &types.AttributeValueMemberS{Value: "closing"}
	if _, err := env.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(env.Table), Key: key}); err != nil {
		t.Fatal(err)
	}
}

// `shop migrate` moves drops of the old shape: published ones get their
// closing-time key and are on /drops again, one cancelled leaves it, and
// product drops still open are listed for the reconcile step. Run twice, it
// changes nothing more.
func TestMigrateMovesDropsToClosingTimeKeys(t *testing.T) {
	t.Parallel()
	f := newProductDropFixture(t, 50, 50)
	st, env, ctx := f.env.Store, f.env, ctxT(t)
	t0 := f.clock.Now()
	plain := newDrop(t, st, 3, t0, t0.Add(24*time.Hour))
	tea, err := f.teaDrop(t, 2)
	if err != nil {
		t.Fatal(err)
	}
	hidden, err := st.CreateDrop(ctx, store.NewDrop{Title: "Hidden tea", Quantity: 2, Opens: t0, Closes: t0.Add(24 * time.Hour),
		ProductID: "tea", Price: eur(1500), RedeemWithin: store.DefaultRedeemWithin})
	if err != nil {
		t.Fatal(err)
	}
	gone := newDrop(t, st, 3, t0, t0.Add(24*time.Hour))
	if err := st.SetDropStatus(ctx, gone.ID, store.DropCancelled); err != nil {
		t.Fatal(err)
	}
	for _, d := range []store.Drop{plain, tea, hidden, gone} {
		oldDropKeys(t, env, d)
	}
	// A table of the old version has not had its product drops listed.
	if _, err := env.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(env.Table), Key: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "meta"}, "SK": &types.AttributeValueMemberS{Value: "marker#drops-closing-v1"},
	}}); err != nil {
		t.Fatal(err)
	}
	if listed, err := st.PublishedDrops(ctx, 10, ""); err != nil || len(listed.Items) != 0 {
		t.Fatalf("before the migration /drops lists %v, %v: the test's old keys are not old", ids(listed.Items), err)
	}

	wantListed := func(when string) {
		t.Helper()
		listed, err := st.PublishedDrops(ctx, 10, "")
		if got, want := sortedIDs(listed.Items), sortedIDs([]store.Drop{plain, tea}); err != nil || got != want {
			t.Fatalf("%s /drops lists %s, %v; want %s", when, got, err, want)
		}
	}
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	wantListed("after the migration")
	env.Counter.Reset()
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	// Again: the rekeying Query finds nothing (nor does the API keys'
	// one), and the product drops were listed once.
	if ops := env.Counter.Ops(); ops["Query"] != 2 || ops["UpdateItem"]+ops["TransactWriteItems"] != 0 {
		t.Errorf("a second migration made %v, want two Queries and no writes of drops", ops)
	}
	wantListed("after a second migration")
	f.clock.Set(t0.Add(48 * time.Hour))
	ended, err := st.EndedProductDrops(ctx)
	if got, want := sortedIDs(ended), sortedIDs([]store.Drop{tea, hidden}); err != nil || got != want {
		t.Fatalf("ended product drops after the migration: %s, %v; want %s", got, err, want)
	}
}
