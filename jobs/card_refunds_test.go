package jobs_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"shop/jobs"
	"shop/store"
)

type refundFunc func(ctx context.Context, chargeID string, amount store.Money, key string) (string, error)

func (f refundFunc) Refund(ctx context.Context, chargeID string, amount store.Money, key string) (string, error) {
	return f(ctx, chargeID, amount, key)
}

// A receipt's refund the gateway did not answer is left to the job: a run
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
	if _, _, err := st.Subscribe(ctx, store.SubscribeRequest{Key: store.NewID(), CustomerID: "ada", Email: "ada@example.com", Product: p,
		PaymentDay: 18, PeriodMonths: 1, Card: b.good}, b.gateway); err != nil {
		t.Fatal(err)
	}
	receipts, err := st.RecentReceipts(ctx, "ada", 10, "")
	if err != nil || len(receipts.Items) != 1 {
		t.Fatalf("receipts: %+v %v", receipts.Items, err)
	}
	rec := receipts.Items[0]
	down := refundFunc(func(context.Context, string, store.Money, string) (string, error) {
		return "", errors.New("bank: connection reset")
	})
	if _, err := st.RefundReceipt(ctx, store.RefundRequest{CustomerID: "ada", Number: rec.Number, Amount: eur(500), Reason: "stale", By: "staff@x", Key: "k1"}, legacy(down), nil); err == nil {
		t.Fatal("the refund went through a gateway that is down")
	}

	r := b.runner("r1")
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
