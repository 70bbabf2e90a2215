// Package jobs runs the two daily batch jobs of recurring payments (the
// reminders and the payments of the AWS guide) and keeps them honest:
// nobody is charged twice and nobody is skipped, whatever runs twice,
// crashes or falls behind. Every run is timed, counted and recorded.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"shop/store"
	"shop/store/payment"
)

// Job names, also the names of the gocron jobs and of their leases.
const (
	JobReminders = "reminders"
	JobPayments  = "payments"
)

// ValidJob reports whether name is a job.
func ValidJob(name string) bool {
	return name == JobReminders || name == JobPayments || name == JobArchive || name == JobCardRefunds || name == JobTicketStock
}

// rerunsDaily says a job's lease is given back after a run rather than
// marked done: it runs many times a day (the card refunds, the ticket
// stock).
func rerunsDaily(job string) bool { return job == JobCardRefunds || job == JobTicketStock }

// Triggers of a run.
const (
	TriggerSchedule    = "schedule"
	TriggerStaff       = "staff"
	TriggerCommandLine = "command line"
	// TriggerStartUp is the shop itself as it starts (the archive of a
	// month that closed while no replica ran), not a person.
	TriggerStartUp = "start-up"
)

// runStart is who started a run: the trigger, and for "Run now" the staff
// member's name.
type runStart struct {
	Trigger string
	Staff   string
}

// Gateway charges a card once per idempotency key and tells what it did
// with a key; the payment gateway (store/payment) implements it.
type Gateway interface {
	ChargeAt(ctx context.Context, token string, amount store.Money, key string) (store.GatewayCharge, error)
	Lookup(ctx context.Context, key string) (store.GatewayCharge, error)
	// CardExpires is the first instant a card no longer pays, as the
	// gateway knows it (it learns of renewed cards); ErrNotFound for a
	// token it does not know.
	CardExpires(ctx context.Context, token string) (time.Time, error)
}

// Store is what the jobs read and write.
type Store interface {
	Now() time.Time
	Today() time.Time
	BillingShards(ctx context.Context) (int, error)
	PaymentsDueInShard(ctx context.Context, shard int, day time.Time, limit int, cursor string) (store.Page[store.Subscription], error)
	RemindersDueInShard(ctx context.Context, shard int, day time.Time, limit int, cursor string) (store.Page[store.Subscription], error)
	SubscriptionConsistent(ctx context.Context, customerID, id string) (store.Subscription, error)
	UpdateSubscription(ctx context.Context, sub store.Subscription) (store.Subscription, error)
	RecordPaymentIntent(ctx context.Context, sub store.Subscription) (store.Subscription, error)
	CompletePayment(ctx context.Context, sub store.Subscription, charge store.GatewayCharge, today time.Time, mail func(store.Receipt) *store.Mail) (store.Subscription, store.Receipt, error)
	FailPayment(ctx context.Context, sub store.Subscription, today time.Time, retryDays []int, mail func(store.Subscription) *store.Mail) (store.Subscription, error)
	EndSubscription(ctx context.Context, sub store.Subscription, today time.Time, mail func(store.Subscription) *store.Mail) (store.Subscription, error)
	ChangeSubscription(ctx context.Context, customerID, id string, version int, change store.SubscriptionChange) (store.Subscription, error)
	SendReminder(ctx context.Context, sub store.Subscription, today time.Time, mail *store.Mail, more ...*store.Mail) (store.Subscription, error)
	PriceChanges(ctx context.Context) ([]store.PriceChange, error)
	SubscriptionsOfProduct(ctx context.Context, productID string, status store.SubscriptionStatus, limit int, cursor string) (store.Page[store.Subscription], error)
	AnnouncePrice(ctx context.Context, sub store.Subscription, c store.PriceChange, from time.Time, mail *store.Mail) (store.Subscription, error)
	MarkPriceChangeAnnounced(ctx context.Context, c store.PriceChange, day time.Time, told int) error
	ApplyPriceChange(ctx context.Context, c store.PriceChange, day time.Time) error
	OpenIntents(ctx context.Context, before time.Time, limit int) ([]store.Subscription, error)
	RecordProviderIntent(ctx context.Context, sub store.Subscription, provider, ref string) (store.Subscription, error)
	AwaitCustomerPayment(ctx context.Context, sub store.Subscription, mail *store.Mail) (store.Subscription, error)
	CompleteProviderPayment(ctx context.Context, sub store.Subscription, charge store.GatewayCharge, today time.Time, mail func(store.Receipt) *store.Mail, eventID string) (store.Subscription, store.Receipt, error)
	MailCardNeeded(ctx context.Context, sub store.Subscription, mail *store.Mail) (store.Subscription, error)
	EndedProductDrops(ctx context.Context) ([]store.Drop, error)
	SetDropStatus(ctx context.Context, id string, to store.DropStatus) error
	SaveRun(ctx context.Context, r store.JobRun) error
	Runs(ctx context.Context, job string, limit int, cursor string) (store.Page[store.JobRun], error)
	CloseStalledRun(ctx context.Context, run store.JobRun) error
	LeaseOf(ctx context.Context, job string, day time.Time) (store.Lease, error)
	AddRunFailure(ctx context.Context, f store.RunFailure) error
	AcquireLease(ctx context.Context, job string, day time.Time, owner string, ttl time.Duration) (store.Lease, error)
	RenewLease(ctx context.Context, l store.Lease, ttl time.Duration) (store.Lease, error)
	FinishLease(ctx context.Context, l store.Lease) error
	ReleaseLease(ctx context.Context, l store.Lease) error
	// FinishDeletions finishes account deletions that stopped midway.
	FinishDeletions(ctx context.Context, before time.Time) (int, error)
}

