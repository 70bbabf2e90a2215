package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"shop/jobs"
	"shop/store"
	"shop/store/payment"
	"shop/store/rules"
	"shop/store/storetest"
	"shop/store/storetest/paytest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func day(s string) time.Time {
	d, err := rules.ParseDate(s)
	if err != nil {
		panic(s)
	}
	return d
}

func eur(c int64) store.Money { return store.Money{Amount: c, Currency: "EUR"} }

type clock = storetest.Clock

type billing struct {
	env      storetest.Env
	clock    *clock
	gateway  *payment.TestGateway
	good     store.Card
	declined store.Card
}

// newBilling is a table whose clock stands at noon of today (UTC is the
// shop's zone here) with a card that pays and one that is declined.
func newBilling(t *testing.T, today string, opts ...store.Option) *billing {
	t.Helper()
	c := storetest.NewClock(day(today).Add(12*time.Hour), time.Millisecond)
	env := storetest.New(t, append([]store.Option{store.WithClock(c.Now)}, opts...)...)
	g := payment.NewTestGateway(env.Store)
	g.Now = c.Now
	// Cards the old test gateway tokenised, as subscriptions an older
	// version kept hold them: the payments job renews them through it.
	good := paytest.LegacyCard(t, env.Store, payment.CardSucceeds, "12/99")
	declined := paytest.LegacyCard(t, env.Store, payment.CardDeclined, "12/99")
	return &billing{env: env, clock: c, gateway: g, good: good, declined: declined}
}

func (b *billing) runner(replica string) *jobs.Runner {
	return jobs.NewRunner(b.env.Store, b.gateway, jobs.Config{Replica: replica, Concurrency: 8, RetryDays: []int{1, 3, 7}})
}

