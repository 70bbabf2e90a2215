package store_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
	"shop/store/storetest"
)

func homeAddress(street string) store.Address {
	return store.Address{Name: "Ada Lovelace", Street: street, Number: "1", ZipCode: "11122", City: "Stockholm", Country: "SE"}
}

func TestAddressBookAddEditDefaultDelete(t *testing.T) {
	t.Parallel()
	env := storetest.New(t, steppingClock())
	ctx, st := ctxT(t), env.Store

	var empty store.AddressBook
	env.Once(t, "an empty book", func() {
		var err error
		if empty, err = st.Addresses(ctx, "c1"); err != nil {
			t.Fatal(err)
		}
	})
	if len(empty.Addresses) != 0 {
		t.Fatalf("new customer has addresses %v", empty.Addresses)
	}
	var first store.SavedAddress
	env.Costs(t, "the first address (no book yet)", 2, func() {
		var err error
		if first, err = st.AddAddress(ctx, "c1", homeAddress("Storgatan"), false); err != nil {
			t.Fatal(err)
		}
	})
	if !first.Default {
		t.Error("the first address is not the default")
	}
	var second store.SavedAddress
	env.Once(t, "a second address", func() {
		var err error
		if second, err = st.AddAddress(ctx, "c1", homeAddress("Drottninggatan"), false); err != nil {
			t.Fatal(err)
		}
	})
	if second.Default {
		t.Error("the second address took the default")
	}
	if _, err := st.AddAddress(ctx, "c1", store.Address{Street: "x", Country: "Sweden"}, false); err == nil {
		t.Error("a country that is no code was saved")
	}

	edited := homeAddress("Kungsgatan")
	edited.Country = "no"
	env.Once(t, "edit", func() {
		if err := st.UpdateAddress(ctx, "c1", second.ID, edited); err != nil {
			t.Fatal(err)
		}
	})
	env.Once(t, "mark default", func() {
		if err := st.SetDefaultAddress(ctx, "c1", second.ID); err != nil {
			t.Fatal(err)
		}
	})
	book, err := st.Addresses(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	def, ok := book.Default()
	if !ok || def.ID != second.ID || def.Street != "Kungsgatan" || def.Country != "NO" || !def.AddedAt.Equal(second.AddedAt) {
		t.Fatalf("default = %+v %v, want the edited second address", def, ok)
	}
	if len(book.Addresses) != 2 || book.Addresses[1].ID != first.ID || book.Addresses[1].Default {
		t.Fatalf("book = %+v, want the default then the first", book.Addresses)
	}

	for _, err := range []error{
		st.UpdateAddress(ctx, "c1", "nope", edited),
		st.SetDefaultAddress(ctx, "c1", "nope"),
		st.DeleteAddress(ctx, "c1", "nope"),
		st.SetDefaultAddress(ctx, "c2", first.ID), // someone else's
	} {
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a missing address: %v, want ErrNotFound", err)
		}
	}

	env.Once(t, "delete an address that is not the default", func() {
		if err := st.DeleteAddress(ctx, "c1", first.ID); err != nil {
			t.Fatal(err)
		}
	})
	// The first guess is "not the default"; its failed condition answers
	// with the book, so the second request removes both.
	env.Costs(t, "delete the default", 2, func() {
		if err := st.DeleteAddress(ctx, "c1", second.ID); err != nil {
			t.Fatal(err)
		}
	})
	if book, err = st.Addresses(ctx, "c1"); err != nil || len(book.Addresses) != 0 {
		t.Fatalf("after deleting both: %+v, %v", book, err)
	}
	// With its default gone, the next address added becomes it.
	third, err := st.AddAddress(ctx, "c1", homeAddress("Vasagatan"), false)
	if err != nil || !third.Default {
		t.Fatalf("an address added to a book without default: %+v, %v", third, err)
	}
}

// Twenty adds at once to an empty book: exactly MaxAddresses land (the
// first ones race to make the book), the rest are refused, and the book
// has one default.
func TestAddressBookCapHoldsUnderRace(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	ctx := ctxT(t)
	st := env.Patient()
	const tries = 2 * store.MaxAddresses
	var wg sync.WaitGroup
	var mu sync.Mutex
	added, full, defaults := 0, 0, 0
	for i := range tries {
		wg.Go(func() {
			a, err := st.AddAddress(ctx, "c1", homeAddress(fmt.Sprintf("Street %d", i)), i%3 == 0)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				added++
			case errors.Is(err, store.ErrAddressBookFull):
				full++
			default:
				t.Errorf("add %d: %v", i, err)
			}
			if a.Default {
				defaults++
			}
		})
	}
	wg.Wait()
	if added != store.MaxAddresses || full != tries-store.MaxAddresses {
		t.Errorf("%d added and %d refused, want %d and %d", added, full, store.MaxAddresses, tries-store.MaxAddresses)
	}
	book, err := st.Addresses(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if len(book.Addresses) != store.MaxAddresses || !book.Full() {
		t.Errorf("the book holds %d addresses, want %d", len(book.Addresses), store.MaxAddresses)
	}
	n := 0
	for _, a := range book.Addresses {
		if a.Default {
			n++
		}
	}
	if n != 1 || defaults < 1 {
		t.Errorf("%d defaults in the book (%d adds said default), want 1", n, defaults)
	}
}

