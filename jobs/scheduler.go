package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/go-co-op/gocron/v2"

	"shop/store"
)

// Scheduler runs the jobs on their schedules, one runner per tick across
// every replica: a lease in the table, keyed by job and the date the run
// processes, has an owner and an expiry, is renewed while the job runs and
// marked done at its end. Correctness never rests on the lease (two runs
// at once still charge once); it keeps replicas from doing the work twice.
type Scheduler struct {
	runner *Runner
	store  Store
	cron   gocron.Scheduler
	log    *slog.Logger
	sched  Schedules

	// halt is cancelled (with ErrShutdown) when the replica shuts down:
	// every run this scheduler started stops at its next safe point.
	halt     context.Context
	haltRuns context.CancelCauseFunc
	runs     sync.WaitGroup // runs going: ticks and "Run now"

	mu       sync.Mutex
	stopping bool                 // Shutdown began: no run starts any more
	running  map[string]*recorder // job -> the run this replica is making
	jobs     map[string]gocron.Job
	held     map[string]*heldLease // job -> the tick's lease gocron's locker took
	// resting, per job, says a tick at that time has nothing to do: it
	// takes no lease and runs not (the test provider's idle delivery).
	resting map[string]func(time.Time) bool
}

// errResting: the job rests this tick (nothing to do); not an error.
var errResting = errors.New("the job rests: nothing is due")

// NewScheduler builds the scheduler; Start starts it.
func NewScheduler(runner *Runner, st Store, loc *time.Location, sched Schedules, log *slog.Logger) (*Scheduler, error) {
	sched = sched.withDefaults()
	cron, err := gocron.NewScheduler(gocron.WithLocation(loc), gocron.WithLogger(gocronLog{log}))
	if err != nil {
		return nil, err
	}
	s := &Scheduler{runner: runner, store: st, cron: cron, log: log, sched: sched, running: map[string]*recorder{}, jobs: map[string]gocron.Job{}, held: map[string]*heldLease{}, resting: map[string]func(time.Time) bool{}}
	s.halt, s.haltRuns = context.WithCancelCause(context.Background())
	scheduled := map[string]string{JobReminders: sched.Reminders, JobPayments: sched.Payments, JobCardRefunds: sched.CardRefunds,
		JobTicketStock: sched.TicketStock}
	if runner.cfg.Archive != nil {
		scheduled[JobArchive] = sched.Archive
	}
	for name, expr := range scheduled {
		j, err := cron.NewJob(gocron.CronJob(expr, sched.withSeconds(expr)),
			gocron.NewTask(func(ctx context.Context) { s.tick(ctx, name) }),
			gocron.WithName(name), gocron.WithSingletonMode(gocron.LimitModeReschedule),
			gocron.WithDistributedJobLocker(leaseLocker{s}))
		if err != nil {
			return nil, fmt.Errorf("schedule %s %q: %w", name, expr, err)
		}
		s.jobs[name] = j
	}
	_, err = cron.NewJob(gocron.CronJob(sched.Reconcile, sched.withSeconds(sched.Reconcile)),
		gocron.NewTask(func(ctx context.Context) {
			if n, err := runner.Reconcile(ctx, 15*time.Minute); err != nil {
				log.Error("reconcile payment intents", "err", err)
			} else if n > 0 {
				log.Info("reconciled payment intents", "settled", n)
			}
			if n, err := runner.ReconcileSubscribes(ctx, 5*time.Minute); err != nil {
				log.Error("reconcile pending subscribes", "err", err)
			} else if n > 0 {
				log.Info("reconciled pending subscribes", "settled", n)
			}
			if runner.cfg.Holds != nil {
				if n, err := runner.cfg.Holds.SettleDue(ctx); err != nil {
					log.Error("settle held orders past their deadline", "settled", n, "err", err)
				} else if n > 0 {
					log.Info("settled held orders whose payment event was missed", "settled", n)
				}
			}
			if n, err := runner.CloseEndedDrops(ctx); err != nil {
				log.Error("close ended drops", "err", err)
			} else if n > 0 {
				log.Info("closed ended product drops, unclaimed stock returned", "drops", n)
			}
			// A replica that crashed or was killed mid-run left its run
			// recorded running; its lease has run out by now.
			for _, job := range []string{JobReminders, JobPayments, JobArchive} {
				if n, err := runner.CloseStalledRuns(ctx, job); err != nil {
					log.Error("close stalled runs", "job", job, "err", err)
				} else if n > 0 {
					log.Warn("closed runs their replica left running", "job", job, "runs", n)
				}
			}
			// A deletion finishes in its request; one whose process died
			// midway is finished here, the person's data not left half gone.
			if n, err := st.FinishDeletions(ctx, st.Now().Add(-15*time.Minute)); err != nil {
				log.Error("finish account deletions", "err", err)
			} else if n > 0 {
				log.Info("finished account deletions", "accounts", n)
			}
		}), gocron.WithName("reconcile"), gocron.WithSingletonMode(gocron.LimitModeReschedule))
	if err != nil {
		return nil, fmt.Errorf("schedule reconcile: %w", err)
	}
	return s, nil
}

