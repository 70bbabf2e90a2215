package jobs_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"shop/jobs"
	"shop/store"
)

// A replica shuts down in the middle of a payment run, while one
// subscription sits between its charge and its receipt: that subscription
// and those being worked on finish (every charge has its receipt, none
// failed), no other starts, the record says interrupted with its counts,
// and the lease is free at once, so another replica's run charges the rest,
// each subscription once.
func TestShutdownStopsARunBetweenTwoSubscriptionsAndGivesItsLeaseBack(t *testing.T) {
	t.Parallel()
	n := 80
	b := newBilling(t, "2026-03-15")
	b.seed(t, n, "2026-03-15", b.good)
	ctx := ctxT(t)
	date := day("2026-03-15")
	sched, err := jobs.NewScheduler(b.runner("leaving"), b.env.Store, time.UTC, jobs.Schedules{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	shutdown := make(chan error, 1)
	var charges atomic.Int32
	b.gateway.AfterCharge = func(context.Context, string) error {
		if charges.Add(1) != 20 {
			return nil
		}
		// Charged, the receipt not yet written: the replica shuts down now.
		go func() { shutdown <- sched.Shutdown(ctx) }()
		time.Sleep(300 * time.Millisecond) // the runs' context is cancelled at once
		return nil
	}
	if err := sched.RunNow(jobs.JobPayments, date, "Sam Staff"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-shutdown:
		if err != nil {
			t.Fatalf("shutdown: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the run did not reach its 20th charge, or the shutdown did not end")
	}
	b.gateway.AfterCharge = nil

	runs, err := b.env.Store.Runs(ctx, jobs.JobPayments, 5, "")
	if err != nil || len(runs.Items) != 1 {
		t.Fatalf("runs: %v %+v", err, runs.Items)
	}
	first := runs.Items[0]
	if first.Outcome != store.RunInterrupted || !strings.Contains(first.Error, "shutdown") || first.EndedAt.IsZero() {
		t.Fatalf("the stopped run: outcome %q, error %q, ended %v", first.Outcome, first.Error, first.EndedAt)
	}
	if c := first.Counts; c.Charged < 20 || c.Charged >= n || c.Failed != 0 || c.Charged != c.Mailed {
		t.Fatalf("the stopped run's counts: %+v (want 20 or more charged of %d, none failed)", c, n)
	}
	t.Logf("the stopped run: %+v", first.Counts)
	// Nothing half done: each charge made has its receipt.
	if receipts, ledger := b.env.CountEntities(t, "receipt"), b.env.CountEntities(t, "gatewayCharge"); receipts != first.Counts.Charged || ledger != receipts {
		t.Fatalf("%d receipts and %d ledger charges, the run counted %d", receipts, ledger, first.Counts.Charged)
	}
	lease, err := b.env.Store.LeaseOf(ctx, jobs.JobPayments, date)
	if err != nil || lease.Done || !lease.ExpiresAt.Before(b.env.Store.Now()) {
		t.Fatalf("the lease after the shutdown: %+v %v, want given back (expired, not done)", lease, err)
	}
	if err := sched.RunNow(jobs.JobPayments, date, "Sam Staff"); !errors.Is(err, jobs.ErrShuttingDown) {
		t.Fatalf("Run now after the shutdown: %v", err)
	}

	// Another replica takes the date's run at once and does the rest.
	second, err := jobs.RunLeased(ctx, b.runner("staying"), b.env.Store, jobs.JobPayments, date, jobs.TriggerSchedule, nil)
	if err != nil {
		t.Fatal(err)
	}
	if first.Counts.Charged+second.Counts.Charged != n {
		t.Fatalf("charged %d then %d, want %d in all", first.Counts.Charged, second.Counts.Charged, n)
	}
	if got := b.env.CountEntities(t, "receipt"); got != n {
		t.Fatalf("%d receipts, want %d", got, n)
	}
	if got := b.env.CountEntities(t, "gatewayCharge"); got != n {
		t.Fatalf("%d ledger charges, want %d", got, n)
	}
}

// The shop's own run as it starts is recorded as the shop's, not staff's:
// staff reading the runs would look for who pressed "Run now".
func TestARunAtStartUpSaysTheShopStartedIt(t *testing.T) {
	t.Parallel()
	b := newBilling(t, "2026-03-15")
	ctx := ctxT(t)
	sched, err := jobs.NewScheduler(b.runner("starting"), b.env.Store, time.UTC, jobs.Schedules{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if err := sched.RunAtStartUp(jobs.JobPayments, day("2026-03-15")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		runs, err := b.env.Store.Runs(ctx, jobs.JobPayments, 5, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(runs.Items) == 1 && runs.Items[0].Outcome != store.RunRunning {
			if got := runs.Items[0].Trigger; got != jobs.TriggerStartUp {
				t.Fatalf("the run's trigger: %q, want %q", got, jobs.TriggerStartUp)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no finished run within a minute: %+v", runs.Items)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := sched.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}
