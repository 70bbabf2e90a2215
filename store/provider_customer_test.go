package store_test

import (
	"errors"
	"testing"

	"shop/store"
	"shop/store/payment"
	"shop/store/storetest"
)

// A customer's customers at the card providers: kept once per provider,
// listed in the export, deleted at each provider when the customer is
// erased. A provider down does not stop the erasure: its customer is left
// listed, and FinishDeletions deletes it once the provider answers.
func TestErasureDeletesTheCustomersAtTheProviders(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	ctx, st := ctxT(t), env.Store
	c, err := st.CreateCustomer(ctx, store.NewCustomer{Email: "flo@example.com", Name: "Flo", PasswordHash: "x"})
	if err != nil {
		t.Fatal(err)
	}
	tp, err := payment.NewTestProvider(ctx, st, "http://shop.test")
	if err != nil {
		t.Fatal(err)
	}
	testRef, err := tp.EnsureCustomer(ctx, payment.CustomerRequest{CustomerID: c.ID, Email: c.Email, Name: c.Name, Key: "cus-" + c.ID})
	if err != nil {
		t.Fatal(err)
	}
	fs := newFakeStripe(t)
	for _, kept := range []struct{ provider, ref string }{{payment.ProviderTest, testRef}, {payment.ProviderStripe, "cus_fake_flo"}} {
		if err := st.SetProviderCustomer(ctx, c.ID, kept.provider, kept.ref); err != nil {
			t.Fatal(err)
		}
	}
	// Kept once: the same again is fine, another is refused.
	if err := st.SetProviderCustomer(ctx, c.ID, payment.ProviderStripe, "cus_fake_flo"); err != nil {
		t.Fatalf("the same again: %v", err)
	}
	if err := st.SetProviderCustomer(ctx, c.ID, payment.ProviderStripe, "cus_other"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("another: %v", err)
	}
	d, err := st.CustomerData(ctx, c.ID)
	if err != nil || d.Customer.ProviderCustomers[payment.ProviderTest] != testRef || d.Customer.ProviderCustomers[payment.ProviderStripe] != "cus_fake_flo" {
		t.Fatalf("the export's customer: %+v, %v", d.Customer, err)
	}

	st.EraseProviderCustomersWith(payment.NewProviders(tp, fs.provider(t)))
	fs.down.Store(true)
	if err := st.DeleteCustomer(ctx, c.ID); err != nil {
		t.Fatalf("erasure with Stripe down: %v", err)
	}
	if _, err := st.TestPayCustomer(ctx, testRef); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the test provider's customer: %v", err)
	}
	gone, err := st.Customer(ctx, c.ID)
	if err != nil || !gone.Deleted() || gone.Email != "" || len(gone.ProviderCustomers) != 1 {
		t.Fatalf("erased: %+v, %v", gone, err)
	}
	if left := must(st.ProviderCustomersLeft(ctx)); left[c.ID][payment.ProviderStripe] != "cus_fake_flo" || len(left) != 1 {
		t.Fatalf("left to delete: %v", left)
	}
	if err := st.SetProviderCustomer(ctx, c.ID, "other", "x"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a provider customer kept for an erased customer: %v", err)
	}
	// Still down: still left. Up: deleted, off the list.
	if _, err := st.FinishDeletions(ctx, st.Now()); err != nil {
		t.Fatal(err)
	}
	if left := must(st.ProviderCustomersLeft(ctx)); len(left) != 1 || fs.deletes.Load() != 0 {
		t.Fatalf("while Stripe is down: %v", left)
	}
	fs.down.Store(false)
	if _, err := st.FinishDeletions(ctx, st.Now()); err != nil {
		t.Fatal(err)
	}
	if left := must(st.ProviderCustomersLeft(ctx)); len(left) != 0 || fs.deletes.Load() != 1 {
		t.Fatalf("once Stripe answers: %v, %d deletions at Stripe", left, fs.deletes.Load())
	}
	if gone = must(st.Customer(ctx, c.ID)); len(gone.ProviderCustomers) != 0 || !gone.Deleted() {
		t.Fatalf("erased: %+v", gone)
	}
}
