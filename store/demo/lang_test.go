package demo_test

import (
	"context"
	"testing"

	"shop/store/demo"
)

// The demo's customers read the shop in a language (Samaneh in
// Indonesian), and their subscriptions, receipts' subscriptions and past
// orders carry it, as subscribing and checkout copy it from the record.
func TestDemoCarriesItsCustomersLanguage(t *testing.T) {
	env := sharedDemo(t)
	ctx := context.Background()
	st := env.Store
	for email, want := range map[string]string{demo.CustomerEmail: "en", "henrik@fikafield.example": "en", "samaneh@fikafield.example": "id"} {
		cred, err := st.CredentialsByEmail(ctx, email)
		if err != nil {
			t.Fatal(err)
		}
		c, err := st.Customer(ctx, cred.CustomerID)
		if err != nil {
			t.Fatal(err)
		}
		if c.Lang != want {
			t.Errorf("%s reads the shop in %q, want %q", email, c.Lang, want)
		}
		subs, err := st.Subscriptions(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(subs) == 0 {
			t.Errorf("%s has no subscription", email)
		}
		for _, s := range subs {
			if s.Lang != c.Lang {
				t.Errorf("%s's subscription to %s mails in %q, the customer reads %q", email, s.ProductID, s.Lang, c.Lang)
			}
		}
		orders, err := st.CustomerOrders(ctx, c.ID, 100, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(orders.Items) == 0 {
			t.Errorf("%s has no order", email)
		}
		for _, o := range orders.Items {
			if o.Buyer.Lang != c.Lang {
				t.Errorf("%s's order %s mails in %q, the customer reads %q", email, o.Number, o.Buyer.Lang, c.Lang)
			}
		}
	}
}

// Every demo product has its name and description in Korean and
// Indonesian, so the shop reads whole in each language.
func TestDemoProductsReadInEveryLanguage(t *testing.T) {
	env := sharedDemo(t)
	pg, err := env.Store.Catalogue(context.Background(), "", 100, "")
	if err != nil || len(pg.Items) < 30 {
		t.Fatalf("catalogue: %d products (%v)", len(pg.Items), err)
	}
	for _, p := range pg.Items {
		for _, l := range []string{"ko", "id"} {
			if tx := p.TextIn(l); tx.Name == "" || tx.Description == "" {
				t.Errorf("%s has no %s name or description: %+v", p.ID, l, tx)
			}
		}
	}
}
