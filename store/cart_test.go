package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
	"shop/store/storetest"
	"shop/store/storetest/paytest"
)

// steppingClock moves a second on at every reading, so lines added one
// after another have different times.
func steppingClock() store.Option {
	var n atomic.Int64
	start := time.Now()
	return store.WithClock(func() time.Time { return start.Add(time.Duration(n.Add(1)) * time.Second) })
}

func cartProduct(id string, cents int64) store.Product {
	return store.Product{ID: id, Name: "Product " + id, Category: "c", Price: eur(cents)}
}

func cartQty(t *testing.T, c store.Cart) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, l := range c.Lines {
		out[l.ProductID] = l.Quantity
	}
	return out
}

// rawCartItem reads a cart's one item as stored.
func rawCartItem(t *testing.T, env storetest.Env, owner string) map[string]types.AttributeValue {
	t.Helper()
	out, err := env.Client.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(env.Table), Key: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "cart#" + owner}, "SK": &types.AttributeValueMemberS{Value: "cart"},
	}, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item
}

func TestCartAddSetRemoveOneItem(t *testing.T) {
	t.Parallel()
	env := storetest.New(t, steppingClock())
	ctx := ctxT(t)
	st := env.Store
	owner := store.CustomerOwner("c1")
	a, b, c := cartProduct("a", 1000), cartProduct("b", 250), cartProduct("c", 100)

	var cart store.Cart
	var err error
	env.Once(t, "an empty cart", func() { cart, err = st.Cart(ctx, owner) })
	if err != nil || len(cart.Lines) != 0 {
		t.Fatalf("empty cart: %+v, %v", cart, err)
	}
	if err := st.AddToCart(ctx, owner, a, 2); err != nil {
		t.Fatal(err)
	}
	env.Once(t, "add a new line", func() { err = st.AddToCart(ctx, owner, b, 1) })
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddToCart(ctx, owner, c, 1); err != nil {
		t.Fatal(err)
	}
	a.Name, a.Price = "Product a, renamed", eur(1200)
	if err := st.AddToCart(ctx, owner, a, 3); err != nil {
		t.Fatal(err)
	}
	if err := st.AddToCart(ctx, owner, a, 95); !errors.Is(err, store.ErrLineTooBig) {
		t.Fatalf("a line past %d: %v", store.MaxLineQty, err)
	}
	for _, bad := range []int{0, -1, 100} {
		if err := st.AddToCart(ctx, owner, a, bad); !errors.Is(err, store.ErrBadQty) {
			t.Fatalf("add %d: %v", bad, err)
		}
	}
	env.Once(t, "a cart", func() { cart, err = st.Cart(ctx, owner) })
	if err != nil {
		t.Fatal(err)
	}
	if len(cart.Lines) != 3 || cart.Lines[0].ProductID != "a" || cart.Lines[1].ProductID != "b" || cart.Lines[2].ProductID != "c" {
		t.Fatalf("lines not oldest first: %+v", cart.Lines)
	}
	if l := cart.Lines[0]; l.Quantity != 5 || l.ProductName != "Product a, renamed" || l.UnitPrice != eur(1200) {
		t.Fatalf("grown line %+v", l)
	}
	if cart.Total() != eur(5*1200+250+100) || cart.Units() != 7 {
		t.Fatalf("total %v, units %d", cart.Total(), cart.Units())
	}

	env.Once(t, "set a quantity", func() { err = st.SetCartQuantity(ctx, owner, "a", 99) })
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetCartQuantity(ctx, owner, "nope", 2); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("set a missing line: %v", err)
	}
	if err := st.SetCartQuantity(ctx, store.CustomerOwner("nobody"), "a", 2); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("set a line of no cart: %v", err)
	}
	if err := st.SetCartQuantity(ctx, owner, "a", 100); !errors.Is(err, store.ErrBadQty) {
		t.Fatalf("set 100: %v", err)
	}
	env.Once(t, "remove a line", func() { err = st.RemoveFromCart(ctx, owner, "b") })
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []string{owner, store.CustomerOwner("nobody")} {
		if err := st.RemoveFromCart(ctx, o, "b"); err != nil {
			t.Fatalf("removing a missing line: %v", err)
		}
	}
	if err := st.SetCartQuantity(ctx, owner, "c", 0); err != nil {
		t.Fatal(err)
	}
	cart, _ = st.Cart(ctx, owner)
	if got := cartQty(t, cart); len(got) != 1 || got["a"] != 99 {
		t.Fatalf("cart %v", got)
	}
	if n := env.CountEntities(t, "cart"); n != 1 {
		t.Fatalf("%d cart items, want the one", n)
	}

	// A full cart takes no new line, but its lines still grow.
	for i := range store.MaxCartLines - 1 {
		if err := st.AddToCart(ctx, owner, cartProduct(fmt.Sprintf("f%02d", i), 100), 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.AddToCart(ctx, owner, cartProduct("one-too-many", 100), 1); !errors.Is(err, store.ErrCartFull) {
		t.Fatalf("a sixteenth line: %v", err)
	}
	if err := st.AddToCart(ctx, owner, cartProduct("f00", 100), 2); err != nil {
		t.Fatalf("growing a line of a full cart: %v", err)
	}
}

// Forty requests add forty different products to one cart at once: it
// keeps fifteen, and the others are told the cart is full. Forty more add
// three of one product each: it stops at 99.
//
// Not parallel: beside other tests' writes, DynamoDB Local times out
// the lock waits of a race like this one.
func TestCartParallelAddsKeepTheLimits(t *testing.T) {
	env := storetest.New(t)
	ctx := ctxT(t)
	owner := store.VisitorOwner("racer")
	const adders = 40
	run := func(add func(i int) error) (ok int, errs []error) {
		var wg sync.WaitGroup
		res := make([]error, adders)
		start := make(chan struct{})
		for i := range adders {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				res[i] = add(i)
			}()
		}
		close(start)
		wg.Wait()
		for _, err := range res {
			if err == nil {
				ok++
			} else {
				errs = append(errs, err)
			}
		}
		return ok, errs
	}

	ok, errs := run(func(i int) error {
		return env.Store.AddToCart(ctx, owner, cartProduct(fmt.Sprintf("p%02d", i), 100), 1)
	})
	for _, err := range errs {
		if !errors.Is(err, store.ErrCartFull) {
			t.Fatalf("add: %v", err)
		}
	}
	cart, err := env.Store.Cart(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	if ok != store.MaxCartLines || len(cart.Lines) != store.MaxCartLines {
		t.Fatalf("%d adds succeeded, the cart holds %d lines; want %d", ok, len(cart.Lines), store.MaxCartLines)
	}

	other := store.VisitorOwner("same-product")
	ok, errs = run(func(int) error { return env.Store.AddToCart(ctx, other, cartProduct("x", 100), 3) })
	for _, err := range errs {
		if !errors.Is(err, store.ErrLineTooBig) {
			t.Fatalf("add: %v", err)
		}
	}
	cart, _ = env.Store.Cart(ctx, other)
	if q := cartQty(t, cart)["x"]; ok != 33 || q != 99 {
		t.Fatalf("%d adds of 3 succeeded, quantity %d; want 33 and 99", ok, q)
	}
}

func TestMergeCartAndVisitorExpiry(t *testing.T) {
	t.Parallel()
	env := storetest.New(t, steppingClock())
	ctx := ctxT(t)
	st := env.Store
	visitor, customer := store.VisitorOwner("v1"), store.CustomerOwner("c1")
	for id, q := range map[string]int{"a": 2, "b": 1} {
		if err := st.AddToCart(ctx, visitor, cartProduct(id, 100), q); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.AddToCart(ctx, visitor, cartProduct("dropped", 100), 1); err != nil {
		t.Fatal(err)
	}
	item := rawCartItem(t, env, visitor)
	var exp int64
	if err := attributevalue.Unmarshal(item["ExpiresAt"], &exp); err != nil {
		t.Fatalf("visitor cart without expiry: %v", err)
	}
	if d := time.Until(time.Unix(exp, 0)); d < 29*24*time.Hour || d > 31*24*time.Hour {
		t.Fatalf("visitor cart expires in %v, want 30 days", d)
	}

	if err := st.AddToCart(ctx, customer, cartProduct("a", 100), 98); err != nil {
		t.Fatal(err)
	}
	for i := range store.MaxCartLines - 2 {
		if err := st.AddToCart(ctx, customer, cartProduct(fmt.Sprintf("c%02d", i), 100), 1); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.MergeCart(ctx, visitor, customer); err != nil {
		t.Fatal(err)
	}
	cart, _ := st.Cart(ctx, customer)
	got := cartQty(t, cart)
	if len(got) != store.MaxCartLines || got["a"] != 99 || got["b"] != 1 || got["dropped"] != 0 {
		t.Fatalf("merged cart %v: want a capped at 99, b added, the sixteenth line dropped", got)
	}
	if _, ok := rawCartItem(t, env, customer)["ExpiresAt"]; ok {
		t.Fatal("a customer's cart expires")
	}
	if v, _ := st.Cart(ctx, visitor); len(v.Lines) != 0 || rawCartItem(t, env, visitor) != nil {
		t.Fatalf("visitor cart left behind: %+v", v)
	}

	// Into a customer without a cart; and an empty visitor cart is nothing.
	if err := st.AddToCart(ctx, visitor, cartProduct("z", 100), 4); err != nil {
		t.Fatal(err)
	}
	newcomer := store.CustomerOwner("c2")
	if _, err := st.MergeCart(ctx, visitor, newcomer); err != nil {
		t.Fatal(err)
	}
	if c, _ := st.Cart(ctx, newcomer); len(c.Lines) != 1 || c.Lines[0].Quantity != 4 {
		t.Fatalf("newcomer's cart %+v", c)
	}
	if _, err := st.MergeCart(ctx, visitor, newcomer); err != nil {
		t.Fatalf("merging nothing: %v", err)
	}
}

// putLegacyLine writes a cart line of the old shape: one item per line.
func putLegacyLine(t *testing.T, env storetest.Env, owner, productID string, qty int, added time.Time) {
	t.Helper()
	item, err := attributevalue.MarshalMap(map[string]any{
		"PK": "cart#" + owner, "SK": "p#" + productID, "EntityType": "cartLine", "ProductName": "Product " + productID,
		"UnitPrice": 1000, "Currency": "EUR", "Quantity": qty, "AddedAt": added.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Client.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(env.Table), Item: item}); err != nil {
		t.Fatal(err)
	}
}

// Carts of the old shape in a developer's ./data are migrated on first
// read, and by any write that finds no cart item.
func TestOldShapeCartsAreMigrated(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string][2]int{"a": {10, 0}, "b": {10, 0}}, 1000)
	env, st, ctx := f.env, f.env.Store, ctxT(t)
	t0 := time.Now().Add(-time.Hour)

	read := store.CustomerOwner("reader")
	putLegacyLine(t, env, read, "b", 2, t0.Add(time.Minute))
	putLegacyLine(t, env, read, "a", 3, t0)
	cart, err := st.Cart(ctx, read)
	if err != nil {
		t.Fatal(err)
	}
	if len(cart.Lines) != 2 || cart.Lines[0].ProductID != "a" || cart.Lines[0].Quantity != 3 || cart.Lines[1].Quantity != 2 ||
		cart.Lines[0].UnitPrice != eur(1000) || !cart.Lines[0].AddedAt.Equal(t0.UTC().Truncate(time.Millisecond)) {
		t.Fatalf("migrated cart %+v", cart.Lines)
	}
	if n := env.CountEntities(t, "cartLine"); n != 0 {
		t.Fatalf("%d old lines left", n)
	}

	// A write without a read first.
	write := store.CustomerOwner("writer")
	putLegacyLine(t, env, write, "a", 1, t0)
	if err := st.SetCartQuantity(ctx, write, "a", 4); err != nil {
		t.Fatal(err)
	}
	adder := store.VisitorOwner("adder")
	putLegacyLine(t, env, adder, "a", 1, t0)
	if err := st.AddToCart(ctx, adder, cartProduct("b", 1000), 1); err != nil {
		t.Fatal(err)
	}
	if got := cartQty(t, must(st.Cart(ctx, write))); got["a"] != 4 {
		t.Fatalf("writer's cart %v", got)
	}
	if got := cartQty(t, must(st.Cart(ctx, adder))); got["a"] != 1 || got["b"] != 1 {
		t.Fatalf("adder's cart %v", got)
	}
	if n := env.CountEntities(t, "cartLine"); n != 0 {
		t.Fatalf("%d old lines left", n)
	}

	// Checkout from it empties it with one write.
	req := request("from-old-cart", "reader")
	req.CartOwner = read
	for _, l := range cart.Lines {
		req.Lines = append(req.Lines, store.CheckoutLine{ProductID: l.ProductID, Quantity: l.Quantity})
	}
	if _, err := f.pay.Checkout(ctx, req); err != nil {
		t.Fatal(err)
	}
	if c := must(st.Cart(ctx, read)); len(c.Lines) != 0 {
		t.Fatalf("cart after checkout %+v", c.Lines)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// While a checkout is between its quote and its hold, the cart changes in
// another tab: a new line stays in the cart and the order goes through; a
// changed quantity refuses the order, before anything is paid.
func TestCheckoutAndTheCartChangingMeanwhile(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string][2]int{"a": {10, 0}, "b": {10, 0}, "c": {10, 0}}, 1000)
	st, ctx := f.env.Store, ctxT(t)
	owner := store.CustomerOwner("tabs")
	for _, id := range []string{"a", "b"} {
		if err := st.AddToCart(ctx, owner, must(st.Product(ctx, id)), 2); err != nil {
			t.Fatal(err)
		}
	}
	// quoted is req with its quote made now (the summary the customer
	// saw): the hold writes what it quoted, on condition of the cart.
	quoted := func(req store.CheckoutRequest) store.CheckoutRequest {
		req.HoldFor = 30 * time.Minute
		req.Quote = new(must(st.QuoteCheckout(ctx, req)))
		return req
	}
	req := request("tab-1", "tabs", store.CheckoutLine{ProductID: "a", Quantity: 2}, store.CheckoutLine{ProductID: "b", Quantity: 2})
	req.CartOwner = owner
	req = quoted(req)
	if err := st.AddToCart(ctx, owner, must(st.Product(ctx, "c")), 1); err != nil {
		t.Fatal(err)
	}
	f.env.Counter.Reset()
	held, err := st.HoldCheckout(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if ops := f.env.Counter.Ops(); ops["TransactWriteItems"] != 1 {
		t.Fatalf("the hold made %v", ops)
	}
	if _, err := f.pay.Pay(ctx, held, nil); err != nil {
		t.Fatal(err)
	}
	if got := cartQty(t, must(st.Cart(ctx, owner))); len(got) != 1 || got["c"] != 1 {
		t.Fatalf("cart after the order %v, want only the line added meanwhile", got)
	}

	req = request("tab-2", "tabs", store.CheckoutLine{ProductID: "c", Quantity: 1})
	req.CartOwner = owner
	req = quoted(req)
	if err := st.SetCartQuantity(ctx, owner, "c", 3); err != nil {
		t.Fatal(err)
	}
	if _, err := st.HoldCheckout(ctx, req); !errors.Is(err, store.ErrCartChanged) {
		t.Fatalf("checkout of a changed line: %v", err)
	}
	if n, _ := paytest.Payments(t, f.env); n != 1 {
		t.Fatalf("%d payments kept, want the first order's", n)
	}
	if f.stockOf(t, "c") != 10 || f.env.CountEntities(t, "order") != 1 {
		t.Fatal("the refused checkout wrote something")
	}
}
