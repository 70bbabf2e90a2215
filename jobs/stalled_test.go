package jobs_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"shop/jobs"
	"shop/store"
)

// leftRunning records a run as running, as a replica does at its start,
// under a lease its replica took for ttl.
func (b *billing) leftRunning(t *testing.T, job, date, replica string, ttl time.Duration, counts store.RunCounts) store.JobRun {
	t.Helper()
	return b.leftRunningBy(t, jobs.TriggerSchedule, job, date, replica, ttl, counts)
}

// leftRunningBy records a run of trigger as running under a lease its
// process took for ttl; no lease at all if ttl is 0 (`shop jobs run --force`).
func (b *billing) leftRunningBy(t *testing.T, trigger, job, date, replica string, ttl time.Duration, counts store.RunCounts) store.JobRun {
	t.Helper()
	ctx := ctxT(t)
	if ttl > 0 {
		if _, err := b.env.Store.AcquireLease(ctx, job, day(date), replica, ttl); err != nil {
			t.Fatal(err)
		}
	}
	run := store.JobRun{ID: store.NewID(), Job: job, Date: day(date), Trigger: trigger, Replica: replica,
		StartedAt: b.clock.Now(), Outcome: store.RunRunning, Counts: counts}
	if err := b.env.Store.SaveRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	return run
}

