package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"shop/store"
	"shop/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestMigrateIsIdempotent(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	if err := env.Store.Migrate(ctxT(t)); err != nil {
		t.Fatalf("second migrate: %v", err)
	}
	if err := env.Store.Ping(ctxT(t)); err != nil {
		t.Fatalf("ping: %v", err)
	}
}

func TestCustomerCreateAndRead(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	ctx := ctxT(t)
	var c store.Customer
	var err error
	env.Once(t, "create customer", func() {
		c, err = env.Store.CreateCustomer(ctx, store.NewCustomer{Email: " Ada@Example.com ", Name: "Ada", PasswordHash: "h"})
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.Email != "ada@example.com" || c.Role != store.RoleCustomer {
		t.Fatalf("customer = %+v", c)
	}
	env.Once(t, "customer by id (pattern 1)", func() {
		got, err := env.Store.Customer(ctx, c.ID)
		if err != nil || got.Name != "Ada" || got.Email != c.Email || !got.CreatedAt.Equal(c.CreatedAt) {
			t.Errorf("Customer = %+v, %v; want %+v", got, err, c)
		}
	})
	env.Once(t, "credentials by email", func() {
		cr, err := env.Store.CredentialsByEmail(ctx, "ADA@example.com")
		if err != nil || cr.CustomerID != c.ID || cr.PasswordHash != "h" {
			t.Errorf("CredentialsByEmail = %+v, %v", cr, err)
		}
	})
	if _, err := env.Store.CreateCustomer(ctx, store.NewCustomer{Email: "ada@EXAMPLE.com", Name: "Other", PasswordHash: "x"}); !errors.Is(err, store.ErrEmailTaken) {
		t.Fatalf("second sign-up with same email: %v, want ErrEmailTaken", err)
	}
	if _, err := env.Store.Customer(ctx, "nobody"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown customer: %v", err)
	}
	if _, err := env.Store.CredentialsByEmail(ctx, "nobody@example.com"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown email: %v", err)
	}
}

// Twenty sign-ups racing for one address make exactly one customer.
//
// Not parallel: beside other tests' writes, DynamoDB Local times out
// the lock waits of a race like this one.
func TestCustomerSignUpRace(t *testing.T) {
	env := storetest.New(t)
	ctx := ctxT(t)
	const n = 20
	var wg sync.WaitGroup
	results := make([]error, n)
	ids := make([]string, n)
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			c, err := env.Store.CreateCustomer(ctx, store.NewCustomer{Email: "race@example.com", Name: fmt.Sprint("racer ", i), PasswordHash: "h"})
			results[i], ids[i] = err, c.ID
		}()
	}
	close(start)
	wg.Wait()
	winners := 0
	var winner string
	for i, err := range results {
		switch {
		case err == nil:
			winners++
			winner = ids[i]
		case errors.Is(err, store.ErrEmailTaken):
		default:
			t.Errorf("sign-up %d: unexpected error %v", i, err)
		}
	}
	if winners != 1 {
		t.Fatalf("%d sign-ups succeeded, want exactly 1", winners)
	}
	cr, err := env.Store.CredentialsByEmail(ctx, "race@example.com")
	if err != nil || cr.CustomerID != winner {
		t.Fatalf("email item points at %q (%v), want the winner %q", cr.CustomerID, err, winner)
	}
	for i, id := range ids {
		if id == winner || results[i] == nil {
			continue
		}
		if _, err := env.Store.Customer(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("losing sign-up %d left customer %s behind: %v", i, id, err)
		}
	}
}

