package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"shop/store"
)

// stalledLookback is how many of a job's newest runs a sweep looks at: a
// replica that stops leaves at most its own run running, and the next run
// or check (minutes later) closes it.
const stalledLookback = 20

// CloseStalledRuns closes the runs of job recorded running whose process
// stopped without recording their end (crashed, killed): interrupted, why
// "the replica running it stopped", counts kept. It returns how many it
// closed. The reconcile step calls it on every replica; a replica taking a
// job's lease for a new run calls it too (closeStalledRuns). Each close is
// one conditional write, so replicas sweeping at once close a run once.
func (r *Runner) CloseStalledRuns(ctx context.Context, job string) (int, error) {
	return r.closeStalledRuns(ctx, job, nil)
}

// closeStalledRuns closes job's stalled runs: a run is stalled when its
// process no longer holds the lease of its date (none, another's, run out
// or done) and its heartbeat is older than a lease's life, whoever started
// it: a replica's tick, staff, or `shop jobs run` (whose --force run holds
// no lease and is known alive by its heartbeat alone). held, if set, is
// the lease the caller just took for a new run: every run of its date is
// then without its lease, whoever it names (the lease was free, so its
// holder lost it; a replica restarted under the same name included).
func (r *Runner) closeStalledRuns(ctx context.Context, job string, held *store.Lease) (int, error) {
	runs, err := r.store.Runs(ctx, job, stalledLookback, "")
	if err != nil {
		return 0, fmt.Errorf("runs of %s: %w", job, err)
	}
	closed := 0
	var errs []error
	for _, run := range runs.Items {
		if run.Outcome != store.RunRunning || r.store.Now().Sub(run.SavedAt) < r.cfg.LeaseTTL {
			continue // ended, or its heartbeat is fresh: alive
		}
		if held == nil || !run.Date.Equal(held.Date) {
			alive, err := r.leaseAlive(ctx, run)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if alive {
				continue
			}
		}
		// The record read is the heartbeat: a run that writes its progress
		// meanwhile is alive after all, and the write's condition fails.
		switch err := r.store.CloseStalledRun(ctx, run); {
		case errors.Is(err, store.ErrConflict): // closed by another replica, or it moved
		case err != nil:
			errs = append(errs, err)
		default:
			closed++
			slog.WarnContext(ctx, "closed a run its replica left running", "job", job, "run", run.ID, "trigger", run.Trigger,
				"replica", run.Replica, "date", store.FormatDate(run.Date), "done", run.Counts.Done())
		}
	}
	return closed, errors.Join(errs...)
}

// leaseAlive says whether run's replica still holds the lease of its date:
// held by it, not run out, not done.
func (r *Runner) leaseAlive(ctx context.Context, run store.JobRun) (bool, error) {
	l, err := r.store.LeaseOf(ctx, run.Job, run.Date)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("lease of run %s: %w", run.ID, err)
	}
	return l.Owner == run.Replica && !l.Done && !l.ExpiresAt.Before(r.store.Now()), nil
}

// sweepBeforeRun closes job's stalled runs before a new run under held;
// a failure is logged, never stops the run (the next check tries again).
func (r *Runner) sweepBeforeRun(ctx context.Context, job string, held store.Lease) {
	if _, err := r.closeStalledRuns(ctx, job, &held); err != nil && ctx.Err() == nil {
		slog.WarnContext(ctx, "close stalled runs", "job", job, "err", err)
	}
}
