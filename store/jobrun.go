package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// RunCounts are what a billing run did, by outcome.
type RunCounts struct {
	Due       int `json:"due" dynamodbav:"Due"`
	Charged   int `json:"charged" dynamodbav:"Charged"`
	Declined  int `json:"declined" dynamodbav:"Declined"`
	Skipped   int `json:"skipped" dynamodbav:"Skipped"`
	Failed    int `json:"failed" dynamodbav:"Failed"`
	Mailed    int `json:"mailed" dynamodbav:"Mailed"`
	Cancelled int `json:"cancelled" dynamodbav:"Cancelled"`
	Attention int `json:"attention" dynamodbav:"Attention"` // beyond the catch-up window: for staff
	Archived  int `json:"archived" dynamodbav:"Archived"`   // months of the books archived (the archive job)
	Refunded  int `json:"refunded" dynamodbav:"Refunded"`   // card refunds finished (the card refunds job)
	Returned  int `json:"returned" dynamodbav:"Returned"`   // ticket units back in stock (the ticket stock job)
}

// Done is how many due subscriptions the run has finished with. A payment
// run mails with each charge, decline and cancellation (the card refunds
// job with a receipt's refund), so those mails are
// no outcome of their own; a reminder run's mails are its outcome (it
// charges, declines and cancels nothing). A subscription charged for
// several missed periods in one run counts once per charge.
func (c RunCounts) Done() int {
	return c.Charged + c.Declined + c.Skipped + c.Failed + c.Cancelled + c.Attention + c.Archived + c.Refunded + c.Returned +
		max(0, c.Mailed-(c.Charged+c.Declined+c.Cancelled+c.Refunded))
}

// Run outcomes.
const (
	RunRunning   = "running"
	RunCompleted = "completed"
	RunFailed    = "failed"
	RunCancelled = "cancelled"
	// RunInterrupted: its replica shut down; it stopped between two
	// subscriptions and gave its lease back. Or its replica stopped
	// without a word (crashed, killed) and another closed the run.
	RunInterrupted = "interrupted"
)

// Why a run was interrupted (JobRun.Why): codes the staff page words.
const (
	RunWhyShutdown       = "shutdown"        // its replica shut down and said so
	RunWhyReplicaStopped = "replica-stopped" // its replica stopped without recording the run's end
)

// runStoppedError is the Error of a run closed for its stopped replica.
const runStoppedError = "the replica running it stopped"

// JobRun is one run of a billing job, recorded as it goes.
type JobRun struct {
	ID      string
	Job     string    // "reminders" or "payments"
	Date    time.Time // the billing date it processed
	Trigger string    // "schedule", "staff", "command line", "start-up"
	// StartedBy names the staff member who pressed "Run now" (Trigger
	// "staff"), as the console shows them.
	StartedBy string
	Replica   string
	StartedAt time.Time
	EndedAt   time.Time
	Outcome   string
	Error     string
	Why       string // of an interrupted run: RunWhyShutdown, RunWhyReplicaStopped
	Counts    RunCounts
	// SavedAt is when the run's record was last written (its start, its
	// progress, its end): the heartbeat that CloseStalledRun checks.
	SavedAt time.Time
}

// Duration is how long the run took (so far).
func (r JobRun) Duration() time.Duration {
	if r.EndedAt.IsZero() {
		return time.Since(r.StartedAt)
	}
	return r.EndedAt.Sub(r.StartedAt)
}

// RunFailure is one subscription a run could not finish with.
type RunFailure struct {
	RunID          string
	SubscriptionID string
	AccountID      string
	Reason         string
	At             time.Time
}

type jobRunRecord struct {
	PK         string    `dynamodbav:"PK"` // runs#<job>
	SK         string    `dynamodbav:"SK"` // run id (sorts by start)
	EntityType string    `dynamodbav:"EntityType"`
	Job        string    `dynamodbav:"Job"`
	Date       string    `dynamodbav:"Date"`
	Trigger    string    `dynamodbav:"Trigger"`
	StartedBy  string    `dynamodbav:"StartedBy,omitempty"`
	Replica    string    `dynamodbav:"Replica"`
	StartedAt  string    `dynamodbav:"StartedAt"`
	EndedAt    string    `dynamodbav:"EndedAt,omitempty"`
	Outcome    string    `dynamodbav:"Outcome"`
	Error      string    `dynamodbav:"Error,omitempty"`
	Why        string    `dynamodbav:"Why,omitempty"`
	Counts     RunCounts `dynamodbav:"Counts"`
	SavedAt    string    `dynamodbav:"SavedAt,omitempty"`
	ExpiresAt  int64     `dynamodbav:"ExpiresAt"`
}

