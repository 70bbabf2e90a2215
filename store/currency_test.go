package store_test

import (
	"context"
	"errors"
	"testing"

	"shop/store"
	"shop/store/storetest"
)

// The table keeps the currency it first met: the same one migrates again,
// another is refused before anything is sold in it.
func TestTableKeepsItsCurrency(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := storetest.New(t, store.WithCurrency("KRW"))
	if got := env.Store.Currency(); got != "KRW" {
		t.Fatalf("Currency() = %q", got)
	}
	again := store.New(env.Client, env.Table, store.WithCurrency("KRW"))
	if err := again.Migrate(ctx); err != nil {
		t.Fatalf("migrate again in KRW: %v", err)
	}
	for _, other := range []store.Option{store.WithCurrency("EUR"), func(*store.Store) {}} {
		s := store.New(env.Client, env.Table, other)
		err := s.Migrate(ctx)
		if !errors.Is(err, store.ErrCurrencyChanged) {
			t.Fatalf("migrate a KRW table as %s: %v, want ErrCurrencyChanged", s.Currency(), err)
		}
	}
	if err := store.New(env.Client, env.Table, store.WithCurrency("XXX")).Migrate(ctx); err == nil || errors.Is(err, store.ErrCurrencyChanged) {
		t.Fatalf("migrate with an unknown currency: %v", err)
	}
}
