package jobs_test

import (
	"testing"

	"shop/jobs"
	"shop/store"
	"shop/store/payment"
)

// On the day a trial ends, the payments job charges its card at the
// provider the share of the days up to the payment date (€8.32 for 12-31
// December of €12.90 a month on day 1), once, on a receipt of those first
// days; the subscription's next payment is then the payment date's whole
// period.
func TestTheFirstChargeAfterATrialThroughTheProvider(t *testing.T) {
	b := newSubBench(t, "2026-12-12")
	ctx := ctxT(t)
	c := b.customer(t)
	card := b.savedCard(t, c, payment.CardSucceeds)
	ends := day("2026-12-12")
	sub := store.Subscription{ID: store.NewID(), AccountID: c.ID, ProductID: "tea", ProductName: "Fika tea", Email: c.Email,
		MonthlyPrice: eur(1290), PeriodMonths: 1, PaymentDay: 1, Status: store.SubscriptionActive, Card: card,
		TrialEnds: ends, NextPaymentDate: ends, LastPaymentDate: day("2026-11-28"), CreatedAt: day("2026-11-28"), Version: 1}
	if err := b.env.Store.CreateSubscription(ctx, sub); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := b.runner("r").Run(ctx, jobs.JobPayments, ends, jobs.TriggerCommandLine); err != nil {
			t.Fatal(err)
		}
		for _, ev := range b.events(t, payment.EventPaymentSucceeded) {
			if err := b.sp.ApplySubscriptionEvent(ctx, ev); err != nil {
				t.Fatal(err)
			}
		}
	}
	receipts, err := b.env.Store.RecentReceipts(ctx, c.ID, 10, "")
	if err != nil || len(receipts.Items) != 1 {
		t.Fatalf("receipts %+v, %v; want one", receipts.Items, err)
	}
	r := receipts.Items[0]
	if r.Amount != eur(832) || r.Kind != store.ReceiptFirstDays || store.FormatDate(r.PeriodStart) != "2026-12-12" || store.FormatDate(r.PeriodEnd) != "2027-01-01" {
		t.Fatalf("the first charge after the trial: %+v", r)
	}
	got, err := b.env.Store.SubscriptionConsistent(ctx, c.ID, sub.ID)
	if err != nil || store.FormatDate(got.NextPaymentDate) != "2027-01-01" || got.AmountFor(got.NextPaymentDate) != eur(1290) || got.OnTrial() {
		t.Fatalf("after it: next %s of %v, on trial %v, %v", store.FormatDate(got.NextPaymentDate), got.AmountFor(got.NextPaymentDate), got.OnTrial(), err)
	}
}
