package jobs_test

import (
	"testing"
	"time"

	"shop/jobs"
	"shop/store"
)

// A subscription paused until a day is resumed by that day's payments
// run, and pays on its first payment day on or after it: the same run
// when the day is a payment day, else on the payment day after. Nothing
// is charged for the paused periods, and a second run charges nothing.
func TestPaymentsResumeASubscriptionPausedUntilADay(t *testing.T) {
	t.Parallel()
	b := newBilling(t, "2026-03-01")
	ctx := ctxT(t)
	subs := b.seed(t, 2, "2026-03-15", b.good)
	onPayday, between := subs[0], subs[1]
	pause := func(s store.Subscription, until string) {
		t.Helper()
		if _, err := b.env.Store.ChangeSubscription(ctx, s.AccountID, s.ID, s.Version, store.PauseUntil(day(until))); err != nil {
			t.Fatal(err)
		}
	}
	pause(onPayday, "2026-04-15")
	pause(between, "2026-04-10")
	run := func(date string) store.RunCounts {
		t.Helper()
		b.clock.Set(day(date).Add(12 * time.Hour))
		r, err := b.runner("r").Run(ctx, jobs.JobPayments, day(date), jobs.TriggerSchedule)
		if err != nil {
			t.Fatal(err)
		}
		return r.Counts
	}
	if c := run("2026-03-15"); c.Charged != 0 {
		t.Fatalf("the paused March payment day charged %d", c.Charged)
	}
	if c := run("2026-04-10"); c.Charged != 0 {
		t.Fatalf("10 April charged %d", c.Charged)
	}
	if s := b.reread(t, between); s.Status != store.SubscriptionActive || store.FormatDate(s.NextPaymentDate) != "2026-04-15" || !s.ResumesOn.IsZero() {
		t.Fatalf("resumed on 10 April: %s, next %s, resumes %s", s.Status, store.FormatDate(s.NextPaymentDate), store.FormatDate(s.ResumesOn))
	}
	if s := b.reread(t, onPayday); s.Status != store.SubscriptionPaused {
		t.Fatalf("the one paused until 15 April is %s on the 10th", s.Status)
	}
	if c := run("2026-04-15"); c.Charged != 2 {
		t.Fatalf("15 April charged %d, want both", c.Charged)
	}
	for _, s := range subs {
		got := b.reread(t, s)
		receipts, err := b.env.Store.Receipts(ctx, s.AccountID, "2026-01-01", "2026-12-31", 10, "")
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != store.SubscriptionActive || store.FormatDate(got.NextPaymentDate) != "2026-05-15" ||
			len(receipts.Items) != 1 || store.FormatDate(receipts.Items[0].PeriodStart) != "2026-04-15" {
			t.Fatalf("after 15 April: %s, next %s, receipts %+v", got.Status, store.FormatDate(got.NextPaymentDate), receipts.Items)
		}
	}
	if c := run("2026-04-15"); c.Charged != 0 {
		t.Fatalf("a second run charged %d", c.Charged)
	}
}
