package store_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
	"shop/store/storetest"
)

func signUp(t *testing.T, st *store.Store, name, email string) store.Customer {
	t.Helper()
	c, err := st.CreateCustomer(ctxT(t), store.NewCustomer{Email: email, Name: name, PasswordHash: "h"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// findNames is what FindCustomers answers for typed, as "name <email>"
// with a * for a match by email, over every page of size limit.
func findNames(t *testing.T, st *store.Store, typed string, limit int) []string {
	t.Helper()
	var out []string
	for cursor := ""; ; {
		page, err := st.FindCustomers(ctxT(t), typed, limit, cursor)
		if err != nil {
			t.Fatalf("find %q: %v", typed, err)
		}
		for _, m := range page.Items {
			s := m.Name + " <" + m.Email + ">"
			if m.ByEmail {
				s += "*"
			}
			out = append(out, s)
		}
		if cursor = page.Next; cursor == "" {
			return out
		}
	}
}

// forgetFinders deletes a customer's finder items, as a customer of a
// table made before them has none.
func forgetFinders(t *testing.T, env storetest.Env, id string) {
	t.Helper()
	for _, sk := range []string{"find#name", "find#email"} {
		_, err := env.Client.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String(env.Table), Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "c#" + id}, "SK": &types.AttributeValueMemberS{Value: sk},
		}})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// Staff find customers by the first letters of their name or email, case
// and accents ignored, in one Query a page; a customer matching by both is
// listed once.
func TestFindCustomersByTheStartOfNameOrEmail(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	st := env.Store
	signUp(t, st, "Åsa Öberg", "asa@example.com")
	signUp(t, st, "José Núñez", "jose@example.com")
	signUp(t, st, "Ada Lovelace", "countess@example.com")
	signUp(t, st, "Bob", "ada.b@example.com")
	signUp(t, st, "Adam Smith", "adam@example.com")

	for _, tc := range []struct {
		typed string
		want  []string
	}{
		{"ÅSA", []string{"Åsa Öberg <asa@example.com>"}},
		{"asa ob", []string{"Åsa Öberg <asa@example.com>"}},
		{"jose n", []string{"José Núñez <jose@example.com>"}},
		{"  JOSÉ  ", []string{"José Núñez <jose@example.com>"}},
		// By name and by email, in the order of the matched text; Adam
		// matches by both and is listed once, by name.
		{"ada", []string{"Ada Lovelace <countess@example.com>", "Bob <ada.b@example.com>*", "Adam Smith <adam@example.com>"}},
		{"count", []string{"Ada Lovelace <countess@example.com>*"}},
		{"countess@example.com", []string{"Ada Lovelace <countess@example.com>*"}},
		{"lovelace", nil}, // the start of a name, not any word of it
		{"zed", nil},
		{"   ", nil},
	} {
		if got := findNames(t, st, tc.typed, 10); !slices.Equal(got, tc.want) {
			t.Errorf("find %q: %q, want %q", tc.typed, got, tc.want)
		}
	}
	var page store.Page[store.CustomerMatch]
	env.Once(t, "find customers", func() {
		var err error
		if page, err = st.FindCustomers(ctxT(t), "a", 2, ""); err != nil {
			t.Fatal(err)
		}
	})
	if len(page.Items) != 2 || page.Next == "" {
		t.Fatalf("first page of 2: %+v", page)
	}
	// Paged 2 at a time: six entries start with "a"; Adam's and Åsa's
	// two each fall on one page, so each is listed once.
	want := []string{"Ada Lovelace <countess@example.com>", "Bob <ada.b@example.com>*", "Adam Smith <adam@example.com>", "Åsa Öberg <asa@example.com>"}
	if got := findNames(t, st, "a", 2); !slices.Equal(got, want) {
		t.Fatalf("paged: %q, want %q", got, want)
	}
	if _, err := st.FindCustomers(ctxT(t), "a", 2, "not-a-cursor"); err == nil {
		t.Fatal("a bad cursor is no error")
	}
}

// A name change moves the finder items with it, in the change's
// transaction, and sign-in reads the new name.
func TestRenameCustomerMovesTheFinder(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	st := env.Store
	c := signUp(t, st, "Ada Lovelace", "ada@example.com")
	if err := st.RenameCustomer(ctxT(t), c.ID, c.Email, "Augusta King"); err != nil {
		t.Fatal(err)
	}
	if got := findNames(t, st, "ada", 10); !slices.Equal(got, []string{"Augusta King <ada@example.com>*"}) {
		t.Fatalf("by the old name: %q", got)
	}
	if got := findNames(t, st, "augusta", 10); !slices.Equal(got, []string{"Augusta King <ada@example.com>"}) {
		t.Fatalf("by the new name: %q", got)
	}
	if cred, err := st.CredentialsByEmail(ctxT(t), "ada@example.com"); err != nil || cred.Name != "Augusta King" {
		t.Fatalf("sign-in reads %+v, %v", cred, err)
	}
	if err := st.RenameCustomer(ctxT(t), "nobody", "nobody@example.com", "X"); err == nil {
		t.Fatal("renamed a customer that does not exist")
	}
}

// Customers of a table made before the finders get theirs from the
// backfill, which is idempotent; Migrate runs it once (its marker), and
// never on a new table.
func TestIndexCustomerFindersBackfills(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	st := env.Store
	var old []store.Customer
	for i := range 5 {
		c := signUp(t, st, fmt.Sprintf("Élise %d", i), fmt.Sprintf("elise%d@example.com", i))
		forgetFinders(t, env, c.ID)
		old = append(old, c)
	}
	if got := findNames(t, st, "elise", 10); len(got) != 0 {
		t.Fatalf("found before the backfill: %q", got)
	}
	for range 2 {
		n, err := st.IndexCustomerFinders(ctxT(t))
		if err != nil || n.Customers != 5 || n.Written != 5 || n.Changed != 0 {
			t.Fatalf("backfill: %+v, %v", n, err)
		}
		if got := findNames(t, st, "ELISE", 10); len(got) != 5 {
			t.Fatalf("after the backfill: %q", got)
		}
	}
	if n := env.CountEntities(t, "customerFinder"); n != 10 {
		t.Fatalf("%d finder items, want 10", n)
	}

	// Migrate on this table has the marker: it adds nothing.
	forgetFinders(t, env, old[0].ID)
	if err := st.Migrate(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if got := findNames(t, st, "elise 0", 10); len(got) != 0 {
		t.Fatalf("Migrate backfilled again: %q", got)
	}
	// Without the marker (a table of the previous version), it does.
	_, err := env.Client.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String(env.Table), Key: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "meta"}, "SK": &types.AttributeValueMemberS{Value: "marker#customer-finders-v1"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Migrate(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if got := findNames(t, st, "elise 0", 10); !slices.Equal(got, []string{"Élise 0 <elise0@example.com>"}) {
		t.Fatalf("after Migrate: %q", got)
	}
}

// The backfill running while customers sign up and change their names:
// every customer is found by their name as it stands at the end, never by
// a name the backfill read before a change.
func TestIndexCustomerFindersRacesSignUpsAndRenames(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	st := env.Store
	var old []store.Customer
	for i := range 30 {
		c := signUp(t, st, fmt.Sprintf("before %02d", i), fmt.Sprintf("b%02d@example.com", i))
		forgetFinders(t, env, c.ID)
		old = append(old, c)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for round := range 3 {
		wg.Go(func() {
			if _, err := st.IndexCustomerFinders(ctxT(t)); err != nil {
				errs <- fmt.Errorf("backfill %d: %w", round, err)
			}
		})
	}
	for i := range 20 {
		wg.Go(func() {
			if _, err := st.CreateCustomer(ctxT(t), store.NewCustomer{Email: fmt.Sprintf("n%02d@example.com", i), Name: fmt.Sprintf("during %02d", i), PasswordHash: "h"}); err != nil {
				errs <- err
			}
		})
	}
	for i, c := range old {
		wg.Go(func() {
			if err := st.RenameCustomer(ctxT(t), c.ID, c.Email, fmt.Sprintf("after %02d", i)); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := findNames(t, st, "before", 100); len(got) != 0 {
		t.Errorf("found by a name changed meanwhile: %q", got)
	}
	if got := findNames(t, st, "after", 100); len(got) != 30 {
		t.Errorf("%d found by their new names, want 30", len(got))
	}
	if got := findNames(t, st, "during", 100); len(got) != 20 {
		t.Errorf("%d signed up meanwhile found, want 20", len(got))
	}
	if n := env.CountEntities(t, "customerFinder"); n != 100 {
		t.Errorf("%d finder items, want 100", n)
	}
}
