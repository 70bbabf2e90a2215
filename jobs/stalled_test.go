package jobs_test

import (
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
	ctx := ctxT(t)
	if _, err := b.env.Store.AcquireLease(ctx, job, day(date), replica, ttl); err != nil {
		t.Fatal(err)
	}
	run := store.JobRun{ID: store.NewID(), Job: job, Date: day(date), Trigger: jobs.TriggerSchedule, Replica: replica,
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
	b.clock.Set(b.clock.Now().Add(3 * time.Second)) // the dead replicas' leases run out

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
	b.clock.Set(b.clock.Now().Add(3 * time.Second))

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