// Start starts the schedules.
func (s *Scheduler) Start() { s.cron.Start() }

// Stop is Shutdown within 10 seconds.
func (s *Scheduler) Stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.Shutdown(ctx)
}

// ErrShuttingDown refuses a run on a replica that is shutting down.
var ErrShuttingDown = errors.New("this replica is shutting down: it starts no run")

// Shutdown stops the scheduler for good, in this order: no tick or "Run
// now" starts any more; the runs going stop between two subscriptions
// (ErrShutdown: their records say interrupted); they are waited for until
// ctx ends, each giving its lease back on its way out so another replica
// can take the date's run at once; then the schedules stop. A second call
// does nothing.
func (s *Scheduler) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if s.stopping {
		s.mu.Unlock()
		return nil
	}
	s.stopping = true
	var going []string
	for job := range s.running {
		going = append(going, job)
	}
	s.mu.Unlock()
	start := time.Now()
	s.haltRuns(ErrShutdown)
	waited := make(chan struct{})
	go func() { s.runs.Wait(); close(waited) }()
	var err error
	select {
	case <-waited:
		s.log.Info("shutdown: billing runs stopped", "runs", going, "took", time.Since(start).Round(time.Millisecond))
	case <-ctx.Done():
		err = fmt.Errorf("billing runs %v still going at the shutdown's deadline: %w", going, ctx.Err())
	}
	// Runs are over (or abandoned): what is left is the reconcile tick,
	// which gocron cancels.
	cronStart := time.Now()
	if cerr := s.cron.ShutdownWithContext(ctx); cerr != nil {
		err = errors.Join(err, fmt.Errorf("stop the schedules: %w", cerr))
	}
	s.log.Info("shutdown: schedules stopped", "took", time.Since(cronStart).Round(time.Millisecond))
	return err
}

// begin counts a run about to start, unless the scheduler is stopping.
func (s *Scheduler) begin() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		return false
	}
	s.runs.Add(1)
	return true
}

// NextRun is when a job runs next on this replica.
func (s *Scheduler) NextRun(job string) time.Time {
	j, ok := s.jobs[job]
	if !ok {
		return time.Time{}
	}
	t, _ := j.NextRun()
	return t
}

// Schedule is a job's cron expression.
func (s *Scheduler) Schedule(job string) string {
	switch job {
	case JobReminders:
		return s.sched.Reminders
	case JobArchive:
		return s.sched.Archive
	case JobCardRefunds:
		return s.sched.CardRefunds
	case JobTicketStock:
		return s.sched.TicketStock
	}
	return s.sched.Payments
}

// Running is the run this replica is making of a job, if any.
func (s *Scheduler) Running(job string) (store.JobRun, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.running[job]
	if !ok {
		return store.JobRun{}, false
	}
	return rec.snapshot(), true
}