type runFailureRecord struct {
	PK             string `dynamodbav:"PK"` // runfail#<run id>
	SK             string `dynamodbav:"SK"` // subscription id
	EntityType     string `dynamodbav:"EntityType"`
	AccountID      string `dynamodbav:"AccountID"`
	Reason         string `dynamodbav:"Reason"`
	At             string `dynamodbav:"At"`
	ExpiresAt      int64  `dynamodbav:"ExpiresAt"`
	SubscriptionID string `dynamodbav:"SubscriptionID"`
}

// runRetention is how long run history is kept (TTL).
const runRetention = 90 * 24 * time.Hour

func newJobRunRecord(r JobRun) jobRunRecord {
	rec := jobRunRecord{
		PK: runsKey(r.Job), SK: r.ID, EntityType: entityJobRun, Job: r.Job, Date: FormatDate(r.Date),
		Trigger: r.Trigger, StartedBy: r.StartedBy, Replica: r.Replica, StartedAt: timestamp(r.StartedAt), Outcome: r.Outcome, Error: r.Error,
		Why: r.Why, Counts: r.Counts, ExpiresAt: r.StartedAt.Add(runRetention).Unix(),
	}
	if !r.SavedAt.IsZero() {
		rec.SavedAt = timestamp(r.SavedAt)
	}
	if !r.EndedAt.IsZero() {
		rec.EndedAt = timestamp(r.EndedAt)
	}
	return rec
}

func (r jobRunRecord) run() JobRun {
	return JobRun{ID: r.SK, Job: r.Job, Date: parseDate(r.Date), Trigger: r.Trigger, StartedBy: r.StartedBy, Replica: r.Replica,
		StartedAt: parseTime(r.StartedAt), EndedAt: parseTime(r.EndedAt), Outcome: r.Outcome, Error: r.Error, Why: r.Why,
		Counts: r.Counts, SavedAt: parseTime(r.SavedAt)}
}

// SaveRun writes a run's record as it stands (start, progress, end), its
// SavedAt now. It writes unconditionally: a run closed as stalled whose
// replica was alive after all records what it did, the truth winning.
func (s *Store) SaveRun(ctx context.Context, r JobRun) error {
	r.SavedAt = s.now()
	if err := s.putItem(ctx, newJobRunRecord(r)); err != nil {
		return fmt.Errorf("save run %s: %w", r.ID, err)
	}
	return nil
}

// CloseStalledRun records run, which its replica left running, as
// interrupted because that replica stopped: ended now, its counts kept.
// One conditional write: on condition the run is still running and its
// record was not written since it was read (SavedAt), so a run that is in
// fact alive and writing is not closed. ErrConflict if it ended or moved
// meanwhile (another replica closed it, or it wrote its progress).
func (s *Store) CloseStalledRun(ctx context.Context, run JobRun) error {
	if run.Outcome != RunRunning {
		return ErrConflict
	}
	now := s.now()
	upd := expression.Set(expression.Name("Outcome"), expression.Value(RunInterrupted)).
		Set(expression.Name("Why"), expression.Value(RunWhyReplicaStopped)).
		Set(expression.Name("Error"), expression.Value(runStoppedError)).
		Set(expression.Name("EndedAt"), expression.Value(timestamp(now))).
		Set(expression.Name("SavedAt"), expression.Value(timestamp(now)))
	unchanged := expression.AttributeNotExists(expression.Name("SavedAt"))
	if !run.SavedAt.IsZero() {
		unchanged = expression.Name("SavedAt").Equal(expression.Value(timestamp(run.SavedAt)))
	}
	err := s.updateIf(ctx, runsKey(run.Job), run.ID, upd,
		expression.Name("Outcome").Equal(expression.Value(RunRunning)).And(unchanged))
	if isConditionFailed(err) {
		return ErrConflict
	}
	if err != nil {
		return fmt.Errorf("close stalled run %s: %w", run.ID, err)
	}
	return nil
}

// Run reads one run of a job.
func (s *Store) Run(ctx context.Context, job, id string) (JobRun, error) {
	if !ValidID(id) {
		return JobRun{}, ErrNotFound
	}
	return getItem(ctx, s, runsKey(job), id, "run "+id, jobRunRecord.run)
}

// Runs lists a job's runs, newest first (PK=runs#job).
func (s *Store) Runs(ctx context.Context, job string, limit int, cursor string) (Page[JobRun], error) {
	return pagedQuery(ctx, s, querySpec{key: onTable.pkEquals(runsKey(job)), backward: true}, limit, cursor, jobRunRecord.run)
}

// AddRunFailure records a subscription a run could not finish with.
func (s *Store) AddRunFailure(ctx context.Context, f RunFailure) error {
	return s.putItem(ctx, runFailureRecord{
		PK: runFailuresKey(f.RunID), SK: f.SubscriptionID, EntityType: entityRunFailure, AccountID: f.AccountID,
		SubscriptionID: f.SubscriptionID, Reason: f.Reason, At: timestamp(f.At), ExpiresAt: f.At.Add(runRetention).Unix(),
	})
}

