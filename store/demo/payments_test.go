package demo_test

import (
	"context"
	"strings"
	"testing"

	"shop/store"
	"shop/store/demo"
	"shop/store/payment"
)

// The demo's subscribers paid on the test provider's page: each has a
// customer there, kept on the shop's customer as a payment keeps it; each
// subscription's card is a method the provider saved for that customer;
// each receipt's charge is a payment of that card the provider took, at
// the receipt's amount (the free first days excepted). Nothing is the
// legacy gateway's.
func TestDemoSubscriptionsPayWithTheTestProvidersCards(t *testing.T) {
	env := sharedDemo(t)
	ctx := context.Background()
	st := env.Store
	subscriptions, receipts := 0, 0
	for _, email := range []string{demo.CustomerEmail, "henrik@fikafield.example", "samaneh@fikafield.example"} {
		cred, err := st.CredentialsByEmail(ctx, email)
		if err != nil {
			t.Fatal(err)
		}
		c, err := st.Customer(ctx, cred.CustomerID)
		if err != nil {
			t.Fatal(err)
		}
		ref := c.ProviderCustomers[payment.ProviderTest]
		if at, err := st.TestPayCustomer(ctx, ref); err != nil || at.CustomerID != c.ID || at.Email != email {
			t.Fatalf("%s at the test provider: %q, %+v, %v", email, ref, at, err)
		}
		subs, err := st.Subscriptions(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range subs {
			subscriptions++
			m, err := st.TestPayMethod(ctx, s.Card.Token)
			if err != nil || !s.Card.Saved() || s.Card.Provider != payment.ProviderTest || s.Card.Customer != ref || m.CustomerRef != ref ||
				s.Card.Last4 != "4242" || m.Card.Last4 != "4242" || s.Card.ExpYear != m.Card.ExpYear {
				t.Errorf("%s's %s: card %+v, at the provider %+v, %v", email, s.ProductID, s.Card, m, err)
			}
		}
		page, err := st.RecentReceipts(ctx, c.ID, 100, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Items {
			receipts++
			if r.Kind == store.ReceiptFreeDays {
				continue
			}
			pi, err := st.TestPayIntent(ctx, r.ChargeID)
			if err != nil || r.Provider != payment.ProviderTest || !strings.HasPrefix(r.ChargeID, "pi_test_") || pi.Status != payment.PaymentSucceeded ||
				pi.Amount != r.Amount || pi.CustomerRef != ref || pi.Card == nil || !pi.CreatedAt.Equal(r.ProcessedAt) {
				t.Errorf("%s's receipt %s (%s, %s): at the provider %+v, %v", email, r.Number, r.ChargeID, r.Amount, pi, err)
			}
		}
	}
	if subscriptions != 7 || receipts < 20 {
		t.Errorf("%d demo subscriptions with %d receipts", subscriptions, receipts)
	}
	for _, entity := range []string{"gatewayCard", "gatewayCharge"} {
		if n := len(scanEntities(t, env, entity)); n != 0 {
			t.Errorf("%d items of the legacy gateway's (%s)", n, entity)
		}
	}
}