// Config tunes the jobs; zero values take the defaults.
type Config struct {
	Replica      string        // this process, in run records and leases
	Concurrency  int           // subscriptions worked on at once (default 16)
	CatchUpDays  int           // how far back a missed payment is still charged (default 60)
	RetryDays    []int         // dunning: days after a decline to retry (default 1, 3, 7)
	ProcessTries int           // tries of a charge the gateway could not process, within a run (default 3)
	BaseURL      string        // for links in mails
	LeaseTTL     time.Duration // a lease's life, renewed at a third of it like a run's heartbeat (default 30 s)
	Archive      Archive       // the archive of the books; nil: the archive job is not scheduled
	// Refunds makes waiting card refunds at the provider that took each
	// payment (payment.CardRefunds). Nil: the gateway's, for the legacy
	// test gateway's charges only.
	Refunds store.Refunder
	// Payments are the card providers: renewals of a card a provider saved
	// are paid there. Without them (and for the old gateway's cards while
	// the test provider is the active one) the gateway charges.
	Payments payment.Providers
	// Holds settles, on the reconcile tick, the held orders whose payment
	// webhook was missed; nil: none are (no card provider).
	Holds HoldSettler
}

// defaultBaseURL starts the mails' links when no BaseURL is given.
const defaultBaseURL = "http://127.0.0.1:8080"

func (c Config) withDefaults() Config {
	if c.Concurrency <= 0 {
		c.Concurrency = 16
	}
	if c.CatchUpDays <= 0 {
		c.CatchUpDays = 60
	}
	if c.RetryDays == nil {
		c.RetryDays = []int{1, 3, 7}
	}
	if c.ProcessTries <= 0 {
		c.ProcessTries = 3
	}
	if c.LeaseTTL <= 0 {
		c.LeaseTTL = 30 * time.Second
	}
	if c.BaseURL == "" {
		c.BaseURL = defaultBaseURL
	}
	if c.Replica == "" {
		c.Replica = "replica-" + store.NewID()
	}
	return c
}

// Errors of a run request.
var (
	ErrUnknownJob = errors.New("unknown job: use reminders, payments, archive, card-refunds or ticket-stock")
	ErrFutureDate = errors.New("a run cannot process a date after today: nobody is charged early")
)

// ErrShutdown is the cause a run's context is cancelled with when its
// replica shuts down: the run stops between two subscriptions, its record
// says interrupted, and its lease is given back for another replica.
var ErrShutdown = errors.New("stopped by the replica's shutdown: the next run does the rest")

// Runner runs the billing jobs against a store and a gateway.
type Runner struct {
	store   Store
	gateway Gateway
	cfg     Config
}