func (b *billing) run(t *testing.T, r store.JobRun) store.JobRun {
	t.Helper()
	got, err := b.env.Store.Run(ctxT(t), r.Job, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// Replicas that died mid-run (their leases ran out) leave runs recorded
// running; the next run of the job closes them as interrupted, counts
// kept, and leaves alone a run whose replica still holds its lease.
func TestStalledRunsClosedByTheNextRun(t *testing.T) {
	t.Parallel()
	b := newBilling(t, "2026-03-15")
	ctx := ctxT(t)
	counts := store.RunCounts{Due: 10, Charged: 4, Failed: 1, Mailed: 4}
	yesterday := b.leftRunning(t, jobs.JobPayments, "2026-03-14", "dead", 2*time.Second, counts)
	today := b.leftRunning(t, jobs.JobPayments, "2026-03-15", "dead-too", 2*time.Second, store.RunCounts{Due: 3})
	live := b.leftRunning(t, jobs.JobPayments, "2026-03-13", "busy", time.Hour, store.RunCounts{Due: 2})
	b.clock.Set(b.clock.Now().Add(time.Minute)) // the dead replicas' leases run out, their heartbeats old

	run, err := jobs.RunLeased(ctx, b.runner("alive"), b.env.Store, jobs.JobPayments, day("2026-03-15"), jobs.TriggerSchedule, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []store.JobRun{yesterday, today} {
		got := b.run(t, r)
		if got.Outcome != store.RunInterrupted || got.Why != store.RunWhyReplicaStopped || got.EndedAt.IsZero() {
			t.Errorf("run of %s by %s after the next run: %s (why %q, ended %v), want interrupted, its replica stopped",
				store.FormatDate(r.Date), r.Replica, got.Outcome, got.Why, got.EndedAt)
		}
		if got.Counts != r.Counts {
			t.Errorf("run of %s: counts %+v, want %+v kept", store.FormatDate(r.Date), got.Counts, r.Counts)
		}
	}
	if got := b.run(t, live); got.Outcome != store.RunRunning {
		t.Errorf("a run whose replica holds its lease: %s, want running", got.Outcome)
	}
	if got := b.run(t, run); got.Outcome != store.RunCompleted {
		t.Errorf("the new run: %s, want completed", got.Outcome)
	}
	// Once its lease runs out, the check on every replica closes it too.
	b.clock.Set(b.clock.Now().Add(2 * time.Hour))
	if n, err := b.runner("checker").CloseStalledRuns(ctx, jobs.JobPayments); err != nil || n != 1 {
		t.Fatalf("CloseStalledRuns = %d, %v; want the one run whose lease ran out", n, err)
	}
	if got := b.run(t, live); got.Outcome != store.RunInterrupted {
		t.Errorf("a run whose lease ran out, after the check: %s, want interrupted", got.Outcome)
	}
}

// Replicas checking at once close a stalled run once and count it once.
func TestStalledRunClosedOnceByRacingReplicas(t *testing.T) {
	t.Parallel()
	b := newBilling(t, "2026-03-15")
	ctx := ctxT(t)
	counts := store.RunCounts{Due: 7, Mailed: 5, Skipped: 1}
	stalled := b.leftRunning(t, jobs.JobReminders, "2026-03-15", "dead", 2*time.Second, counts)
	b.clock.Set(b.clock.Now().Add(time.Minute))

	const replicas = 6
	var closed atomic.Int32
	var wg sync.WaitGroup
	for i := range replicas {
		wg.Go(func() {
			n, err := b.runner(string(rune('a'+i))+"-replica").CloseStalledRuns(ctx, jobs.JobReminders)
			if err != nil {
				t.Error(err)
			}
			closed.Add(int32(n))
		})
	}
	wg.Wait()
	if closed.Load() != 1 {
		t.Fatalf("%d replicas counted the run closed, want 1", closed.Load())
	}
	if got := b.run(t, stalled); got.Outcome != store.RunInterrupted || got.Counts != counts {
		t.Errorf("the run: %s with %+v, want interrupted with %+v", got.Outcome, got.Counts, counts)
	}
}

// A `shop jobs run payments` killed (-9) while it held the lease left its
// run running, "60 of 300 due" on /admin/jobs for ever: the check closes
// it once its lease has run out and its heartbeat is old, like a
// replica's run, and so a --force run (no lease) whose heartbeat is old;
// it leaves alone a command-line run whose process still holds its lease.
func TestStalledCommandLineRunsClosedByTheCheck(t *testing.T) {
	t.Parallel()
	b := newBilling(t, "2026-03-15")
	ctx := ctxT(t)
	counts := store.RunCounts{Due: 300, Charged: 60, Mailed: 60}
	killed := b.leftRunningBy(t, jobs.TriggerCommandLine, jobs.JobPayments, "2026-03-15", "host-4242", 30*time.Second, counts)
	forced := b.leftRunningBy(t, jobs.TriggerCommandLine, jobs.JobPayments, "2026-03-13", "host-4343", 0, store.RunCounts{Due: 5})
	going := b.leftRunningBy(t, jobs.TriggerCommandLine, jobs.JobPayments, "2026-03-14", "host-4444", time.Hour, store.RunCounts{Due: 2})
	b.clock.Set(b.clock.Now().Add(time.Minute)) // the killed run's lease runs out

	if n, err := b.runner("checker").CloseStalledRuns(ctx, jobs.JobPayments); err != nil || n != 2 {
		t.Errorf("CloseStalledRuns = %d, %v; want the killed run and the --force one closed", n, err)
	}
	for _, r := range []store.JobRun{killed, forced} {
		got := b.run(t, r)
		if got.Outcome != store.RunInterrupted || got.Why != store.RunWhyReplicaStopped || got.EndedAt.IsZero() || got.Counts != r.Counts {
			t.Errorf("command-line run by %s after the check: %s (why %q, ended %v, %+v), want interrupted, its replica stopped, %+v kept",
				r.Replica, got.Outcome, got.Why, got.EndedAt, got.Counts, r.Counts)
		}
	}
	if got := b.run(t, going); got.Outcome != store.RunRunning {
		t.Errorf("a command-line run whose process holds its lease: %s, want running", got.Outcome)
	}
}

// A --force run holds no lease: its heartbeat alone says it is alive. One
// stuck on a charge for longer than a lease's life keeps writing it, and
// the check leaves it alone; it then ends completed.
func TestForcedRunStuckOnAChargeKeepsItsHeartbeat(t *testing.T) {
	t.Parallel()
	b := newBilling(t, "2026-03-15")
	b.seed(t, 1, "2026-03-15", b.good)
	ctx := ctxT(t)
	stuck, unstick := make(chan struct{}), make(chan struct{})
	b.gateway.AfterCharge = func(context.Context, string) error {
		close(stuck)
		<-unstick
		return nil
	}
	forced := jobs.NewRunner(b.env.Store, b.gateway, jobs.Config{Replica: "host-4545", LeaseTTL: 300 * time.Millisecond})
	ran := make(chan error, 1)
	go func() {
		_, err := forced.Run(ctx, jobs.JobPayments, day("2026-03-15"), jobs.TriggerCommandLine)
		ran <- err
	}()
	<-stuck
	moved := b.clock.Now().Add(time.Minute) // a minute on the shop's clock, the charge still under way
	b.clock.Set(moved)

	var run store.JobRun
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		runs, err := b.env.Store.Runs(ctx, jobs.JobPayments, 1, "")
		if err != nil || len(runs.Items) != 1 {
			t.Fatalf("runs: %v %+v", err, runs.Items)
		}
		if run = runs.Items[0]; !run.SavedAt.Before(moved) {
			break
		}
		if time.Now().After(deadline) {
			close(unstick)
			t.Fatalf("the stuck run's record was last saved at %v, before the clock moved to %v: no heartbeat", run.SavedAt, moved)
		}
	}
	if n, err := b.runner("checker").CloseStalledRuns(ctx, jobs.JobPayments); err != nil || n != 0 {
		t.Errorf("CloseStalledRuns = %d, %v; want the stuck run, alive, left alone", n, err)
	}
	close(unstick)
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	if got := b.run(t, run); got.Outcome != store.RunCompleted || got.Counts.Charged != 1 {
		t.Errorf("the forced run: %s, %+v; want completed, 1 charged", got.Outcome, got.Counts)
	}
}