// tick runs a scheduled job under the lease gocron's locker took for it.
func (s *Scheduler) tick(ctx context.Context, job string) {
	s.mu.Lock()
	h := s.held[job]
	s.mu.Unlock()
	if h == nil {
		s.log.Error("job tick without its lease", "job", job)
		return
	}
	if !s.begin() {
		return // shutting down: gocron's unlock gives the lease back
	}
	defer s.runs.Done()
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(s.halt, func() { cancel(context.Cause(s.halt)) })()
	h.onLost(func() { cancel(store.ErrLeaseLost) }) // another replica took over: stop
	h.mu.Lock()
	held := h.lease
	h.mu.Unlock()
	s.runner.sweepBeforeRun(runCtx, job, held)
	run, err := s.runner.run(runCtx, job, h.lease.Date, runStart{Trigger: TriggerSchedule}, s.track)
	if errors.Is(err, ErrShutdown) {
		// Given back here rather than in gocron's unlock, so Shutdown's
		// wait covers it.
		if rerr := h.release(ctx); err != ErrShutdown || rerr != nil { // more than the shutdown went wrong
			s.log.Error("shutdown: run interrupted", "job", job, "run", run.ID, "err", errors.Join(err, rerr))
			return
		}
		s.log.Info("shutdown: run interrupted, lease given back", "job", job, "run", run.ID, "date", store.FormatDate(h.lease.Date),
			"due", run.Counts.Due, "done", run.Counts.Done(), "charged", run.Counts.Charged)
		return
	}
	switch {
	case err == nil && rerunsDaily(job):
		err = h.release(ctx) // the next tick today takes it again
	case err == nil:
		err = h.finish(ctx)
	}
	if err != nil {
		s.log.Error("job run", "job", job, "run", run.ID, "err", err)
		return
	}
	s.log.Info("job run", "job", job, "run", run.ID, "took", run.Duration().Round(time.Millisecond), "due", run.Counts.Due,
		"charged", run.Counts.Charged, "declined", run.Counts.Declined, "skipped", run.Counts.Skipped, "failed", run.Counts.Failed, "mailed", run.Counts.Mailed)
}

// ErrRunning says this replica is already running the job.
var ErrRunning = errors.New("this job is already running")

// RunLeased runs a job for a date under its lease: ErrLeaseHeld if another
// replica holds it, ErrLeaseDone if the date's tick already ran. The lease
// is renewed while the run goes and marked done when it completes.
func (s *Scheduler) RunLeased(ctx context.Context, job string, date time.Time, trigger string) (store.JobRun, error) {
	return runLeased(ctx, s.runner, s.store, job, date, runStart{Trigger: trigger}, s.track)
}

// RunNow starts a run in the background for a staff member ("Run now",
// the run records their name): it returns once the lease is taken, so a
// refusal is reported at once.
func (s *Scheduler) RunNow(job string, date time.Time, staff string) error {
	return s.runInBackground(job, date, runStart{Trigger: TriggerStaff, Staff: staff})
}

// RunAtStartUp is RunNow for the shop itself as it starts: the run says
// so rather than naming staff.
func (s *Scheduler) RunAtStartUp(job string, date time.Time) error {
	return s.runInBackground(job, date, runStart{Trigger: TriggerStartUp})
}