// NewRunner returns a Runner.
func NewRunner(st Store, gw Gateway, cfg Config) *Runner {
	return &Runner{store: st, gateway: gw, cfg: cfg.withDefaults()}
}

// Config is the runner's configuration with its defaults.
func (r *Runner) Config() Config { return r.cfg }

// Run runs one job for one date and returns its record. It refuses a date
// after today. A completed run whatever was declined has no error; a fault
// (the engine unreachable, the context cancelled) has one, and the record
// says so.
func (r *Runner) Run(ctx context.Context, job string, date time.Time, trigger string) (store.JobRun, error) {
	if !ValidJob(job) {
		return store.JobRun{}, ErrUnknownJob
	}
	if date.After(r.store.Today()) {
		return store.JobRun{}, ErrFutureDate
	}
	return r.run(ctx, job, date, runStart{Trigger: trigger}, nil)
}

func (r *Runner) run(ctx context.Context, job string, date time.Time, by runStart, onStart func(string, *recorder) func()) (store.JobRun, error) {
	rec := newRecorder(r.store, store.JobRun{
		ID: store.NewID(), Job: job, Date: date, Trigger: by.Trigger, StartedBy: by.Staff, Replica: r.cfg.Replica,
		StartedAt: r.store.Now(), Outcome: store.RunRunning,
	})
	if err := rec.start(ctx); err != nil {
		return store.JobRun{}, err
	}
	if onStart != nil {
		defer onStart(job, rec)()
	}
	stopHeartbeat := rec.heartbeat(ctx, r.cfg.LeaseTTL/3) // as often as a lease is renewed
	var err error
	switch job {
	case JobReminders:
		err = r.reminders(ctx, rec, date)
		if err == nil {
			err = r.priceChanges(ctx, rec, date)
		}
	case JobPayments:
		err = r.payments(ctx, rec, date)
	case JobArchive:
		err = r.archive(ctx, rec)
	case JobCardRefunds:
		err = r.cardRefunds(ctx, rec)
	case JobTicketStock:
		err = r.ticketStock(ctx, rec)
	}
	if err != nil && errors.Is(context.Cause(ctx), ErrShutdown) {
		err = ErrShutdown // whatever the cancellation broke, the shutdown did it
	}
	stopHeartbeat()
	return rec.finish(err)
}

// dueList pages one shard of a due index.
type dueList func(ctx context.Context, shard int, day time.Time, limit int, cursor string) (store.Page[store.Subscription], error)

// forEachDue pages through every shard of a due index in parallel and hands
// each subscription to work, at most cfg.Concurrency at once. A shard's
// pages are read only as its work is taken, and no order across shards is
// kept (the job needs none). It stops at an error of a list or when ctx is
// cancelled (what is left is the next run's); work counts its outcomes.
// A cancellation stops the run between two subscriptions, never inside
// one: work gets a context that is not cancelled, so a charge is always
// followed by its receipt (a process killed outright is what the intent
// and Reconcile are for).
func (r *Runner) forEachDue(ctx context.Context, rec *recorder, list dueList, date time.Time, work func(ctx context.Context, sub store.Subscription)) error {
	shards, err := r.store.BillingShards(ctx)
	if err != nil {
		return err
	}
	var workers errgroup.Group
	workers.SetLimit(r.cfg.Concurrency)
	var listers errgroup.Group
	for shard := range shards {
		listers.Go(func() error {
			cursor := ""
			for {
				page, err := list(ctx, shard, date, 100, cursor)
				if err != nil {
					return fmt.Errorf("list due subscriptions (shard %d): %w", shard, err)
				}
				rec.addDue(len(page.Items))
				for _, sub := range page.Items {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					// Go may wait for a free worker: the stop is looked at
					// again when the subscription's turn comes.
					workers.Go(func() error {
						if ctx.Err() == nil {
							work(context.WithoutCancel(ctx), sub)
						}
						return nil
					})
				}
				if page.Next == "" {
					return nil
				}
				cursor = page.Next
			}
		})
	}
	err = listers.Wait()
	_ = workers.Wait()
	if err != nil {
		return err
	}
	return ctx.Err()
}
