package store_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"shop/store"
	"shop/store/storetest"
)

// newAccount signs up a customer with the role.
func newAccount(t *testing.T, st *store.Store, name string, role store.Role) store.Customer {
	t.Helper()
	c, err := st.CreateCustomer(ctxT(t), store.NewCustomer{Email: name + "@example.com", Name: name, PasswordHash: "h", Role: role})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func wantOwners(t *testing.T, st *store.Store, want int) {
	t.Helper()
	if n, err := st.Owners(ctxT(t)); err != nil || n != want {
		t.Fatalf("%d owners (%v), want %d", n, err, want)
	}
}

// An owner makes a customer staff, then an owner; the change is on the
// customer and on the email item sign-in reads, and recorded with who and
// when. The last owner cannot step down; deactivating keeps the role but
// stops sign-in, and only an owner may do any of it.
func TestOwnersChangeRoles(t *testing.T) {
	t.Parallel()
	now := time.Date(2031, 3, 4, 9, 30, 0, 0, time.UTC)
	env := storetest.New(t, store.WithClock(storetest.NewClock(now, time.Second).Now))
	st, ctx := env.Store, ctxT(t)
	owner := newAccount(t, st, "olga", store.RoleOwner)
	ada := newAccount(t, st, "ada", store.RoleCustomer)
	wantOwners(t, st, 1)

	var got store.Customer
	var err error
	var ch store.RoleChange
	env.Costs(t, "make a customer staff", 2, func() { got, ch, err = st.ChangeRole(ctx, ada.ID, store.RoleStaff, owner) })
	if err != nil || got.Role != store.RoleStaff || ch.EndsSessions() || ch.From != store.RoleCustomer || ch.To != store.RoleStaff {
		t.Fatalf("make staff: %+v, %+v, %v", got, ch, err)
	}
	if c, err := st.Customer(ctx, ada.ID); err != nil || c.Role != store.RoleStaff {
		t.Fatalf("customer after: %+v, %v", c, err)
	}
	if cred, err := st.CredentialsByEmail(ctx, ada.Email); err != nil || cred.Role != store.RoleStaff {
		t.Fatalf("sign-in reads %+v, %v", cred, err)
	}
	if _, _, err := st.ChangeRole(ctx, ada.ID, store.RoleStaff, owner); !errors.Is(err, store.ErrNoChange) {
		t.Fatalf("staff again: %v", err)
	}
	// Staff cannot change roles, not even their own.
	if _, _, err := st.ChangeRole(ctx, ada.ID, store.RoleOwner, got); !errors.Is(err, store.ErrNotOwner) {
		t.Fatalf("staff making herself owner: %v", err)
	}
	bob := newAccount(t, st, "bob", store.RoleCustomer)
	if _, _, err := st.ChangeRole(ctx, bob.ID, store.RoleStaff, got); !errors.Is(err, store.ErrNotOwner) {
		t.Fatalf("staff making another staff: %v", err)
	}

	// The only owner cannot demote or deactivate themselves.
	if _, _, err := st.ChangeRole(ctx, owner.ID, store.RoleStaff, owner); !errors.Is(err, store.ErrLastOwner) {
		t.Fatalf("last owner stepping down: %v", err)
	}
	if _, _, err := st.Deactivate(ctx, owner.ID, owner); !errors.Is(err, store.ErrLastOwner) {
		t.Fatalf("last owner deactivating themselves: %v", err)
	}
	wantOwners(t, st, 1)
	// With a second owner, the first may step down.
	if _, _, err := st.ChangeRole(ctx, ada.ID, store.RoleOwner, owner); err != nil {
		t.Fatal(err)
	}
	wantOwners(t, st, 2)
	if _, ch, err := st.ChangeRole(ctx, owner.ID, store.RoleStaff, owner); err != nil || !ch.EndsSessions() || ch.From != store.RoleOwner {
		t.Fatalf("stepping down beside another owner: %+v, %v", ch, err)
	}
	wantOwners(t, st, 1)
	// An owner no more: the old owner's next change is refused.
	if _, _, err := st.ChangeRole(ctx, bob.ID, store.RoleStaff, owner); !errors.Is(err, store.ErrNotOwner) {
		t.Fatalf("a former owner: %v", err)
	}

	adaNow, err := st.Customer(ctx, ada.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, ch, err := st.Deactivate(ctx, bob.ID, adaNow); err != nil || !ch.EndsSessions() {
		t.Fatalf("deactivate: %+v, %v", ch, err)
	}
	if cred, err := st.CredentialsByEmail(ctx, bob.Email); err != nil || !cred.Deactivated || cred.Role != store.RoleCustomer {
		t.Fatalf("deactivated bob's credentials: %+v, %v", cred, err)
	}
	if _, _, err := st.Deactivate(ctx, bob.ID, adaNow); !errors.Is(err, store.ErrNoChange) {
		t.Fatalf("deactivated twice: %v", err)
	}
	if c, ch, err := st.Reactivate(ctx, bob.ID, adaNow); err != nil || c.Deactivated || ch.EndsSessions() {
		t.Fatalf("reactivate: %+v, %v", c, err)
	}
	if cred, err := st.CredentialsByEmail(ctx, bob.Email); err != nil || cred.Deactivated {
		t.Fatalf("reactivated bob's credentials: %+v, %v", cred, err)
	}

	var changes []store.RoleChange
	env.Costs(t, "an account's role changes", 1, func() { changes, err = st.RoleChanges(ctx, ada.ID) })
	if err != nil || len(changes) != 2 {
		t.Fatalf("Ada's changes: %+v, %v", changes, err)
	}
	newest := changes[0]
	if newest.Action != store.ActionRole || newest.From != store.RoleStaff || newest.To != store.RoleOwner ||
		newest.ByID != owner.ID || newest.ByName != "olga" || newest.At.IsZero() || !newest.At.After(changes[1].At) {
		t.Fatalf("newest change: %+v (then %+v)", newest, changes[1])
	}
	changes, err = st.RoleChanges(ctx, bob.ID)
	if err != nil || len(changes) != 2 || changes[0].Action != store.ActionReactivate || changes[1].Action != store.ActionDeactivate || changes[1].ByName != "ada" {
		t.Fatalf("Bob's changes: %+v, %v", changes, err)
	}
}

// A deactivated owner no longer counts: deactivating one of two owners
// leaves one, who cannot be deactivated; reactivating counts them again.
func TestDeactivatedOwnersDoNotCount(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	st, ctx := env.Store, ctxT(t)
	a := newAccount(t, st, "a", store.RoleOwner)
	b := newAccount(t, st, "b", store.RoleOwner)
	wantOwners(t, st, 2)
	if _, _, err := st.Deactivate(ctx, b.ID, a); err != nil {
		t.Fatal(err)
	}
	wantOwners(t, st, 1)
	// Deactivated, b is no owner who can act.
	if _, _, err := st.Reactivate(ctx, b.ID, b); !errors.Is(err, store.ErrNotOwner) {
		t.Fatalf("a deactivated owner reactivating themselves: %v", err)
	}
	if _, _, err := st.Deactivate(ctx, a.ID, a); !errors.Is(err, store.ErrLastOwner) {
		t.Fatalf("deactivating the last active owner: %v", err)
	}
	// Demoting the deactivated owner changes no count.
	if _, _, err := st.ChangeRole(ctx, b.ID, store.RoleStaff, a); err != nil {
		t.Fatal(err)
	}
	wantOwners(t, st, 1)
	if _, _, err := st.ChangeRole(ctx, b.ID, store.RoleOwner, a); err != nil {
		t.Fatal(err)
	}
	wantOwners(t, st, 1) // an owner again, still deactivated
	if _, _, err := st.Reactivate(ctx, b.ID, a); err != nil {
		t.Fatal(err)
	}
	wantOwners(t, st, 2)
}

// Two owners demoting each other at the same moment cannot leave the shop
// without one: the count item is in both transactions, so one of them runs
// first and the other finds its owner demoted (or the count at one). And
// two owners stepping down at once: one of them stays.
//
// Not parallel: beside other tests' writes, DynamoDB Local times out the
// lock waits of a race like this one.
func TestOwnersDemotingEachOtherRace(t *testing.T) {
	env := storetest.New(t)
	st := env.Patient()
	ctx := ctxT(t)
	var left store.Customer // the owner the round before left
	for round := range 8 {
		a := newAccount(t, st, fmt.Sprintf("a%d", round), store.RoleOwner)
		b := newAccount(t, st, fmt.Sprintf("b%d", round), store.RoleOwner)
		if left.ID != "" {
			if _, _, err := st.Deactivate(ctx, left.ID, a); err != nil {
				t.Fatal(err)
			}
		}
		wantOwners(t, st, 2)
		// Odd rounds: each demotes the other; even rounds: each steps down.
		target := func(self, other store.Customer) string {
			if round%2 == 1 {
				return other.ID
			}
			return self.ID
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		start := make(chan struct{})
		for i, pair := range [][2]store.Customer{{a, b}, {b, a}} {
			wg.Go(func() {
				<-start
				_, _, errs[i] = st.ChangeRole(ctx, target(pair[0], pair[1]), store.RoleStaff, pair[0])
			})
		}
		close(start)
		wg.Wait()
		ok := 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case errors.Is(err, store.ErrNotOwner), errors.Is(err, store.ErrLastOwner), errors.Is(err, store.ErrConflict):
			default:
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if ok != 1 {
			t.Fatalf("round %d: %d of two demotions passed: %v", round, ok, errs)
		}
		wantOwners(t, st, 1)
		// The count is true: one of the two is an owner.
		owners := 0
		for _, c := range []store.Customer{a, b} {
			got, err := st.Customer(ctx, c.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Role == store.RoleOwner {
				owners++
				left = got
			}
		}
		if owners != 1 {
			t.Fatalf("round %d: %d of the two are owners", round, owners)
		}
	}
}
