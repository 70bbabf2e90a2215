package jobs

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"shop/store"
)

// recorder keeps a run's record: counts as they happen, saved at most
// about once a second while the run goes, and at its end.
type recorder struct {
	store Store

	mu    sync.Mutex
	run   store.JobRun
	saved time.Time
}

func newRecorder(st Store, run store.JobRun) *recorder { return &recorder{store: st, run: run} }

func (r *recorder) start(ctx context.Context) error {
	r.mu.Lock()
	run := r.run
	r.saved = time.Now()
	r.mu.Unlock()
	return r.store.SaveRun(ctx, run)
}

// count changes the counts and saves the progress if a second has passed.
func (r *recorder) count(ctx context.Context, change func(c *store.RunCounts)) {
	r.mu.Lock()
	change(&r.run.Counts)
	due := time.Since(r.saved) >= time.Second
	if due {
		r.saved = time.Now()
	}
	run := r.run
	r.mu.Unlock()
	if due {
		if err := r.store.SaveRun(ctx, run); err != nil && ctx.Err() == nil {
			slog.WarnContext(ctx, "save run progress", "run", run.ID, "err", err)
		}
	}
}

// heartbeat saves the record every interval in which nothing else saved
// it, until the returned stop: the heartbeat (SavedAt) by which a run that
// holds no lease (`shop jobs run --force`), or is stuck on one
// subscription, is known alive. stop waits for a save under way, so none
// lands after the run's end.
func (r *recorder) heartbeat(ctx context.Context, every time.Duration) (stop func()) {
	quit, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			r.mu.Lock()
			due := time.Since(r.saved) >= every
			if due {
				r.saved = time.Now()
			}
			run := r.run
			r.mu.Unlock()
			if !due {
				continue
			}
			if err := r.store.SaveRun(ctx, run); err != nil && ctx.Err() == nil {
				slog.WarnContext(ctx, "save run heartbeat", "run", run.ID, "err", err)
			}
		}
	}()
	return func() { close(quit); <-stopped }
}

func (r *recorder) addDue(n int) {
	r.count(context.Background(), func(c *store.RunCounts) { c.Due += n })
}

// fail counts a subscription the run could not finish with and records why.
func (r *recorder) fail(ctx context.Context, sub store.Subscription, reason string, attention bool) {
	r.count(ctx, func(c *store.RunCounts) {
		if attention {
			c.Attention++
		} else {
			c.Failed++
		}
	})
	r.mu.Lock()
	id := r.run.ID
	r.mu.Unlock()
	// Recorded even when the run was cancelled: staff need the reason.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := r.store.AddRunFailure(wctx, store.RunFailure{RunID: id, SubscriptionID: sub.ID, AccountID: sub.AccountID, Reason: reason, At: r.store.Now()}); err != nil {
		slog.WarnContext(ctx, "record run failure", "run", id, "subscription", sub.ID, "err", err)
	}
}

// finish records the run's end and outcome.
func (r *recorder) finish(cause error) (store.JobRun, error) {
	r.mu.Lock()
	r.run.EndedAt = r.store.Now()
	switch {
	case cause == nil:
		r.run.Outcome = store.RunCompleted
	case errors.Is(cause, ErrShutdown):
		r.run.Outcome, r.run.Error, r.run.Why = store.RunInterrupted, cause.Error(), store.RunWhyShutdown
	case errors.Is(cause, context.Canceled), errors.Is(cause, context.DeadlineExceeded):
		r.run.Outcome, r.run.Error = store.RunCancelled, cause.Error()
	default:
		r.run.Outcome, r.run.Error = store.RunFailed, cause.Error()
	}
	run := r.run
	r.mu.Unlock()
	// The end is recorded even if the run's own context was cancelled.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.store.SaveRun(ctx, run); err != nil {
		return run, errors.Join(cause, err)
	}
	return run, cause
}

func (r *recorder) snapshot() store.JobRun {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.run
}
