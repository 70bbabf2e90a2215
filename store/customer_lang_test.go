package store_test

import (
	"errors"
	"testing"

	"shop/store"
	"shop/store/storetest"
)

// The customer's language is written with the account, changed in one
// request, and refused for an account that is not there.
func TestCustomerLanguage(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	st, ctx := env.Store, ctxT(t)
	c, err := st.CreateCustomer(ctx, store.NewCustomer{Email: "minji@example.com", Name: "Kim Minji", PasswordHash: "h", Lang: "ko"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := st.Customer(ctx, c.ID); err != nil || got.Lang != "ko" {
		t.Fatalf("after sign-up: %q, %v; want ko", got.Lang, err)
	}
	env.Counter.Reset()
	if err := st.SetCustomerLanguage(ctx, c.ID, "id"); err != nil {
		t.Fatal(err)
	}
	if n := env.Counter.Total(); n != 1 {
		t.Errorf("setting the language took %d requests, want 1", n)
	}
	if got, err := st.Customer(ctx, c.ID); err != nil || got.Lang != "id" {
		t.Fatalf("after the change: %q, %v; want id", got.Lang, err)
	}
	if err := st.SetCustomerLanguage(ctx, store.NewID(), "ko"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an unknown customer's language: %v, want ErrNotFound", err)
	}
}