// seed creates n active monthly subscriptions of €9.90, paid by card, next
// payment on due, reminders 7 days before.
func (b *billing) seed(t *testing.T, n int, due string, card store.Card) []store.Subscription {
	t.Helper()
	ctx := ctxT(t)
	subs := make([]store.Subscription, n)
	var g errgroup.Group
	g.SetLimit(16)
	for i := range n {
		d := day(due)
		id := store.NewID()
		subs[i] = store.Subscription{
			ID: id, AccountID: "acc" + id, ProductID: "beans", ProductName: "Fika beans",
			Email: fmt.Sprintf("c%d@example.com", i), MonthlyPrice: eur(990), PeriodMonths: 1, PaymentDay: d.Day(),
			Status: store.SubscriptionActive, Card: card, NextPaymentDate: d, NextReminderDate: d.AddDate(0, 0, -7),
			CreatedAt: d.AddDate(0, -1, 0), Version: 1,
		}
		g.Go(func() error { return b.env.Store.CreateSubscription(ctx, subs[i]) })
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	return subs
}

func (b *billing) reread(t *testing.T, s store.Subscription) store.Subscription {
	t.Helper()
	got, err := b.env.Store.SubscriptionConsistent(ctxT(t), s.AccountID, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// Two runs of the payment job at once on one table, and one more after:
// every due subscription is charged once, has one receipt and moved by
// exactly one period; what one run did, the other counts as skipped.
//
// Not parallel: beside other tests' writes, DynamoDB Local times out
// the lock waits of a race like this one.
//
// Two billing shards (the shop has 8) so that 300 subscriptions still
// fill more than one page (100) of each shard, as 1,000 did over 8: the
// runs race across a page boundary at under a third of the writes.
func TestPaymentsTwoRunsAtOnceChargeEachSubscriptionOnce(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 150
	}
	b := newBilling(t, "2026-03-15", store.WithBillingShards(2))
	subs := b.seed(t, n, "2026-03-15", b.good)
	ctx := ctxT(t)
	var runs [2]store.JobRun
	var g errgroup.Group
	for i := range runs {
		g.Go(func() error {
			var err error
			runs[i], err = b.runner(fmt.Sprintf("replica-%d", i)).Run(ctx, jobs.JobPayments, day("2026-03-15"), jobs.TriggerCommandLine)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	charged := runs[0].Counts.Charged + runs[1].Counts.Charged
	if charged != n {
		t.Fatalf("the two runs charged %d + %d, want %d in all", runs[0].Counts.Charged, runs[1].Counts.Charged, n)
	}
	for _, r := range runs {
		if r.Counts.Failed != 0 || r.Outcome != store.RunCompleted {
			t.Fatalf("run %+v", r)
		}
		// Every subscription a run found it charged, or counted as done by
		// the other run; one the other run had moved on before this run's
		// page reached it is no longer due, and not found.
		if r.Counts.Charged+r.Counts.Skipped != r.Counts.Due {
			t.Errorf("run found %d, charged %d and skipped %d: the rest?", r.Counts.Due, r.Counts.Charged, r.Counts.Skipped)
		}
	}
	again, err := b.runner("replica-3").Run(ctx, jobs.JobPayments, day("2026-03-15"), jobs.TriggerCommandLine)
	if err != nil || again.Counts.Charged != 0 {
		t.Fatalf("a third run charged %d (%v), want 0", again.Counts.Charged, err)
	}
	if got := b.env.CountEntities(t, "receipt"); got != n {
		t.Fatalf("%d receipts, want %d", got, n)
	}
	if got := b.env.CountEntities(t, "gatewayCharge"); got != n {
		t.Fatalf("%d charges in the gateway's ledger, want %d", got, n)
	}
	for _, s := range subs[:min(n, 50)] {
		now := b.reread(t, s)
		if store.FormatDate(now.NextPaymentDate) != "2026-04-15" || now.Intent != nil || now.Status != store.SubscriptionActive {
			t.Fatalf("after the runs: next %s, intent %v, status %s", store.FormatDate(now.NextPaymentDate), now.Intent, now.Status)
		}
	}
}

// A run stopped half-way, and charges that crash between the gateway and the
// shop's write: the next run charges everybody left once, with the same key
// for the crashed ones (so the same charge), and no receipt is missing.
func TestPaymentsAfterACrashChargeOnceAndMissNobody(t *testing.T) {
	t.Parallel()
	n := 120
	b := newBilling(t, "2026-03-15")
	b.seed(t, n, "2026-03-15", b.good)
	ctx := ctxT(t)
	var crashes atomic.Int32
	b.gateway.AfterCharge = func(ctx context.Context, key string) error {
		if crashes.Add(1) <= 10 {
			return errors.New("the process died after the charge")
		}
		return nil
	}
	// Stop the first run after a few dozen charges.
	stopCtx, stop := context.WithCancel(ctx)
	var charges atomic.Int32
	prev := b.gateway.AfterCharge
	b.gateway.AfterCharge = func(ctx context.Context, key string) error {
		if charges.Add(1) == 40 {
			stop()
		}
		return prev(ctx, key)
	}
	first, err := b.runner("r1").Run(stopCtx, jobs.JobPayments, day("2026-03-15"), jobs.TriggerCommandLine)
	if !errors.Is(err, context.Canceled) || first.Outcome != store.RunCancelled {
		t.Fatalf("the stopped run: %v, outcome %s", err, first.Outcome)
	}
	if first.Counts.Charged >= n {
		t.Fatalf("the stopped run charged all %d", first.Counts.Charged)
	}
	b.gateway.AfterCharge = nil
	second, err := b.runner("r2").Run(ctx, jobs.JobPayments, day("2026-03-15"), jobs.TriggerCommandLine)
	if err != nil {
		t.Fatal(err)
	}
	// A write the stopped run made but could not hear back about counts as
	// failed there and as already done here: the receipts tell the truth.
	if got := first.Counts.Charged + second.Counts.Charged; got > n || got < n-first.Counts.Failed {
		t.Fatalf("charged %d + %d (the first failed %d), want %d", first.Counts.Charged, second.Counts.Charged, first.Counts.Failed, n)
	}
	if got := b.env.CountEntities(t, "receipt"); got != n {
		t.Fatalf("%d receipts, want %d", got, n)
	}
	if got := b.env.CountEntities(t, "gatewayCharge"); got != n {
		t.Fatalf("%d ledger charges, want %d", got, n)
	}
}

// The shop was down 40 days: one run charges each missed period once, in
// order, each with its receipt; one due 90 days ago is listed for staff.
func TestPaymentsCatchUpMissedPeriodsWithinTheWindow(t *testing.T) {
	t.Parallel()
	b := newBilling(t, "2026-04-24")
	ctx := ctxT(t)
	late := b.seed(t, 1, "2026-03-15", b.good)[0]   // missed 15 March and 15 April
	stale := b.seed(t, 1, "2026-01-24", b.good)[0]  // 90 days ago: beyond the window
	ontime := b.seed(t, 1, "2026-04-24", b.good)[0] // today
	run, err := b.runner("r").Run(ctx, jobs.JobPayments, day("2026-04-24"), jobs.TriggerSchedule)
	if err != nil {
		t.Fatal(err)
	}
	if run.Counts.Charged != 3 || run.Counts.Attention != 1 {
		t.Fatalf("counts %+v, want 3 charged (2 + 1) and 1 for staff", run.Counts)
	}
	if got := store.FormatDate(b.reread(t, late).NextPaymentDate); got != "2026-05-15" {
		t.Fatalf("the late one's next payment: %s", got)
	}
	page, err := b.env.Store.Receipts(ctx, late.AccountID, "2026-01-01", "2026-12-31", 10, "")
	if err != nil || len(page.Items) != 2 {
		t.Fatalf("the late one's receipts: %+v, %v", page, err)
	}
	// Newest first: April's period, then March's.
	if store.FormatDate(page.Items[0].PeriodStart) != "2026-04-15" || store.FormatDate(page.Items[1].PeriodStart) != "2026-03-15" {
		t.Fatalf("periods %s, %s", store.FormatDate(page.Items[0].PeriodStart), store.FormatDate(page.Items[1].PeriodStart))
	}
	if got := b.reread(t, stale); store.FormatDate(got.NextPaymentDate) != "2026-01-24" || got.Intent != nil {
		t.Fatalf("the stale one was touched: %+v", got)
	}
	failures, err := b.env.Store.RunFailures(ctx, run.ID, 10, "")
	if err != nil || len(failures.Items) != 1 || failures.Items[0].SubscriptionID != stale.ID {
		t.Fatalf("failures for staff: %+v, %v", failures, err)
	}
	if got := store.FormatDate(b.reread(t, ontime).NextPaymentDate); got != "2026-05-24" {
		t.Fatalf("the on-time one: %s", got)
	}
}

// A declined card: past due with retries after 1, 3 and 7 days, a mail each
// time, then cancelled; and a card change that pays at once.
func TestPaymentsDunning(t *testing.T) {
	t.Parallel()
	b := newBilling(t, "2026-03-15")
	ctx := ctxT(t)
	sub := b.seed(t, 1, "2026-03-15", b.declined)[0]
	r := b.runner("r")
	want := []struct {
		date, retry string
		status      store.SubscriptionStatus
	}{
		{"2026-03-15", "2026-03-16", store.SubscriptionPastDue},
		{"2026-03-16", "2026-03-19", store.SubscriptionPastDue},
		{"2026-03-19", "2026-03-26", store.SubscriptionPastDue},
		{"2026-03-26", "", store.SubscriptionCancelled},
	}
	for _, w := range want {
		b.clock.Set(day(w.date).Add(12 * time.Hour))
		run, err := r.Run(ctx, jobs.JobPayments, day(w.date), jobs.TriggerSchedule)
		if err != nil || run.Counts.Declined != 1 {
			t.Fatalf("%s: %+v, %v", w.date, run.Counts, err)
		}
		got := b.reread(t, sub)
		if got.Status != w.status || store.FormatDate(got.RetryDate) != w.retry {
			t.Fatalf("%s: status %s retry %s, want %s %s", w.date, got.Status, store.FormatDate(got.RetryDate), w.status, w.retry)
		}
	}
	if got := b.env.CountEntities(t, "mail"); got != 4 {
		t.Fatalf("%d mails, want 3 about the failed payment and 1 about the end", got)
	}

	// Another customer changes the card after the first decline: the
	// retry is today, and the job charges it.
	b.clock.Set(day("2026-04-01").Add(12 * time.Hour))
	other := b.seed(t, 1, "2026-04-01", b.declined)[0]
	if _, err := r.Run(ctx, jobs.JobPayments, day("2026-04-01"), jobs.TriggerSchedule); err != nil {
		t.Fatal(err)
	}
	other = b.reread(t, other)
	if other.Status != store.SubscriptionPastDue {
		t.Fatalf("after the decline: %s", other.Status)
	}
	if _, err := b.env.Store.ChangeSubscription(ctx, other.AccountID, other.ID, other.Version, store.ChangeCard(b.good)); err != nil {
		t.Fatal(err)
	}
	run, err := r.Run(ctx, jobs.JobPayments, day("2026-04-01"), jobs.TriggerStaff)
	if err != nil || run.Counts.Charged != 1 {
		t.Fatalf("after the card change: %+v, %v", run.Counts, err)
	}
	if got := b.reread(t, other); got.Status != store.SubscriptionActive || store.FormatDate(got.NextPaymentDate) != "2026-05-01" {
		t.Fatalf("paid: status %s next %s", got.Status, store.FormatDate(got.NextPaymentDate))
	}
}

// Reminders go out once per payment; a rerun sends nothing; a reminder whose
// payment date has passed is dropped unsent.
func TestRemindersOncePerPayment(t *testing.T) {
	t.Parallel()
	b := newBilling(t, "2026-03-08")
	ctx := ctxT(t)
	b.seed(t, 30, "2026-03-15", b.good) // reminders on 8 March
	b.seed(t, 1, "2026-03-07", b.good)  // its payment date passed: dropped
	r := b.runner("r")
	run, err := r.Run(ctx, jobs.JobReminders, day("2026-03-08"), jobs.TriggerSchedule)
	if err != nil || run.Counts.Mailed != 30 || run.Counts.Skipped != 1 {
		t.Fatalf("reminders: %+v, %v", run.Counts, err)
	}
	again, err := r.Run(ctx, jobs.JobReminders, day("2026-03-08"), jobs.TriggerSchedule)
	if err != nil || again.Counts.Mailed != 0 || again.Counts.Due != 0 {
		t.Fatalf("a second run: %+v, %v", again.Counts, err)
	}
	if got := b.env.CountEntities(t, "mail"); got != 30 {
		t.Fatalf("%d mails in the outbox, want 30", got)
	}
}

// Two replicas race for one tick: exactly one runs it; after it is done
// nobody runs it again; a holder that dies loses the lease at its expiry.
func TestLeaseOneRunnerPerTick(t *testing.T) {
	t.Parallel()
	b := newBilling(t, "2026-03-15")
	b.seed(t, 20, "2026-03-15", b.good)
	ctx := ctxT(t)
	var g errgroup.Group
	var ran, refused atomic.Int32
	for i := range 4 {
		g.Go(func() error {
			_, err := jobs.RunLeased(ctx, b.runner(fmt.Sprintf("replica-%d", i)), b.env.Store, jobs.JobPayments, day("2026-03-15"), jobs.TriggerSchedule, nil)
			switch {
			case err == nil:
				ran.Add(1)
			case errors.Is(err, store.ErrLeaseHeld), errors.Is(err, store.ErrLeaseDone):
				refused.Add(1)
			default:
				return err
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	if ran.Load() != 1 || refused.Load() != 3 {
		t.Fatalf("%d replicas ran the tick, %d were refused; want 1 and 3", ran.Load(), refused.Load())
	}
	if _, err := jobs.RunLeased(ctx, b.runner("late"), b.env.Store, jobs.JobPayments, day("2026-03-15"), jobs.TriggerSchedule, nil); !errors.Is(err, store.ErrLeaseDone) {
		t.Fatalf("a slower replica's tick: %v, want ErrLeaseDone", err)
	}
	// A holder that dies without renewing: the lease is free after its expiry.
	if _, err := b.env.Store.AcquireLease(ctx, jobs.JobReminders, day("2026-03-15"), "dead", 2*time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := b.env.Store.AcquireLease(ctx, jobs.JobReminders, day("2026-03-15"), "alive", time.Minute); !errors.Is(err, store.ErrLeaseHeld) {
		t.Fatalf("while the holder's lease runs: %v", err)
	}
	b.clock.Set(b.clock.Now().Add(3 * time.Second))
	if _, err := b.env.Store.AcquireLease(ctx, jobs.JobReminders, day("2026-03-15"), "alive", time.Minute); err != nil {
		t.Fatalf("after the dead holder's expiry: %v", err)
	}
}

// Two schedulers on one table tick every two seconds for a few ticks: the
// date's run happens on exactly one of them.
func TestTwoSchedulersRunEachTickOnce(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("ticks for several seconds")
	}
	today := time.Now().UTC().Format("2006-01-02")
	b := newBilling(t, today)
	b.clock.Set(time.Now().UTC())
	b.seed(t, 10, today, b.good)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var scheds []*jobs.Scheduler
	for i := range 2 {
		s, err := jobs.NewScheduler(b.runner(fmt.Sprintf("sched-%d", i)), b.env.Store, time.UTC,
			jobs.Schedules{Reminders: "*/2 * * * * *", Payments: "*/2 * * * * *", Reconcile: "0 0 0 1 1 *", Seconds: true}, log)
		if err != nil {
			t.Fatal(err)
		}
		s.Start()
		scheds = append(scheds, s)
	}
	time.Sleep(7 * time.Second)
	for _, s := range scheds {
		if err := s.Stop(); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := b.env.Store.Runs(ctxT(t), jobs.JobPayments, 50, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(runs.Items) != 1 || runs.Items[0].Counts.Charged != 10 {
		t.Fatalf("%d payment runs (%+v), want exactly 1 that charged 10", len(runs.Items), runs.Items)
	}
}

// A six-field expression has a seconds field without Schedules.Seconds, so
// SHOP_PAYMENTS_CRON can tick every few seconds (the cluster check's does);
// five fields stay minutes.
func TestSixFieldCronTicksInSeconds(t *testing.T) {
	t.Parallel()
	b := newBilling(t, time.Now().UTC().Format("2006-01-02"))
	s, err := jobs.NewScheduler(b.runner("six"), b.env.Store, time.UTC,
		jobs.Schedules{Payments: "*/3 * * * * *", Reminders: "0 6 * * *"}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Error(err)
		}
	})
	if next := s.NextRun(jobs.JobPayments); next.IsZero() || time.Until(next) > 3*time.Second {
		t.Errorf("payments every 3 s: next run %s, in %s", next, time.Until(next))
	}
	if next := s.NextRun(jobs.JobReminders).UTC(); next.Hour() != 6 || next.Minute() != 0 || next.Second() != 0 {
		t.Errorf("reminders at 06:00: next run %s", next)
	}
}

func TestRunRefusesAFutureDateAndAnUnknownJob(t *testing.T) {
	t.Parallel()
	b := newBilling(t, "2026-03-15")
	r := b.runner("r")
	if _, err := r.Run(ctxT(t), jobs.JobPayments, day("2026-03-16"), jobs.TriggerStaff); !errors.Is(err, jobs.ErrFutureDate) {
		t.Fatalf("tomorrow: %v", err)
	}
	if _, err := r.Run(ctxT(t), "refunds", day("2026-03-15"), jobs.TriggerStaff); !errors.Is(err, jobs.ErrUnknownJob) {
		t.Fatalf("unknown job: %v", err)
	}
	if got := b.env.CountEntities(t, "jobRun"); got != 0 {
		t.Fatalf("%d runs recorded for refused requests", got)
	}
}
