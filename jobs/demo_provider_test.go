package jobs_test

import (
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"shop/jobs"
	"shop/store"
	"shop/store/demo"
	"shop/store/payment"
	"shop/store/storetest"
)

// The demo's cards are the test provider's: a payments run over the demo on
// the day it was loaded charges each subscription due that day once,
// through the provider (a succeeded payment in its ledger, of the saved
// card, under the period's key), and a second run charges nothing more;
// staff refunds of a demo order and of a demo receipt go back through the
// provider, in its ledger. The legacy test gateway the runner is given has
// none of the demo's cards: a renewal that went to it would be declined.
func TestDemoPaysThroughTheTestProvider(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	env := storetest.New(t)
	st := env.Store
	if _, err := demo.Load(ctx, st, bcrypt.MinCost); err != nil {
		t.Fatal(err)
	}
	p, err := payment.NewTestProvider(ctx, st, "http://shop.test")
	if err != nil {
		t.Fatal(err)
	}
	providers := payment.NewProviders(p)
	runner := func() *jobs.Runner {
		return jobs.NewRunner(st, payment.NewTestGateway(st), jobs.Config{Replica: "r1", Concurrency: 4, RetryDays: []int{1, 3, 7},
			Payments: providers, BaseURL: "http://shop.test"})
	}
	today := st.Today()
	due, err := st.PaymentsDue(ctx, today, 100, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(due.Items) < 2 {
		t.Fatalf("%d demo subscriptions due on the day it was loaded, want Henrik's payment and retry", len(due.Items))
	}
	intents := env.CountEntities(t, "testPayIntent")
	run, err := runner().Run(ctx, jobs.JobPayments, today, jobs.TriggerCommandLine)
	if err != nil || run.Counts.Charged != len(due.Items) || run.Counts.Declined+run.Counts.Failed != 0 {
		t.Fatalf("payments run over the demo: %+v, %v; %d due", run.Counts, err, len(due.Items))
	}
	if n := env.CountEntities(t, "testPayIntent"); n != intents+len(due.Items) {
		t.Errorf("%d payments at the test provider after the run, %d before, %d due", n, intents, len(due.Items))
	}
	for _, s := range due.Items {
		sub, err := st.SubscriptionConsistent(ctx, s.AccountID, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		receipts, err := st.RecentReceipts(ctx, s.AccountID, 100, "")
		if err != nil {
			t.Fatal(err)
		}
		var r store.Receipt
		for _, x := range receipts.Items {
			if x.SubscriptionID == s.ID && x.PeriodStart.Equal(s.NextPaymentDate) {
				r = x
			}
		}
		if sub.Status != store.SubscriptionActive || sub.Intent != nil || r.Number == "" || r.Provider != payment.ProviderTest || !strings.HasPrefix(r.ChargeID, "pi_test_") {
			t.Fatalf("%s's %s after the run: %+v, receipt %+v", s.Email, s.ProductName, sub, r)
		}
		pi, err := st.TestPayIntent(ctx, r.ChargeID)
		if err != nil || pi.Status != payment.PaymentSucceeded || pi.Amount != r.Amount || pi.MethodRef != s.Card.Token ||
			pi.CustomerRef != s.Card.Customer || pi.Metadata[payment.MetaKey] != (store.PaymentIntent{Period: s.NextPaymentDate, Attempt: s.Attempt + 1}).Key(s.ID) {
			t.Errorf("%s's renewal at the test provider: %+v, %v", s.Email, pi, err)
		}
	}
	again, err := runner().Run(ctx, jobs.JobPayments, today, jobs.TriggerCommandLine)
	if err != nil || again.Counts.Charged != 0 || env.CountEntities(t, "testPayIntent") != intents+len(due.Items) {
		t.Errorf("a second run: %+v, %v", again.Counts, err)
	}

	refunds := payment.NewCardRefunds(providers, nil) // no legacy gateway: the demo's payments are the provider's
	staff := demoCustomer(t, st, demo.StaffEmail)
	ada := demoCustomer(t, st, demo.CustomerEmail)
	orders, err := st.CustomerOrders(ctx, ada.ID, 50, "")
	if err != nil {
		t.Fatal(err)
	}
	refunded := false
	for _, o := range orders.Items {
		d, err := st.OrderDetails(ctx, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		inv, _ := d.Invoice()
		if o.Refunded.Amount != 0 || len(inv.Payments) != 1 || inv.Payments[0].Provider != payment.ProviderTest {
			continue
		}
		ref := strings.Fields(inv.Payments[0].Reference)[0]
		rf, err := st.RefundOrder(ctx, store.OrderRefundRequest{OrderID: o.ID, Key: store.NewID(), Amount: eur(100), Reason: "Late", By: staff}, refunds)
		if err != nil || rf.Status != store.RefundDone {
			t.Fatalf("refund of demo order %s: %+v, %v", o.Label(), rf, err)
		}
		if pi, err := st.TestPayIntent(ctx, ref); err != nil || pi.Refunded != eur(100) {
			t.Errorf("demo order %s's payment at the test provider after its refund: %+v, %v", o.Label(), pi, err)
		}
		refunded = true
		break
	}
	if !refunded {
		t.Fatal("Ada has no demo order paid by card alone to refund")
	}
	receipts, err := st.RecentReceipts(ctx, ada.ID, 100, "")
	if err != nil {
		t.Fatal(err)
	}
	var r store.Receipt // her oldest charged one
	for _, x := range receipts.Items {
		if x.ChargeID != "" {
			r = x
		}
	}
	got, err := st.RefundReceipt(ctx, store.RefundRequest{CustomerID: ada.ID, Number: r.Number, Amount: r.Amount, Reason: "Never arrived", By: staff.ID, Key: store.NewID()},
		refunds, func(store.Receipt) *store.Mail { return nil })
	if err != nil || got.Refund == nil || got.Refund.Status != store.ReceiptRefunded {
		t.Fatalf("refund of demo receipt %s: %+v, %v", r.Number, got, err)
	}
	if pi, err := st.TestPayIntent(ctx, r.ChargeID); err != nil || pi.Refunded != r.Amount {
		t.Errorf("demo receipt %s's payment at the test provider after its refund: %+v, %v", r.Number, pi, err)
	}
}

// demoCustomer is a demo account by its email.
func demoCustomer(t *testing.T, st *store.Store, email string) store.Customer {
	t.Helper()
	cred, err := st.CredentialsByEmail(ctxT(t), email)
	if err != nil {
		t.Fatal(err)
	}
	c, err := st.Customer(ctxT(t), cred.CustomerID)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
