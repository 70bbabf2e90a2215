package store_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"shop/store"
	"shop/store/storetest"
)

// A run left running is closed once, however many replicas close it at
// once: interrupted, its replica named as the reason, its counts kept.
func TestCloseStalledRunOnceAmongMany(t *testing.T) {
	t.Parallel()
	clock := storetest.NewClock(time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC), time.Millisecond)
	env := storetest.New(t, store.WithClock(clock.Now))
	ctx := ctxT(t)
	counts := store.RunCounts{Due: 10, Charged: 4, Declined: 1, Mailed: 5}
	run := store.JobRun{ID: store.NewID(), Job: "payments", Date: time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC), Trigger: "schedule",
		Replica: "dead", StartedAt: clock.Now(), Outcome: store.RunRunning, Counts: counts}
	if err := env.Store.SaveRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	read, err := env.Store.Run(ctx, run.Job, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if read.SavedAt.IsZero() {
		t.Fatal("SaveRun wrote no SavedAt")
	}

	const replicas = 12
	var closed, refused atomic.Int32
	var wg sync.WaitGroup
	for range replicas {
		wg.Go(func() {
			switch err := env.Store.CloseStalledRun(ctx, read); {
			case err == nil:
				closed.Add(1)
			case errors.Is(err, store.ErrConflict):
				refused.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if closed.Load() != 1 || refused.Load() != replicas-1 {
		t.Fatalf("%d closes went through, %d were refused; want 1 and %d", closed.Load(), refused.Load(), replicas-1)
	}
	got, err := env.Store.Run(ctx, run.Job, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Outcome != store.RunInterrupted || got.Why != store.RunWhyReplicaStopped || got.Error == "" || got.EndedAt.IsZero() {
		t.Errorf("closed run: outcome %s, why %q, error %q, ended %v; want interrupted, replica stopped", got.Outcome, got.Why, got.Error, got.EndedAt)
	}
	if got.Counts != counts {
		t.Errorf("counts after the close %+v, want %+v kept", got.Counts, counts)
	}
}

// A run that wrote its progress after it was read is alive: the close's
// condition (its SavedAt) refuses it, and it stays running.
func TestCloseStalledRunSparesARunThatWrote(t *testing.T) {
	t.Parallel()
	clock := storetest.NewClock(time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC), time.Millisecond)
	env := storetest.New(t, store.WithClock(clock.Now))
	ctx := ctxT(t)
	run := store.JobRun{ID: store.NewID(), Job: "reminders", Date: time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC), Trigger: "staff",
		Replica: "slow", StartedAt: clock.Now(), Outcome: store.RunRunning}
	if err := env.Store.SaveRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	read, err := env.Store.Run(ctx, run.Job, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	run.Counts.Mailed = 3 // its progress, after the sweep read it
	if err := env.Store.SaveRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	if err := env.Store.CloseStalledRun(ctx, read); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("closing a run that wrote since: %v, want ErrConflict", err)
	}
	got, err := env.Store.Run(ctx, run.Job, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Outcome != store.RunRunning || got.Counts.Mailed != 3 {
		t.Errorf("run after the refused close: %s with %d mailed, want running with 3", got.Outcome, got.Counts.Mailed)
	}
	got.Outcome = store.RunCompleted
	if err := env.Store.CloseStalledRun(ctx, got); !errors.Is(err, store.ErrConflict) {
		t.Errorf("closing a run read as ended: %v, want ErrConflict", err)
	}
}