// RunFailures lists a run's failures (PK=runfail#run).
func (s *Store) RunFailures(ctx context.Context, runID string, limit int, cursor string) (Page[RunFailure], error) {
	pk := runFailuresKey(runID)
	return pagedQuery(ctx, s, querySpec{key: onTable.pkEquals(pk)}, limit, cursor, func(r runFailureRecord) RunFailure {
		return RunFailure{RunID: runID, SubscriptionID: r.SubscriptionID, AccountID: r.AccountID, Reason: r.Reason, At: parseTime(r.At)}
	})
}

// Lease is who runs one job's tick (a job and a date) until when.
type Lease struct {
	Job       string
	Date      time.Time
	Owner     string
	ExpiresAt time.Time
	Done      bool // the tick ran to its end: nobody runs it again
}

type leaseRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	Owner      string `dynamodbav:"Owner"`
	Until      string `dynamodbav:"Until"`
	Done       bool   `dynamodbav:"Done"`
	ExpiresAt  int64  `dynamodbav:"ExpiresAt"` // TTL: the item itself goes after 90 days
}

// Lease errors.
var (
	ErrLeaseHeld = errors.New("another replica holds the lease")
	ErrLeaseDone = errors.New("this tick already ran")
	ErrLeaseLost = errors.New("the lease was lost")
)

// AcquireLease takes a job's tick for owner until now+ttl: on condition
// nobody holds it, or its holder's time ran out, and it is not done.
func (s *Store) AcquireLease(ctx context.Context, job string, day time.Time, owner string, ttl time.Duration) (Lease, error) {
	now := s.now()
	l := Lease{Job: job, Date: day, Owner: owner, ExpiresAt: now.Add(ttl)}
	item, err := attributevalue.MarshalMap(leaseRecord{
		PK: leaseKey(job, day), SK: leaseKey(job, day), EntityType: entityLease, Owner: owner,
		Until: timestamp(l.ExpiresAt), ExpiresAt: now.Add(runRetention).Unix(),
	})
	if err != nil {
		return Lease{}, err
	}
	free := expression.AttributeNotExists(expression.Name(attrPK)).Or(
		expression.Name("Until").LessThan(expression.Value(timestamp(now))).And(expression.Name("Done").Equal(expression.Value(false))))
	cond, err := expression.NewBuilder().WithCondition(free).Build()
	if err != nil {
		return Lease{}, err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.table), Item: item, ConditionExpression: cond.Condition(),
		ExpressionAttributeNames: cond.Names(), ExpressionAttributeValues: cond.Values(),
	})
	if isConditionFailed(err) {
		cur, rerr := s.LeaseOf(ctx, job, day)
		if rerr == nil && cur.Done {
			return cur, ErrLeaseDone
		}
		return cur, ErrLeaseHeld
	}
	if err != nil {
		return Lease{}, fmt.Errorf("acquire lease %s %s: %w", job, FormatDate(day), err)
	}
	return l, nil
}

// RenewLease extends owner's lease; ErrLeaseLost if another took it.
func (s *Store) RenewLease(ctx context.Context, l Lease, ttl time.Duration) (Lease, error) {
	return s.updateLease(ctx, l, s.now().Add(ttl), false)
}

// FinishLease marks the tick done, so no replica runs it again.
func (s *Store) FinishLease(ctx context.Context, l Lease) error {
	_, err := s.updateLease(ctx, l, s.now(), true)
	return err
}

// ReleaseLease gives a tick back unfinished (a run that failed or was
// cancelled): another replica may take it at once.
func (s *Store) ReleaseLease(ctx context.Context, l Lease) error {
	_, err := s.updateLease(ctx, l, s.now().Add(-time.Millisecond), false)
	return err
}

func (s *Store) updateLease(ctx context.Context, l Lease, until time.Time, done bool) (Lease, error) {
	err := s.updateIf(ctx, leaseKey(l.Job, l.Date), leaseKey(l.Job, l.Date),
		expression.Set(expression.Name("Until"), expression.Value(timestamp(until))).Set(expression.Name("Done"), expression.Value(done)),
		expression.Name("Owner").Equal(expression.Value(l.Owner)).And(expression.Name("Done").Equal(expression.Value(false))))
	if isConditionFailed(err) {
		return l, ErrLeaseLost
	}
	if err != nil {
		return l, fmt.Errorf("lease %s: %w", l.Job, err)
	}
	l.ExpiresAt, l.Done = until, done
	return l, nil
}

// LeaseOf reads the lease of a job's tick (consistent).
func (s *Store) LeaseOf(ctx context.Context, job string, day time.Time) (Lease, error) {
	return getItemConsistent(ctx, s, leaseKey(job, day), leaseKey(job, day), "lease", func(r leaseRecord) Lease {
		return Lease{Job: job, Date: day, Owner: r.Owner, ExpiresAt: parseTime(r.Until), Done: r.Done}
	})
}