func seedCatalogue(t *testing.T, st *store.Store, n int) {
	t.Helper()
	ctx := ctxT(t)
	for _, c := range []store.Category{{Slug: "books", Name: "Books"}, {Slug: "music", Name: "Music"}} {
		if err := st.PutCategory(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		cat := "books"
		if i%2 == 1 {
			cat = "music"
		}
		p := store.Product{ID: fmt.Sprintf("p%03d", i), Name: fmt.Sprintf("Item %03d", i), Category: cat,
			Price: store.Money{Amount: int64(100 + i), Currency: "EUR"}}
		if err := st.PutProduct(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCataloguePagination(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	ctx := ctxT(t)
	seedCatalogue(t, env.Store, 25)

	for _, tc := range []struct {
		category string
		want     int
	}{{"", 25}, {"books", 13}, {"music", 12}} {
		t.Run("category="+tc.category, func(t *testing.T) {
			seen := map[string]bool{}
			cursor, pages, prev := "", 0, ""
			for {
				var page store.Page[store.Product]
				var err error
				env.Once(t, "catalogue page", func() { page, err = env.Store.Catalogue(ctx, tc.category, 6, cursor) })
				if err != nil {
					t.Fatal(err)
				}
				pages++
				if len(page.Items) == 0 {
					t.Fatalf("page %d is empty", pages)
				}
				for _, p := range page.Items {
					if seen[p.ID] {
						t.Fatalf("product %s on two pages", p.ID)
					}
					if p.Name < prev {
						t.Fatalf("not sorted by name: %q after %q", p.Name, prev)
					}
					if tc.category != "" && p.Category != tc.category {
						t.Fatalf("product %s of %s in %s", p.ID, p.Category, tc.category)
					}
					seen[p.ID], prev = true, p.Name
				}
				if page.Next == "" {
					break
				}
				cursor = page.Next
			}
			if len(seen) != tc.want {
				t.Fatalf("listed %d products, want %d", len(seen), tc.want)
			}
			if wantPages := (tc.want + 5) / 6; pages != wantPages {
				t.Fatalf("%d pages, want %d (no empty last page)", pages, wantPages)
			}
		})
	}

	first, err := env.Store.Catalogue(ctx, "books", 6, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"!!", "e30", first.Next[:len(first.Next)-3], first.Next} {
		category := "music" // a books cursor must not be accepted for music
		if _, err := env.Store.Catalogue(ctx, category, 6, bad); !errors.Is(err, store.ErrBadCursor) {
			t.Errorf("cursor %q: %v, want ErrBadCursor", bad, err)
		}
	}

	var cats []store.Category
	env.Once(t, "categories", func() { cats, err = env.Store.Categories(ctx) })
	if err != nil || len(cats) != 2 || cats[0].Slug != "books" {
		t.Fatalf("categories = %+v, %v", cats, err)
	}
}

func TestWarehousesAndStock(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	ctx := ctxT(t)
	seedCatalogue(t, env.Store, 3)
	whs := []store.Warehouse{
		{ID: "gbg", Name: "Göteborg", Address: store.Address{Street: "Main", Number: "1", ZipCode: "41111", City: "Göteborg", Country: "Sweden"}},
		{ID: "sto", Name: "Stockholm", Address: store.Address{Street: "Ring", Number: "2", ZipCode: "11122", City: "Stockholm", Country: "Sweden"}},
	}
	for _, w := range whs {
		if err := env.Store.PutWarehouse(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	levels := []store.StockLevel{
		{ProductID: "p000", ProductName: "Item 000", WarehouseID: "gbg", WarehouseName: "Göteborg", City: "Göteborg", Quantity: 5},
		{ProductID: "p000", ProductName: "Item 000", WarehouseID: "sto", WarehouseName: "Stockholm", City: "Stockholm", Quantity: 9},
		{ProductID: "p001", ProductName: "Item 001", WarehouseID: "gbg", WarehouseName: "Göteborg", City: "Göteborg", Quantity: 2},
	}
	for _, l := range levels {
		if err := env.Store.PutStockLevel(ctx, l); err != nil {
			t.Fatal(err)
		}
	}

	env.Once(t, "warehouse by id (pattern 3)", func() {
		w, err := env.Store.Warehouse(ctx, "gbg")
		if err != nil || w.Address.City != "Göteborg" {
			t.Errorf("Warehouse = %+v, %v", w, err)
		}
	})
	env.Once(t, "product by id (pattern 2)", func() {
		p, err := env.Store.Product(ctx, "p000")
		if err != nil || p.Price.Amount != 100 || p.Price.Currency != "EUR" {
			t.Errorf("Product = %+v, %v", p, err)
		}
	})
	env.Once(t, "warehouse list", func() {
		ws, err := env.Store.Warehouses(ctx)
		if err != nil || len(ws) != 2 {
			t.Errorf("Warehouses = %+v, %v", ws, err)
		}
	})
	env.Once(t, "product inventory (pattern 4)", func() {
		got, err := env.Store.ProductStock(ctx, "p000")
		if err != nil || len(got) != 2 || got[0].Quantity+got[1].Quantity != 14 {
			t.Errorf("ProductStock = %+v, %v", got, err)
		}
	})
	env.Once(t, "product page: product and stock", func() {
		p, stock, err := env.Store.ProductWithStock(ctx, "p000")
		if err != nil || p.ID != "p000" || len(stock) != 2 || stock[0].WarehouseID != "sto" {
			t.Errorf("ProductWithStock = %+v %+v, %v", p, stock, err)
		}
	})
	env.Once(t, "warehouse inventory (pattern 14)", func() {
		page, err := env.Store.WarehouseStock(ctx, "gbg", 10, "")
		if err != nil || len(page.Items) != 2 || page.Next != "" || page.Items[0].ProductName != "Item 000" {
			t.Errorf("WarehouseStock = %+v, %v", page, err)
		}
	})
	page, err := env.Store.WarehouseStock(ctx, "gbg", 1, "")
	if err != nil || len(page.Items) != 1 || page.Next == "" {
		t.Fatalf("first page of 1: %+v, %v", page, err)
	}
	page, err = env.Store.WarehouseStock(ctx, "gbg", 1, page.Next)
	if err != nil || len(page.Items) != 1 || page.Items[0].ProductID != "p001" || page.Next != "" {
		t.Fatalf("second page of 1: %+v, %v", page, err)
	}
	if _, _, err := env.Store.ProductWithStock(ctx, "missing"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing product: %v", err)
	}
	if _, err := env.Store.Warehouse(ctx, "missing"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing warehouse: %v", err)
	}
}

func TestSessions(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	clock := &now
	env := storetest.New(t, store.WithClock(func() time.Time { return *clock }))
	ctx := ctxT(t)
	sess := store.Session{ID: "abc", Data: []byte("hello"), ExpiresAt: now.Add(time.Hour)}
	if err := env.Store.SaveSession(ctx, sess, true); err != nil {
		t.Fatal(err)
	}
	env.Once(t, "session by id", func() {
		got, err := env.Store.Session(ctx, "abc")
		if err != nil || string(got.Data) != "hello" {
			t.Errorf("Session = %+v, %v", got, err)
		}
	})
	later := now.Add(2 * time.Hour)
	clock = &later
	if _, err := env.Store.Session(ctx, "abc"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("expired session not yet deleted by TTL: %v, want ErrNotFound", err)
	}
	clock = &now
	if err := env.Store.DeleteSession(ctx, "abc"); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Store.Session(ctx, "abc"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("deleted session: %v", err)
	}
	// A request that loaded the session before it was revoked cannot save
	// it back to life.
	if err := env.Store.SaveSession(ctx, sess, false); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("saving a revoked session: %v, want ErrNotFound", err)
	}
	if _, err := env.Store.Session(ctx, "abc"); !errors.Is(err, store.ErrNotFound) {
		t.Fatal("the revoked session came back")
	}
	if err := env.Store.SaveSession(ctx, store.Session{ID: "new", ExpiresAt: now.Add(time.Hour)}, true); err != nil {
		t.Fatal(err)
	}
	if err := env.Store.SaveSession(ctx, store.Session{ID: "new", ExpiresAt: now.Add(time.Hour)}, true); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a new session over an existing id: %v", err)
	}
}

// Not parallel: beside other tests' writes, DynamoDB Local times out
// the lock waits of a race like this one.
func TestCountAttemptRace(t *testing.T) {
	// A clock that stands still: the attempts all fall in one window.
	env := storetest.New(t, store.WithClock(storetest.NewClock(time.Now(), 0).Now))
	ctx := ctxT(t)
	const n = 15
	var wg sync.WaitGroup
	seen := make(chan int, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := env.Store.CountAttempt(ctx, "login-email", "a@example.com", time.Minute)
			if err != nil {
				t.Error(err)
			}
			seen <- c
		}()
	}
	wg.Wait()
	close(seen)
	counts := map[int]bool{}
	for c := range seen {
		counts[c] = true
	}
	for i := 1; i <= n; i++ {
		if !counts[i] {
			t.Fatalf("count %d never returned: every attempt must get its own number, got %v", i, counts)
		}
	}
}

// Parallel attempts spaced out per email: exactly the free ones pass at
// once, each taking its own slot; the rest are told to wait, and one
// given back frees a slot.
func TestSpaceAttemptRace(t *testing.T) {
	clock := storetest.NewClock(time.Now().Truncate(time.Millisecond), 0) // as the store keeps it
	env := storetest.New(t, store.WithClock(clock.Now))
	ctx := ctxT(t)
	const free, n = 5, 20
	var wg sync.WaitGroup
	var mu sync.Mutex
	passed, waited := 0, 0
	for range n {
		wg.Go(func() {
			err := env.Store.SpaceAttempt(ctx, "login-email", "a@example.com", time.Hour, free, time.Minute)
			var wait *store.WaitError
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				passed++
			case errors.As(err, &wait):
				waited++
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if passed != free || waited != n-free {
		t.Fatalf("%d passed and %d waited, want %d and %d", passed, waited, free, n-free)
	}
	// Past the free ones: a second after the last, one more; then two.
	clock.Set(clock.Now().Add(time.Second))
	if err := env.Store.SpaceAttempt(ctx, "login-email", "a@example.com", time.Hour, free, time.Minute); err != nil {
		t.Fatalf("a second after the last: %v", err)
	}
	var wait *store.WaitError
	if err := env.Store.SpaceAttempt(ctx, "login-email", "a@example.com", time.Hour, free, time.Minute); !errors.As(err, &wait) || wait.Wait != 2*time.Second {
		t.Fatalf("right after: %v, want a wait of 2s", err)
	}
	if err := env.Store.ReturnAttempt(ctx, "login-email", "a@example.com", time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := env.Store.SpaceAttempt(ctx, "login-email", "a@example.com", time.Hour, free, time.Minute); !errors.As(err, &wait) || wait.Wait != time.Second {
		t.Fatalf("after one was given back: %v, want a wait of 1s", err)
	}
}

func TestMarker(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	ctx := ctxT(t)
	if ok, err := env.Store.Marked(ctx, "demo"); err != nil || ok {
		t.Fatalf("Marked before = %v, %v", ok, err)
	}
	if err := env.Store.Mark(ctx, "demo"); err != nil {
		t.Fatal(err)
	}
	if err := env.Store.Mark(ctx, "demo"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("second Mark: %v", err)
	}
	if ok, err := env.Store.Marked(ctx, "demo"); err != nil || !ok {
		t.Fatalf("Marked after = %v, %v", ok, err)
	}
}
