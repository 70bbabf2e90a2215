package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"shop/store"
	"shop/store/storetest"
)

// recorder is a test as storetest.Shared sees it, keeping its errors and
// cleanups for the test that runs it to look at.
type recorder struct {
	testing.TB
	errors   []string
	cleanups []func()
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }

// A test on a shared table that writes to it fails when it ends, so no
// test adopting sharedShop can change what the tests beside it read; one
// that only reads passes.
func TestSharedTableRefusesWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, write := range []bool{false, true} {
		r := &recorder{TB: t}
		env := storetest.Shared(r, "write-check", func(testing.TB, storetest.Env) {})
		if _, err := env.Store.AllProducts(ctx); err != nil {
			t.Fatal(err)
		}
		if write {
			if err := env.Store.PutProduct(ctx, store.Product{ID: "kt-spoon", Name: "Birch Spoon", Category: "kitchen",
				Price: store.Money{Amount: 990, Currency: store.DefaultCurrency}}); err != nil {
				t.Fatal(err)
			}
		}
		for i := len(r.cleanups) - 1; i >= 0; i-- {
			r.cleanups[i]()
		}
		if failed := len(r.errors) > 0 && strings.Contains(r.errors[0], "wrote"); failed != write {
			t.Errorf("a test that writes: %v, failed: %v (%q)", write, failed, r.errors)
		}
	}
}
