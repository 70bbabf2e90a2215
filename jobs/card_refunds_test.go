package jobs_test

import (
	"errors"
	"testing"
	"time"

	"shop/jobs"
	"shop/store"
	"shop/store/storetest/paytest"
)

// A receipt's refund the bank did not answer is left to the job: a run
// before its backoff ends leaves it, a run after finishes it with its
// mail; each run is recorded with its counts, and the job's lease is given
// back after each run so the next tick of the day runs again.
func TestCardRefundsJobFinishesPendingRefunds(t *testing.T) {
	t.Parallel()
	b := newBilling(t, "2026-05-18")
	ctx, st := ctxT(t), b.env.Store
	p := store.Product{ID: "beans", Name: "Fika beans", Category: "coffee", Price: eur(1500), Subscribable: true, MonthlyPrice: eur(1299)}
	if err := st.PutProduct(ctx, p); err != nil {
		t.Fatal(err)
	}
	pay := paytest.New(t, st)
	if _, _, err := pay.Subscribe(ctx, store.SubscribeRequest{Key: store.NewID(), CustomerID: "ada", Email: "ada@example.com", Product: p,
		PaymentDay: 18, PeriodMonths: 1}); err != nil {
		t.Fatal(err)
	}
	receipts, err := st.RecentReceipts(ctx, "ada", 10, "")
	if err != nil || len(receipts.Items) != 1 {
		t.Fatalf("receipts: %+v %v", receipts.Items, err)
	}
	rec := receipts.Items[0]
	down := &paytest.Flaky{}
	down.Fail(errors.New("bank: connection reset"))
	if _, err := st.RefundReceipt(ctx, store.RefundRequest{CustomerID: "ada", Number: rec.Number, Amount: eur(500), Reason: "stale", By: "staff@x", Key: "k1"}, down, nil); err == nil {
		t.Fatal("the refund went through a gateway that is down")
	}

	// The job refunds through the provider that took the payment.
	r := jobs.NewRunner(st, b.gateway, jobs.Config{Replica: "r1", Concurrency: 8, RetryDays: []int{1, 3, 7}, Refunds: pay.Refunds()})
	first, err := jobs.RunLeased(ctx, r, st, jobs.JobCardRefunds, st.Today(), jobs.TriggerStaff, nil)
	if err != nil || first.Outcome != store.RunCompleted || first.Counts.Due != 0 {
		t.Fatalf("a run before the refund's backoff ends: %+v %v", first, err)
	}
	b.clock.Set(b.clock.Now().Add(16 * time.Minute))
	second, err := jobs.RunLeased(ctx, r, st, jobs.JobCardRefunds, st.Today(), jobs.TriggerStaff, nil)
	if err != nil {
		t.Fatalf("a second run the same day: %v", err)
	}
	if second.Outcome != store.RunCompleted || second.Counts.Due != 1 || second.Counts.Refunded != 1 || second.Counts.Mailed != 1 || second.Counts.Done() != 1 || second.EndedAt.IsZero() {
		t.Fatalf("the run after the backoff: %+v", second)
	}
	got, err := st.Receipt(ctx, "ada", rec.Number)
	if err != nil || got.Refunded() != eur(500) {
		t.Fatalf("the receipt after the run: %+v %v", got.Refund, err)
	}
	if list, err := st.PendingCardRefunds(ctx); err != nil || len(list) != 0 {
		t.Fatalf("still pending: %+v %v", list, err)
	}
	runs, err := st.Runs(ctx, jobs.JobCardRefunds, 10, "")
	if err != nil || len(runs.Items) != 2 || runs.Items[0].ID != second.ID || runs.Items[0].Counts.Refunded != 1 {
		t.Fatalf("recorded runs: %+v %v", runs.Items, err)
	}
}
