package store_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
	"shop/store/storetest"
)

// Many guest checkouts of one new address at once make one customer, and
// every one of them gets it; an account's address is refused.
func TestGuestCustomerRacesToOne(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	ctx := ctxT(t)
	const n = 24
	ids := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := env.Store.GuestCustomer(ctx, store.NewGuest{Email: " Guest@Example.com", Name: "Guest", Lang: "en"})
			ids[i], errs[i] = c.ID, err
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || ids[i] != ids[0] {
			t.Fatalf("guest checkout %d: customer %q, %v; the first got %q", i, ids[i], errs[i], ids[0])
		}
	}
	customers := 0
	for _, it := range env.Items(t) {
		if kind, ok := it["EntityType"].(*types.AttributeValueMemberS); ok && kind.Value == "customer" {
			customers++
		}
	}
	if customers != 1 {
		t.Fatalf("%d customers written for one address", customers)
	}
	c, err := env.Store.Customer(ctx, ids[0])
	if err != nil || !c.Guest || c.Email != "guest@example.com" {
		t.Fatalf("the guest customer: %+v, %v", c, err)
	}
	cred, err := env.Store.CredentialsByEmail(ctx, "guest@example.com")
	if err != nil || cred.PasswordHash != "" || cred.CustomerID != c.ID {
		t.Fatalf("the guest's email item: %+v, %v", cred, err)
	}

	if _, err := env.Store.CreateCustomer(ctx, store.NewCustomer{Email: "ada@example.com", Name: "Ada", PasswordHash: "h"}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Store.GuestCustomer(ctx, store.NewGuest{Email: "ADA@example.com", Name: "Not Ada"}); !errors.Is(err, store.ErrEmailTaken) {
		t.Fatalf("a guest checkout of an account's address: %v, want ErrEmailTaken", err)
	}
}