func (s *Scheduler) runInBackground(job string, date time.Time, by runStart) error {
	if !ValidJob(job) {
		return ErrUnknownJob
	}
	if date.After(s.store.Today()) {
		return ErrFutureDate
	}
	if _, ok := s.Running(job); ok {
		return ErrRunning
	}
	if !s.begin() {
		return ErrShuttingDown
	}
	started := make(chan error, 1)
	go func() {
		defer s.runs.Done()
		ctx, cancel := context.WithTimeout(s.halt, time.Hour) // Shutdown stops it
		defer cancel()
		run, err := runLeased(ctx, s.runner, s.store, job, date, by, func(job string, rec *recorder) func() {
			forget := s.track(job, rec) // before answering, so a second click sees it running
			started <- nil
			return forget
		})
		if err != nil && run.ID == "" && s.halt.Err() != nil {
			err = ErrShuttingDown // stopped before it took the lease
		}
		select {
		case started <- err:
		default:
		}
		switch {
		case err == ErrShutdown: // nothing else went wrong: RunLeased gave the lease back
			s.log.Info("shutdown: run interrupted, lease given back", "job", job, "run", run.ID, "date", store.FormatDate(date),
				"due", run.Counts.Due, "done", run.Counts.Done(), "charged", run.Counts.Charged)
		case errors.Is(err, store.ErrLeaseHeld), errors.Is(err, store.ErrLeaseDone):
			// Another replica runs it, or ran it: the caller has the answer.
			s.log.Info("run now: not here", "job", job, "date", store.FormatDate(date), "why", err)
		case err != nil:
			s.log.Error("run now", "job", job, "date", store.FormatDate(date), "err", err)
		}
	}()
	return <-started
}

// track notes a run in progress; the returned func forgets it.
func (s *Scheduler) track(job string, rec *recorder) func() {
	s.mu.Lock()
	s.running[job] = rec
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		delete(s.running, job)
		s.mu.Unlock()
	}
}

// RunLeased takes the lease of job and date, runs it, renews the lease as
// it goes and marks the date done when the run completes (a run that fails
// or is cancelled gives the lease back; so does a completed run of a job
// that runs again the same day). onStart, if set, sees the run.
func RunLeased(ctx context.Context, r *Runner, st Store, job string, date time.Time, trigger string, onStart func(string, *recorder) func()) (store.JobRun, error) {
	return runLeased(ctx, r, st, job, date, runStart{Trigger: trigger}, onStart)
}

func runLeased(ctx context.Context, r *Runner, st Store, job string, date time.Time, by runStart, onStart func(string, *recorder) func()) (store.JobRun, error) {
	if !ValidJob(job) {
		return store.JobRun{}, ErrUnknownJob
	}
	if date.After(st.Today()) {
		return store.JobRun{}, ErrFutureDate
	}
	ttl := r.cfg.LeaseTTL
	lease, err := st.AcquireLease(ctx, job, date, r.cfg.Replica, ttl)
	if err != nil {
		return store.JobRun{}, err
	}
	r.sweepBeforeRun(ctx, job, lease)
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		t := time.NewTicker(ttl / 3)
		defer t.Stop()
		for {
			select {
			case <-runCtx.Done():
				return
			case <-t.C:
				if lease, err = st.RenewLease(runCtx, lease, ttl); err != nil {
					if runCtx.Err() == nil {
						cancel(fmt.Errorf("renew lease: %w", err)) // another replica took over: stop
					}
					return
				}
			}
		}
	}()
	run, runErr := r.run(runCtx, job, date, by, onStart)
	cancel(nil)
	<-renewed
	wctx, wcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer wcancel()
	if runErr == nil && !rerunsDaily(job) {
		if err := st.FinishLease(wctx, lease); err != nil {
			return run, fmt.Errorf("mark the tick done: %w", err)
		}
		return run, nil
	}
	if err := st.ReleaseLease(wctx, lease); err != nil && !errors.Is(err, store.ErrLeaseLost) {
		return run, errors.Join(runErr, err)
	}
	return run, runErr
}

type gocronLog struct{ l *slog.Logger }

func (g gocronLog) Debug(msg string, args ...any) { g.l.Debug(msg, args...) }
func (g gocronLog) Error(msg string, args ...any) { g.l.Error(msg, args...) }
func (g gocronLog) Info(msg string, args ...any)  { g.l.Debug(msg, args...) }
func (g gocronLog) Warn(msg string, args ...any)  { g.l.Warn(msg, args...) }