// Marking every address default while deleting half of them, all at once:
// the book ends with exactly one default that is one of the addresses
// left, or none if the default was deleted last; never one that names a
// deleted address.
func TestAddressBookDefaultHoldsUnderRace(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	ctx := ctxT(t)
	st := env.Patient()
	for round := range 5 {
		customer := fmt.Sprintf("c%d", round)
		var ids []string
		for i := range store.MaxAddresses {
			a, err := st.AddAddress(ctx, customer, homeAddress(fmt.Sprintf("Street %d", i)), false)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, a.ID)
		}
		var wg sync.WaitGroup
		for i, id := range ids {
			wg.Go(func() {
				if err := st.SetDefaultAddress(ctx, customer, id); err != nil && !errors.Is(err, store.ErrNotFound) {
					t.Errorf("default %d: %v", i, err)
				}
			})
			if i%2 == 0 {
				wg.Go(func() {
					if err := st.DeleteAddress(ctx, customer, id); err != nil {
						t.Errorf("delete %d: %v", i, err)
					}
				})
			}
		}
		wg.Wait()
		raw := rawAddressBook(t, env, customer)
		book, err := st.Addresses(ctx, customer)
		if err != nil {
			t.Fatal(err)
		}
		if len(book.Addresses) != store.MaxAddresses/2 {
			t.Fatalf("round %d: %d addresses left, want %d", round, len(book.Addresses), store.MaxAddresses/2)
		}
		if raw != "" {
			if _, ok := book.Find(raw); !ok {
				t.Errorf("round %d: the default %s names a deleted address", round, raw)
			}
		}
		n := 0
		for _, a := range book.Addresses {
			if a.Default {
				n++
			}
		}
		if n > 1 || (raw != "") != (n == 1) {
			t.Errorf("round %d: %d defaults, stored default %q", round, n, raw)
		}
	}
}

// rawAddressBook is the book's stored Default as it is in the table.
func rawAddressBook(t *testing.T, env storetest.Env, customerID string) string {
	t.Helper()
	out, err := env.Client.GetItem(ctxT(t), &dynamodb.GetItemInput{TableName: aws.String(env.Table), Key: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "c#" + customerID}, "SK": &types.AttributeValueMemberS{Value: "addresses"},
	}, ConsistentRead: aws.Bool(true)})
	if err != nil || out.Item == nil {
		t.Fatalf("no address book for %s: %v", customerID, err)
	}
	def, _ := out.Item["Default"].(*types.AttributeValueMemberS)
	if def == nil {
		return ""
	}
	return def.Value
}

func TestRenameAndChangePassword(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	ctx, st := ctxT(t), env.Store
	c, err := st.CreateCustomer(ctx, store.NewCustomer{Email: "Eva@Example.com", Name: "Eva", PasswordHash: "old"})
	if err != nil {
		t.Fatal(err)
	}
	env.Once(t, "rename", func() {
		if err := st.RenameCustomer(ctx, c.ID, c.Email, "Eva Ek"); err != nil {
			t.Fatal(err)
		}
	})
	env.Once(t, "change password", func() {
		if err := st.ChangePassword(ctx, c.ID, c.Email, "old", "new"); err != nil {
			t.Fatal(err)
		}
	})
	if err := st.ChangePassword(ctx, c.ID, c.Email, "old", "other"); !errors.Is(err, store.ErrConflict) {
		t.Errorf("a change from a stale hash: %v, want ErrConflict", err)
	}
	cred, err := st.CredentialsByEmail(ctx, c.Email)
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.Customer(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if cred.Name != "Eva Ek" || got.Name != "Eva Ek" || cred.PasswordHash != "new" {
		t.Errorf("after the changes: credentials %+v, customer %+v", cred, got)
	}
	if err := st.RenameCustomer(ctx, "nobody", c.Email, "X"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("renaming nobody: %v, want ErrNotFound", err)
	}
}
