package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"shop/jobs"
	"shop/store"
	"shop/store/payment"
	stripepay "shop/store/payment/stripe"
)

// stripeStandIn answers the adapter's refund requests as Stripe's API
// does: 500 while down, a new refund pending, and a read of it with the
// status set.
func stripeStandIn(t *testing.T, down *atomic.Bool, status *atomic.Value, creates *atomic.Int32) *stripepay.Provider {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if down.Load() {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `{"error":{"type":"api_error","message":"down (test)"}}`)
			return
		}
		st := payment.RefundPending
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/v1/refunds":
			creates.Add(1)
		case r.Method == http.MethodGet && r.URL.Path == "/v1/refunds/re_job_1":
			st = status.Load().(string)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":{"type":"invalid_request_error","code":"resource_missing","message":"no such thing"}}`)
			return
		}
		fmt.Fprintf(w, `{"id":"re_job_1","object":"refund","amount":2000,"currency":"eur","status":%q,"payment_intent":"pi_job"}`, st)
	}))
	t.Cleanup(srv.Close)
	none := int64(0)
	p, err := stripepay.New(stripepay.Config{SecretKey: "sk_test_job", WebhookSecret: "whsec_job", APIURL: srv.URL, MaxNetworkRetries: &none})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// An order paid at Stripe is refunded while Stripe is down: the refund
// waits. The card refunds job, its wait over, makes it at Stripe (which
// answers pending: not counted refunded, still listed), and a run after
// reads it there, succeeded: done, off the list, one refund at Stripe.
func TestCardRefundsJobRetriesAStripeRefundAndConfirmsIt(t *testing.T) {
	t.Parallel()
	b := newBilling(t, "2026-05-18")
	ctx, st := ctxT(t), b.env.Store
	w := store.Warehouse{ID: "w1", Name: "Main", Address: store.Address{City: "Boras", Country: "Sweden"}}
	p := store.Product{ID: "tea", Name: "Tea", Category: "coffee", Price: eur(2000)}
	if err := st.PutWarehouse(ctx, w); err != nil {
		t.Fatal(err)
	}
	if err := st.PutProduct(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AdjustStock(ctx, p, w, 5, "delivery", store.Customer{ID: "staff"}); err != nil {
		t.Fatal(err)
	}
	o, err := st.HoldCheckout(ctx, store.CheckoutRequest{Key: "hold-1", CustomerID: "ada", Buyer: store.Buyer{Name: "Ada", Email: "ada@example.com"},
		Lines: []store.CheckoutLine{{ProductID: "tea", Quantity: 1}}, HoldFor: 30 * time.Minute,
		ShipTo: store.Address{Street: "Main", Number: "1", ZipCode: "11111", City: "Boras", Country: "Sweden"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AttachPaymentSession(ctx, o, payment.ProviderStripe, "cs_job"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.PlaceHeldOrder(ctx, o.ID, store.PaymentResult{Provider: payment.ProviderStripe, EventID: "evt_paid", PaymentRef: "pi_job",
		Brand: "Visa", Last4: "4242", Amount: o.Hold.Card}); err != nil {
		t.Fatal(err)
	}

	var down atomic.Bool
	var status atomic.Value
	var creates atomic.Int32
	status.Store(payment.RefundPending)
	refunds := payment.NewCardRefunds(payment.NewProviders(stripeStandIn(t, &down, &status, &creates)), b.gateway)
	down.Store(true)
	if _, err := st.RefundOrder(ctx, store.OrderRefundRequest{OrderID: o.ID, Key: "rf-1", Reason: "Broken", By: store.Customer{ID: "staff"},
		Amount: o.Total}, refunds); !errors.Is(err, store.ErrRefundCard) {
		t.Fatalf("refund while Stripe is down: %v", err)
	}
	down.Store(false)
	r := jobs.NewRunner(st, b.gateway, jobs.Config{Replica: "r1", Refunds: refunds})
	run := func(after time.Duration) store.JobRun {
		t.Helper()
		b.clock.Set(b.clock.Now().Add(after))
		got, err := jobs.RunLeased(ctx, r, st, jobs.JobCardRefunds, st.Today(), jobs.TriggerStaff, nil)
		if err != nil || got.Outcome != store.RunCompleted {
			t.Fatalf("run: %+v, %v", got, err)
		}
		return got
	}
	if got := run(16 * time.Minute); got.Counts.Due != 1 || got.Counts.Refunded != 0 || got.Counts.Failed != 0 || creates.Load() != 1 {
		t.Fatalf("the run that made it at Stripe: %+v, %d refunds there", got.Counts, creates.Load())
	}
	if rf := must(st.OrderRefund(ctx, o.ID, "rf-1")); rf.Status != store.RefundCardPending || rf.GatewayRefundID != "re_job_1" {
		t.Fatalf("after it: %+v", rf)
	}
	status.Store(payment.RefundSucceeded)
	if got := run(16 * time.Minute); got.Counts.Due != 1 || got.Counts.Refunded != 1 || creates.Load() != 1 {
		t.Fatalf("the run that read it succeeded: %+v, %d refunds at Stripe", got.Counts, creates.Load())
	}
	if rf := must(st.OrderRefund(ctx, o.ID, "rf-1")); rf.Status != store.RefundDone {
		t.Fatalf("done: %+v", rf)
	}
	if list := must(st.PendingCardRefunds(ctx)); len(list) != 0 {
		t.Fatalf("still listed: %+v", list)
	}
	// Its refund.updated, late, through the settler's hook: nothing more.
	ev := payment.Event{ID: "evt_re", Type: payment.EventRefundUpdated, Refund: &payment.Refund{ID: "re_job_1", PaymentRef: "pi_job",
		Status: payment.RefundSucceeded, Metadata: map[string]string{store.RefundMetaOrder: o.ID, store.RefundMetaRefund: "rf-1"}}}
	if err := (jobs.RefundEvents{Store: st}).ApplyRefundEvent(context.Background(), payment.ProviderStripe, ev); err != nil {
		t.Fatal(err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
