package web_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"shop/jobs"
	"shop/store"
	"shop/store/demo"
	"shop/store/payment"
	"shop/store/storetest"
	"shop/store/storetest/paytest"
	"shop/web"
)

// jobsHarness is a real billing jobs scheduler over a test's table, never
// started (RunNow needs no cron), with a gateway whose card the seeded
// subscriptions pay with.
type jobsHarness struct {
	sched   *jobs.Scheduler
	store   *store.Store
	gateway *payment.TestGateway
	card    store.Card
	replica string
	delay   atomic.Int64 // nanoseconds each charge takes, so a run lasts a while
}

// withJobsScheduler gives the app a scheduler (set in *h) of concurrency
// workers. At the test's end it waits for the runs it started to end, before
// the table goes.
func withJobsScheduler(t *testing.T, h **jobsHarness, concurrency int) appOption {
	return func(env storetest.Env, cfg *web.Config) {
		t.Helper()
		jh := &jobsHarness{store: env.Store, replica: "test-replica"}
		jh.gateway = payment.NewTestGateway(env.Store)
		jh.gateway.AfterCharge = func(ctx context.Context, _ string) error {
			if d := time.Duration(jh.delay.Load()); d > 0 {
				select {
				case <-time.After(d):
				case <-ctx.Done():
				}
			}
			return nil
		}
		jh.card = paytest.LegacyCard(t, env.Store, payment.CardSucceeds, "12/99") // as subscriptions of an older version keep it
		// The app's card providers renew the cards they saved: the demo's.
		runner := jobs.NewRunner(env.Store, jh.gateway, jobs.Config{Replica: jh.replica, Concurrency: concurrency, Payments: cfg.Payments})
		var err error
		jh.sched, err = jobs.NewScheduler(runner, env.Store, time.UTC, jobs.Schedules{}, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(jh.waitIdle)
		cfg.Jobs = jh.sched
		*h = jh
	}
}

// waitIdle waits for the runs this replica makes to end and give back or
// finish their lease.
func (h *jobsHarness) waitIdle() {
	deadline := time.Now().Add(time.Minute)
	for _, job := range []string{jobs.JobReminders, jobs.JobPayments} {
		for time.Now().Before(deadline) {
			if _, running := h.sched.Running(job); !running {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	time.Sleep(200 * time.Millisecond) // the lease is marked after the run
}

// seedDue creates n active monthly subscriptions of €9.90 paid by the
// harness's card, their payment due on due; mod may change each.
func (h *jobsHarness) seedDue(t *testing.T, n int, due time.Time, mod ...func(*store.Subscription)) []store.Subscription {
	t.Helper()
	subs := make([]store.Subscription, n)
	var g errgroup.Group
	g.SetLimit(8)
	for i := range n {
		id := store.NewID()
		subs[i] = store.Subscription{
			ID: id, AccountID: "acc" + id, ProductID: "cf-light", ProductName: "Archipelago Light Roast 500 g",
			Email: fmt.Sprintf("due%d-%s@example.com", i, store.FormatDate(due)), MonthlyPrice: store.Money{Amount: 990, Currency: "EUR"},
			PeriodMonths: 1, PaymentDay: due.Day(), Status: store.SubscriptionActive, Card: h.card,
			NextPaymentDate: due, NextReminderDate: due.AddDate(0, 0, -7), CreatedAt: due.AddDate(0, -1, 0), Version: 1,
		}
		for _, m := range mod {
			m(&subs[i])
		}
		g.Go(func() error { return h.store.CreateSubscription(context.Background(), subs[i]) })
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	return subs
}

// recordRun saves a run record as a replica would; ids sort by creation,
// so records made in a row list newest last made first.
func recordRun(t *testing.T, st *store.Store, r store.JobRun) store.JobRun {
	t.Helper()
	if r.ID == "" {
		time.Sleep(2 * time.Millisecond)
		r.ID = store.NewID()
	}
	if err := st.SaveRun(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return r
}

// pollRun reads a run's page until cond holds for it.
func pollRun(t *testing.T, b *browser, path string, cond func(page) bool) page {
	t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	for {
		p := b.get(path)
		wantStatus(t, "run page", p, http.StatusOK)
		if cond(p) {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never got there: outcome %q, counts %q", path, p.testid("run-page-outcome").Text(), squash(p.testid("run-counts").Text()))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

func jobsAttr(sel *goquerySelection, name string) string { v, _ := sel.Attr(name); return v }

// The console lists each job's runs from the table (newest first, a page
// at a time), today's lease, and on a replica without a scheduler says so
// and refuses "Run now" with a 503. It is for staff only.
func TestAdminJobsConsoleShowsRecordedRunsAndIsForStaff(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := context.Background()
	today := s.env.Store.Today()
	now := time.Now().UTC()
	var payments []store.JobRun
	for i := 11; i >= 0; i-- { // oldest first: the newest is made last
		start := now.Add(-time.Duration(i)*24*time.Hour - time.Hour)
		payments = append(payments, recordRun(t, s.env.Store, store.JobRun{
			Job: jobs.JobPayments, Date: today.AddDate(0, 0, -i), Trigger: jobs.TriggerSchedule, Replica: "replica-a",
			StartedAt: start, EndedAt: start.Add(1500 * time.Millisecond), Outcome: store.RunCompleted,
			Counts: store.RunCounts{Due: 10 + i, Charged: 8, Declined: 1, Skipped: 1 + i, Mailed: 9},
		}))
	}
	newest := payments[len(payments)-1]
	reminder := recordRun(t, s.env.Store, store.JobRun{
		Job: jobs.JobReminders, Date: today, Trigger: jobs.TriggerStaff, Replica: "replica-b",
		StartedAt: now.Add(-time.Minute), EndedAt: now.Add(-time.Minute + 300*time.Millisecond), Outcome: store.RunCompleted,
		Counts: store.RunCounts{Due: 3, Mailed: 3},
	})
	if _, err := s.env.Store.AcquireLease(ctx, jobs.JobReminders, today, "replica-b", time.Minute); err != nil {
		t.Fatal(err)
	}

	staff := s.staff(t)
	p := staff.get("/admin/jobs")
	wantStatus(t, "jobs console", p, http.StatusOK)
	if p.testid("nav-jobs").Length() != 1 || p.testid("nav-outbox").Length() != 1 {
		t.Fatal("the admin nav has no Jobs or Outbox")
	}
	wantText(t, "scheduler off", p.testid("scheduler-off"), "SHOP_JOBS=false")
	if _, disabled := p.testid("run-now-payments").Attr("disabled"); !disabled {
		t.Fatal("Run now is enabled on a replica without a scheduler")
	}
	pay := p.testid("job-payments")
	rows := pay.Find(`[data-testid="run-row"]`)
	if rows.Length() != 10 {
		t.Fatalf("payments shows %d runs, want a page of 10", rows.Length())
	}
	first := rows.First()
	if got := jobsAttr(first, "data-run"); got != newest.ID {
		t.Fatalf("first run %s, want the newest %s", got, newest.ID)
	}
	for id, want := range map[string]string{
		"run-link": store.FormatDate(today), "run-trigger": "schedule", "run-outcome": "completed", "run-duration": "1.5 s",
		"run-due": "10", "run-charged": "8", "run-declined": "1", "run-skipped": "1", "run-failed": "0", "run-mailed": "9",
	} {
		if got := squash(first.Find(`[data-testid="` + id + `"]`).Text()); got != want {
			t.Errorf("newest run's %s: %q, want %q", id, got, want)
		}
	}
	if href := jobsAttr(first.Find(`[data-testid="run-link"]`), "href"); href != "/admin/jobs/payments/runs/"+newest.ID {
		t.Errorf("run link %q", href)
	}
	wantText(t, "payments lease", pay.Find(`[data-testid="job-lease"]`), "free")
	wantText(t, "schedule without a scheduler", pay.Find(`[data-testid="job-schedule"]`), "not scheduled")
	rem := p.testid("job-reminders")
	if got := rem.Find(`[data-testid="run-row"]`).Length(); got != 1 {
		t.Fatalf("reminders shows %d runs, want 1", got)
	}
	wantText(t, "reminders row", rem.Find(`[data-testid="run-row"]`), reminder.Replica)
	wantText(t, "reminders lease", rem.Find(`[data-testid="job-lease"]`), "held by replica-b")
	if pay.Find(`[data-testid="run-progress"]`).Length() != 0 || strings.Contains(p.body, `http-equiv="refresh"`) {
		t.Fatal("nothing runs, yet the page shows progress or refreshes itself")
	}
	// The reminders run ended a minute ago: how it ended shows, not polled.
	ended := rem.Find(`[data-testid="run-progress"]`)
	if ended.Length() != 1 || jobsAttr(ended, "data-outcome") != store.RunCompleted {
		t.Fatal("the console does not show how the run that just ended went")
	}
	if _, polling := ended.Attr("hx-trigger"); polling {
		t.Fatal("an ended run is polled")
	}
	wantText(t, "reminders progress", ended.Find(`[data-testid="run-progress-counts"]`), "3 reminders mailed")

	// "Show more": htmx gets the rows of the next page, a plain visit the
	// job's run history.
	more := jobsAttr(pay.Find(`[data-testid="runs-more-payments"]`), "hx-get")
	if more == "" {
		t.Fatal("no 'show more' under 10 of 12 runs")
	}
	next := staff.get(more, "HX-Request", "true")
	wantStatus(t, "next runs", next, http.StatusOK)
	if got := next.testid("run-row").Length(); got != 2 || strings.Contains(next.body, "<html") {
		t.Fatalf("next page: %d rows (want the 2 oldest, as rows only)", got)
	}
	if got := jobsAttr(next.testid("run-row").Last(), "data-run"); got != payments[0].ID {
		t.Fatalf("last row %s, want the oldest run %s", got, payments[0].ID)
	}
	if next.testid("runs-more-payments").Length() != 0 {
		t.Fatal("a 'show more' after the last page")
	}
	plain := staff.get(more)
	wantStatus(t, "run history without htmx", plain, http.StatusOK)
	if plain.testid("runs-payments").Length() != 1 || plain.testid("run-row").Length() != 2 {
		t.Fatalf("history page: %d tables, %d rows", plain.testid("runs-payments").Length(), plain.testid("run-row").Length())
	}
	wantStatus(t, "runs of no job", staff.get("/admin/jobs/refunds/runs"), http.StatusNotFound)

	// No scheduler here: "Run now" is a 503 that says why.
	off := staff.post("/admin/jobs/payments/run", url.Values{"date": {store.FormatDate(today)}})
	wantStatus(t, "run now without a scheduler", off, http.StatusServiceUnavailable)
	wantText(t, "503 message", off.testid("job-payments").Find(`[data-testid="form-error"]`), "The scheduler is off on this replica (SHOP_JOBS=false)")

	// Staff only.
	customer := s.browser(t)
	customer.signIn(demo.CustomerEmail, demo.CustomerPassword)
	for _, path := range []string{"/admin/jobs", "/admin/jobs/payments/runs", "/admin/jobs/payments/runs/" + newest.ID, "/admin/jobs/payments/runs/" + newest.ID + "/progress", "/admin/outbox"} {
		wantStatus(t, "customer at "+path, customer.get(path), http.StatusForbidden)
	}
	customer.get("/subscriptions") // a page with the customer's CSRF token
	wantStatus(t, "customer runs a job", customer.post("/admin/jobs/payments/run", url.Values{"date": {store.FormatDate(today)}}), http.StatusForbidden)
	visitor := s.browser(t).get("/admin/jobs")
	if visitor.status != http.StatusSeeOther || !strings.HasPrefix(visitor.header.Get("Location"), "/login") {
		t.Fatalf("visitor at /admin/jobs: %d to %q, want a 303 to sign in", visitor.status, visitor.header.Get("Location"))
	}
}

// A run recorded as running shows a progress bar that htmx asks for every
// second (and a refresh for browsers without JavaScript); once the record
// says it ended, the progress comes back without the trigger. A run whose
// lease ran out is shown stalled, and not polled.
func TestAdminJobsProgressPollsUntilTheRunEnds(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := context.Background()
	today := s.env.Store.Today()
	now := time.Now().UTC()
	lease, err := s.env.Store.AcquireLease(ctx, jobs.JobPayments, today, "replica-a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	run := recordRun(t, s.env.Store, store.JobRun{
		Job: jobs.JobPayments, Date: today, Trigger: jobs.TriggerStaff, Replica: "replica-a", StartedAt: now.Add(-3 * time.Second),
		Outcome: store.RunRunning, Counts: store.RunCounts{Due: 40, Charged: 9, Declined: 1, Mailed: 10},
	})
	progressURL := "/admin/jobs/payments/runs/" + run.ID + "/progress"

	staff := s.staff(t)
	p := staff.get("/admin/jobs")
	wantStatus(t, "jobs console", p, http.StatusOK)
	prog := p.testid("job-payments").Find(`[data-testid="run-progress"]`)
	if prog.Length() != 1 {
		t.Fatal("no progress of the running payments run")
	}
	if got := jobsAttr(prog, "hx-trigger"); got != "every 1s" {
		t.Fatalf("progress hx-trigger %q, want every 1s", got)
	}
	if got := jobsAttr(prog, "hx-get"); got != progressURL {
		t.Fatalf("progress hx-get %q, want %s", got, progressURL)
	}
	bar := prog.Find(`[data-testid="run-progress-bar"]`)
	if jobsAttr(bar, "value") != "10" || jobsAttr(bar, "max") != "40" {
		t.Fatalf("progress bar %s of %s, want 10 of 40 (a charge's mail is not a second subscription)", jobsAttr(bar, "value"), jobsAttr(bar, "max"))
	}
	wantText(t, "progress counts", prog, "9 charged")
	if !strings.Contains(p.body, `<noscript><meta http-equiv="refresh" content="2"`) {
		t.Fatal("no refresh for browsers without JavaScript while a run goes")
	}

	part := staff.get(progressURL, "HX-Request", "true")
	wantStatus(t, "progress partial", part, http.StatusOK)
	if strings.Contains(part.body, "<html") || jobsAttr(part.testid("run-progress"), "hx-trigger") != "every 1s" {
		t.Fatalf("progress partial while running: %s", trim(part.body))
	}

	// The run ends: the next answer stops the polling.
	run.Outcome, run.EndedAt = store.RunCompleted, now
	run.Counts = store.RunCounts{Due: 40, Charged: 38, Declined: 2, Mailed: 40}
	recordRun(t, s.env.Store, run)
	if err := s.env.Store.FinishLease(ctx, lease); err != nil {
		t.Fatal(err)
	}
	part = staff.get(progressURL, "HX-Request", "true")
	wantStatus(t, "progress partial", part, http.StatusOK)
	ended := part.testid("run-progress")
	if _, polling := ended.Attr("hx-trigger"); polling {
		t.Fatal("the progress of an ended run still polls")
	}
	if got := part.header.Get("HX-Refresh"); got != "true" {
		t.Fatalf("HX-Refresh %q: the page around the progress is not reloaded when the run ends", got)
	}
	if jobsAttr(ended, "data-outcome") != store.RunCompleted || jobsAttr(part.testid("run-progress-bar"), "value") != "40" {
		t.Fatalf("ended progress: %s", trim(part.body))
	}
	if jobsAttr(part.testid("run-progress-link"), "href") != "/admin/jobs/payments/runs/"+run.ID {
		t.Fatal("the ended progress does not lead to the run")
	}
	p = staff.get("/admin/jobs")
	prog = p.testid("job-payments").Find(`[data-testid="run-progress"]`)
	if _, polling := prog.Attr("hx-trigger"); polling || jobsAttr(prog, "data-outcome") != store.RunCompleted || strings.Contains(p.body, `http-equiv="refresh"`) {
		t.Fatal("the console does not show the run ended, or still polls")
	}
	wantText(t, "lease after the run", p.testid("job-payments").Find(`[data-testid="job-lease"]`), "done")

	// Opened without htmx, the progress URL is a page.
	full := staff.get(progressURL)
	wantStatus(t, "progress page", full, http.StatusOK)
	if !strings.Contains(full.body, "<html") || full.testid("run-progress").Length() != 1 || full.header.Get("HX-Refresh") != "" {
		t.Fatal("the progress URL without htmx is no page")
	}

	// A reminders run recorded as running whose replica holds no lease has
	// stalled: shown so, not polled.
	recordRun(t, s.env.Store, store.JobRun{
		Job: jobs.JobReminders, Date: today, Trigger: jobs.TriggerSchedule, Replica: "replica-gone", StartedAt: now.Add(-time.Hour),
		Outcome: store.RunRunning, Counts: store.RunCounts{Due: 5, Mailed: 2},
	})
	p = staff.get("/admin/jobs")
	stalled := p.testid("job-reminders").Find(`[data-testid="run-progress"]`)
	if stalled.Length() != 1 {
		t.Fatal("no progress for the stalled reminders run")
	}
	if _, polling := stalled.Attr("hx-trigger"); polling || strings.Contains(p.body, `http-equiv="refresh"`) {
		t.Fatal("a stalled run is polled")
	}
	wantText(t, "stalled", stalled.Find(`[data-testid="run-stalled"]`), "no replica holds the lease")
}

// A run's page has its counts, error, failures (linking the customer, a
// page at a time) and an SVG chart of the job's last 30 days; an unknown
// job or run is a 404.
func TestAdminJobsRunPageFailuresAndChart(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := context.Background()
	today := s.env.Store.Today()
	now := time.Now().UTC()
	ada := s.customerID(t, demo.CustomerEmail)
	at := func(daysAgo int) time.Time { return now.Add(-time.Duration(daysAgo) * 24 * time.Hour) }
	recordRun(t, s.env.Store, store.JobRun{Job: jobs.JobPayments, Date: today.AddDate(0, 0, -40), Trigger: jobs.TriggerSchedule, Replica: "r1",
		StartedAt: at(40), EndedAt: at(40).Add(time.Second), Outcome: store.RunCompleted, Counts: store.RunCounts{Due: 7, Charged: 7, Mailed: 7}})
	failed := recordRun(t, s.env.Store, store.JobRun{Job: jobs.JobPayments, Date: today.AddDate(0, 0, -10), Trigger: jobs.TriggerSchedule, Replica: "r1",
		StartedAt: at(10), EndedAt: at(10).Add(time.Second), Outcome: store.RunFailed, Error: "list due subscriptions: the engine went away"})
	recordRun(t, s.env.Store, store.JobRun{Job: jobs.JobPayments, Date: today.AddDate(0, 0, -3), Trigger: jobs.TriggerSchedule, Replica: "r1",
		StartedAt: at(3), EndedAt: at(3).Add(4 * time.Second), Outcome: store.RunCompleted, Counts: store.RunCounts{Due: 12, Charged: 12, Mailed: 12}})
	run := recordRun(t, s.env.Store, store.JobRun{Job: jobs.JobPayments, Date: today, Trigger: jobs.TriggerStaff, Replica: "r2",
		StartedAt: now.Add(-time.Minute), EndedAt: now.Add(-time.Minute + 2*time.Second), Outcome: store.RunCompleted,
		Counts: store.RunCounts{Due: 9, Charged: 5, Declined: 1, Failed: 2, Attention: 1, Mailed: 6}})
	for i, f := range []store.RunFailure{
		{SubscriptionID: "sub-a", AccountID: ada, Reason: "charge: the gateway did not answer"},
		{SubscriptionID: "sub-b", AccountID: "acc-b", Reason: "record the payment: throttled"},
		{SubscriptionID: "sub-c", AccountID: ada, Reason: "due since 2020-01-01, beyond the 60-day catch-up window: not charged, needs staff"},
	} {
		f.RunID, f.At = run.ID, now.Add(-time.Minute+time.Duration(i)*time.Second)
		if err := s.env.Store.AddRunFailure(ctx, f); err != nil {
			t.Fatal(err)
		}
	}

	staff := s.staff(t)
	path := "/admin/jobs/payments/runs/" + run.ID
	p := staff.get(path)
	wantStatus(t, "run page", p, http.StatusOK)
	wantText(t, "title", p.testid("run-title"), "Payments run for "+store.FormatDate(today))
	for key, want := range map[string]string{"due": "9", "charged": "5", "declined": "1", "failed": "2", "attention": "1", "mailed": "6"} {
		if got := squash(p.testid("count-" + key).Text()); got != want {
			t.Errorf("count %s: %q, want %q", key, got, want)
		}
	}
	wantText(t, "outcome", p.testid("run-page-outcome"), "completed")
	wantText(t, "duration", p.testid("run-page-duration"), "2.0 s")
	if _, polling := p.testid("run-progress").Attr("hx-trigger"); polling || strings.Contains(p.body, `http-equiv="refresh"`) {
		t.Fatal("a completed run's page polls")
	}
	rows := p.testid("failure-row")
	if rows.Length() != 3 {
		t.Fatalf("%d failures, want 3", rows.Length())
	}
	links := map[string]string{}
	rows.Each(func(_ int, r *goquerySelection) {
		links[jobsAttr(r, "data-subscription")] = jobsAttr(r.Find(`[data-testid="failure-customer"]`), "href")
	})
	if links["sub-a"] != "/admin/customers/"+ada || links["sub-b"] != "/admin/customers/acc-b" {
		t.Fatalf("failure links to customers: %v", links)
	}
	wantText(t, "failure reasons", rows, "the gateway did not answer")

	// The chart: two panels of bars for the three days of the last 30 that
	// had runs (the run 40 days ago is outside), drawn on the server.
	svg := p.doc.Find(`[data-testid="run-chart"] svg`)
	if svg.Length() != 1 || p.doc.Find(`[data-testid="run-chart"] script`).Length() != 0 {
		t.Fatal("no inline SVG chart (or one with a script)")
	}
	if got := svg.Find(`[data-testid="run-chart-bar"]`).Length(); got != 6 {
		t.Fatalf("%d bars, want 6 (3 days × charged and duration)", got)
	}
	if svg.Find(`[data-testid="run-chart-current"]`).Length() != 1 {
		t.Fatal("the run's day is not marked")
	}
	wantText(t, "chart text alternative", svg.Find("desc"), "3 runs of payments in the last 30 days, 17 subscriptions charged; a run failed or was cancelled on 1 day")
	wantText(t, "axis labels", svg, today.Format("2 Jan"))
	days := p.testid("run-chart-day")
	if days.Length() != 3 {
		t.Fatalf("chart table has %d days, want 3", days.Length())
	}
	if got := squash(days.Last().Find(`[data-testid="run-chart-count"]`).Text()); got != "5" {
		t.Fatalf("today's charged in the chart: %q", got)
	}

	// The failed run shows its error.
	fp := staff.get("/admin/jobs/payments/runs/" + failed.ID)
	wantStatus(t, "failed run", fp, http.StatusOK)
	wantText(t, "run error", fp.testid("run-page-error"), "the engine went away")
	wantText(t, "no failures", fp.testid("failures-empty"), "None")

	// Many failures come a page at a time.
	big := recordRun(t, s.env.Store, store.JobRun{Job: jobs.JobPayments, Date: today, Trigger: jobs.TriggerSchedule, Replica: "r1",
		StartedAt: now, EndedAt: now.Add(time.Second), Outcome: store.RunCompleted, Counts: store.RunCounts{Due: 27, Failed: 27}})
	var g errgroup.Group
	for i := range 27 {
		g.Go(func() error {
			return s.env.Store.AddRunFailure(ctx, store.RunFailure{RunID: big.ID, SubscriptionID: fmt.Sprintf("sub-%02d", i), AccountID: ada, Reason: "throttled", At: now})
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	bp := staff.get("/admin/jobs/payments/runs/" + big.ID)
	more := jobsAttr(bp.testid("failures-more"), "hx-get")
	if bp.testid("failure-row").Length() != 25 || more == "" {
		t.Fatalf("first page of failures: %d rows, more %q", bp.testid("failure-row").Length(), more)
	}
	np := staff.get(more, "HX-Request", "true")
	wantStatus(t, "more failures", np, http.StatusOK)
	if np.testid("failure-row").Length() != 2 || strings.Contains(np.body, "<svg") {
		t.Fatalf("next failures: %d rows: %s", np.testid("failure-row").Length(), trim(np.body))
	}

	for _, path := range []string{
		"/admin/jobs/refunds/runs/" + run.ID,         // no such job
		"/admin/jobs/reminders/runs/" + run.ID,       // not that job's
		"/admin/jobs/payments/runs/" + store.NewID(), // no such run
		"/admin/jobs/payments/runs/not*an*id",
		"/admin/jobs/payments/runs/" + store.NewID() + "/progress",
	} {
		wantStatus(t, path, staff.get(path), http.StatusNotFound)
	}
}

// The outbox lists mail newest first, a page at a time, with recipient,
// kind and status; a mail's page shows its text and its HTML only inside a
// sandboxed frame.
func TestAdminOutboxListsMailAndShowsOne(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	ada := s.customerID(t, demo.CustomerEmail)
	var g errgroup.Group
	for i := range 26 {
		g.Go(func() error {
			return s.env.Store.PutMail(ctx, store.Mail{
				ID: fmt.Sprintf("payfail-old-%02d", i), To: fmt.Sprintf("c%02d@example.com", i), Kind: store.MailPaymentFailed,
				Subject: fmt.Sprintf("Payment failed %02d", i), Text: "We could not charge your card.", CustomerID: ada,
				CreatedAt: now.Add(-time.Duration(30-i) * time.Minute), Status: store.MailPending,
			})
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	html := `<p style="color:red">Thank you, <b>Ada</b> &amp; co.</p><script>alert("outbox")</script><img src=x onerror="alert(2)">`
	receipt := store.Mail{
		ID: "receipt-sub1-R0001", To: demo.CustomerEmail, Kind: store.MailReceipt, Subject: "Your receipt R0001",
		Text: "Thank you, Ada.\nYou paid €12.90.", HTML: html, CustomerID: ada, SubscriptionID: "sub1",
		CreatedAt: now, Status: store.MailSent, Attempts: 1, SentAt: now.Add(time.Second),
	}
	if err := s.env.Store.PutMail(ctx, receipt); err != nil {
		t.Fatal(err)
	}

	staff := s.staff(t)
	p := staff.get("/admin/outbox")
	wantStatus(t, "outbox", p, http.StatusOK)
	rows := p.testid("mail-row")
	if rows.Length() != 25 {
		t.Fatalf("outbox shows %d mails, want a page of 25", rows.Length())
	}
	first := rows.First()
	if jobsAttr(first, "data-mail") != receipt.ID {
		t.Fatalf("first mail %s, want the newest %s", jobsAttr(first, "data-mail"), receipt.ID)
	}
	for id, want := range map[string]string{"mail-to": demo.CustomerEmail, "mail-kind": "receipt", "mail-status": "Sent", "mail-link": receipt.Subject} {
		if got := squash(first.Find(`[data-testid="` + id + `"]`).Text()); got != want {
			t.Errorf("newest mail's %s: %q, want %q", id, got, want)
		}
	}
	wantText(t, "second mail", rows.Eq(1).Find(`[data-testid="mail-kind"]`), "payment failed")
	wantText(t, "second mail", rows.Eq(1).Find(`[data-testid="mail-status"]`), "Waiting to send")
	more := jobsAttr(p.testid("outbox-more"), "hx-get")
	next := staff.get(more, "HX-Request", "true")
	wantStatus(t, "more mail", next, http.StatusOK)
	if next.testid("mail-row").Length() != 2 || jobsAttr(next.testid("mail-row").Last(), "data-mail") != "payfail-old-00" {
		t.Fatalf("second page of the outbox: %s", trim(next.body))
	}

	m := staff.get(jobsAttr(first.Find(`[data-testid="mail-link"]`), "href"))
	wantStatus(t, "mail page", m, http.StatusOK)
	wantText(t, "subject", m.testid("mail-subject"), receipt.Subject)
	if got := m.testid("mail-text").Text(); got != receipt.Text {
		t.Fatalf("text body %q", got)
	}
	frame := m.testid("mail-html")
	if sandbox, ok := frame.Attr("sandbox"); !ok || sandbox != "" {
		t.Fatalf("the HTML frame is not fully sandboxed: sandbox=%q (%v)", sandbox, ok)
	}
	if jobsAttr(frame, "srcdoc") != html {
		t.Fatalf("srcdoc %q", jobsAttr(frame, "srcdoc"))
	}
	if strings.Contains(m.body, "<script>alert") || strings.Contains(m.body, `<img src=x`) || m.doc.Find("main b, main img, main script").Length() != 0 {
		t.Fatal("the mail's HTML is in the page itself")
	}
	if got := m.testid("mail-html-source").Text(); got != html {
		t.Fatalf("escaped source %q", got)
	}
	if jobsAttr(m.testid("mail-customer"), "href") != "/admin/customers/"+ada {
		t.Fatal("no link to the customer")
	}
	wantStatus(t, "unknown mail", staff.get("/admin/outbox/no-such-mail"), http.StatusNotFound)
	wantStatus(t, "bad mail id", staff.get("/admin/outbox/bad*id"), http.StatusNotFound)
}

// Without a mail server every mail stays in the outbox: one the deliverer
// has not marked yet reads as kept, as the ones it marked do, on the list
// and on its page, not as "Waiting to send".
func TestAdminOutboxWithoutAMailServerSaysKeptForEveryMail(t *testing.T) {
	t.Parallel()
	s := newShop(t, func(_ storetest.Env, cfg *web.Config) { cfg.MailKeptInOutbox = true })
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	for id, status := range map[string]store.MailStatus{"order-placed-new": store.MailPending, "verify-old": store.MailKept} {
		if err := s.env.Store.PutMail(ctx, store.Mail{ID: id, To: demo.CustomerEmail, Kind: store.MailOrderPlaced, Subject: id,
			Text: "Thank you.", CreatedAt: now, Status: status}); err != nil {
			t.Fatal(err)
		}
	}
	staff := s.staff(t)
	list := staff.get("/admin/outbox")
	wantStatus(t, "outbox", list, http.StatusOK)
	for _, id := range []string{"order-placed-new", "verify-old"} {
		wantText(t, id, list.doc.Find(`[data-mail="`+id+`"] [data-testid="mail-status"]`), "Kept here (no mail server)")
		wantText(t, id+"'s page", staff.get("/admin/outbox/"+id).testid("mail-page-status"), "Kept here (no mail server)")
	}
}

// "Run now" with a real scheduler: bad and future dates are 422s, an
// unknown job a 404; a run for today charges the due subscriptions and is
// followed on its page until it completes; a second run while one goes,
// a date already done and a lease held elsewhere are 409s that say why.
func TestAdminJobsRunNow(t *testing.T) {
	t.Parallel()
	var h *jobsHarness
	s := newShop(t, withJobsScheduler(t, &h, 4))
	ctx := context.Background()
	today := s.env.Store.Today()
	// The demo shop has payments due today too (Henrik's), on a card that
	// pays: the run charges those and our two.
	demoDue, err := s.env.Store.PaymentsDue(ctx, today, 100, "")
	if err != nil {
		t.Fatal(err)
	}
	subs := h.seedDue(t, 2, today)
	wantCharged := itoa(2 + len(demoDue.Items))

	staff := s.staff(t)
	p := staff.get("/admin/jobs")
	wantStatus(t, "jobs console", p, http.StatusOK)
	if p.testid("scheduler-off").Length() != 0 {
		t.Fatal("the console says the scheduler is off")
	}
	wantText(t, "schedule", p.testid("job-payments").Find(`[data-testid="job-schedule"]`), "0 7 * * *")
	if got := jobsAttr(p.testid("run-date-payments"), "value"); got != store.FormatDate(today) {
		t.Fatalf("run now date %q, want today %s", got, store.FormatDate(today))
	}

	for _, bad := range []string{"", "2025-13-01", "tomorrow", "2025-1-5", store.FormatDate(today) + "T00:00"} {
		r := staff.post("/admin/jobs/payments/run", url.Values{"date": {bad}})
		wantStatus(t, "run now for "+bad, r, http.StatusUnprocessableEntity)
		errText := squash(r.testid("job-payments").Find(`[data-testid="error-date"]`).Text())
		if !strings.Contains(errText, "YYYY-MM-DD") && !strings.Contains(errText, "Enter the billing date") {
			t.Fatalf("error for %q: %q", bad, errText)
		}
		if got := jobsAttr(r.testid("run-date-payments"), "value"); got != bad {
			t.Fatalf("the form lost what was typed: %q, want %q", got, bad)
		}
	}
	future := staff.post("/admin/jobs/payments/run", url.Values{"date": {store.FormatDate(today.AddDate(0, 0, 1))}})
	wantStatus(t, "run now for tomorrow", future, http.StatusUnprocessableEntity)
	wantText(t, "future date", future.testid("error-date"), "nobody is charged early")
	wantStatus(t, "run an unknown job", staff.post("/admin/jobs/refunds/run", url.Values{"date": {store.FormatDate(today)}}), http.StatusNotFound)
	if runs, err := s.env.Store.Runs(ctx, jobs.JobPayments, 10, ""); err != nil || len(runs.Items) != 0 {
		t.Fatalf("refused runs were recorded: %v %v", runs.Items, err)
	}

	// Today: a 303 to the run's page, which we follow until it completes.
	r := staff.post("/admin/jobs/payments/run", url.Values{"date": {store.FormatDate(today)}})
	wantStatus(t, "run now", r, http.StatusSeeOther)
	loc := r.header.Get("Location")
	if !strings.HasPrefix(loc, "/admin/jobs/payments/runs/") {
		t.Fatalf("run now went to %q, want the run's page", loc)
	}
	done := pollRun(t, staff, loc, func(p page) bool { return squash(p.testid("run-page-outcome").Text()) != store.RunRunning })
	wantText(t, "outcome", done.testid("run-page-outcome"), store.RunCompleted)
	if got := squash(done.testid("count-charged").Text()); got != wantCharged {
		t.Fatalf("charged %s, want %s (2 seeded, %d of the demo)", got, wantCharged, len(demoDue.Items))
	}
	runID := strings.TrimPrefix(loc, "/admin/jobs/payments/runs/")
	rec, err := s.env.Store.Run(ctx, jobs.JobPayments, runID)
	// The run names who pressed "Run now", as its page shows it.
	if err != nil || rec.Trigger != jobs.TriggerStaff || rec.StartedBy != "Sam Staff" || rec.Replica != h.replica || itoa(rec.Counts.Charged) != wantCharged {
		t.Fatalf("run record %+v (%v)", rec, err)
	}
	for _, sub := range subs {
		got, err := s.env.Store.SubscriptionConsistent(ctx, sub.AccountID, sub.ID)
		if err != nil || !got.NextPaymentDate.After(today) {
			t.Fatalf("subscription %s not moved on: next payment %s (%v)", sub.ID, store.FormatDate(got.NextPaymentDate), err)
		}
	}
	p = staff.get("/admin/jobs")
	wantText(t, "lease after the run", p.testid("job-payments").Find(`[data-testid="job-lease"]`), "done")
	wantText(t, "run in the list", p.testid("job-payments").Find(`[data-testid="run-row"]`).First().Find(`[data-testid="run-charged"]`), wantCharged)
	outbox := staff.get("/admin/outbox")
	wantText(t, "receipts in the outbox", outbox.testid("outbox"), subs[0].Email)

	// Today is done: nobody runs it again.
	again := staff.post("/admin/jobs/payments/run", url.Values{"date": {store.FormatDate(today)}})
	wantStatus(t, "run today again", again, http.StatusConflict)
	wantText(t, "today again", again.testid("job-payments").Find(`[data-testid="form-error"]`), "already ran to its end")

	// A slow run for a missed day; asking again while it goes is a 409.
	missed := today.AddDate(0, 0, -2)
	h.seedDue(t, 8, missed)
	h.delay.Store(int64(150 * time.Millisecond))
	slow := staff.post("/admin/jobs/payments/run", url.Values{"date": {store.FormatDate(missed)}})
	wantStatus(t, "run a missed day", slow, http.StatusSeeOther)
	busy := staff.post("/admin/jobs/payments/run", url.Values{"date": {store.FormatDate(missed)}})
	wantStatus(t, "run while running", busy, http.StatusConflict)
	wantText(t, "running", busy.testid("job-payments").Find(`[data-testid="form-error"]`), "already going")
	if busy.testid("job-payments").Find(`[data-testid="run-progress"]`).Length() != 1 {
		t.Fatal("the 409 does not show the run going")
	}
	done = pollRun(t, staff, slow.header.Get("Location"), func(p page) bool {
		return squash(p.testid("run-page-outcome").Text()) != store.RunRunning
	})
	if got := squash(done.testid("count-charged").Text()); got != "8" {
		t.Fatalf("the missed day charged %s, want 8", got)
	}
	h.delay.Store(0)

	// Another replica holds yesterday's lease.
	yesterday := today.AddDate(0, 0, -1)
	if _, err := s.env.Store.AcquireLease(ctx, jobs.JobPayments, yesterday, "replica-elsewhere", time.Minute); err != nil {
		t.Fatal(err)
	}
	held := staff.post("/admin/jobs/payments/run", url.Values{"date": {store.FormatDate(yesterday)}})
	wantStatus(t, "run a date leased elsewhere", held, http.StatusConflict)
	wantText(t, "lease held", held.testid("job-payments").Find(`[data-testid="form-error"]`), "A run is already going: replica-elsewhere holds the lease of payments for "+store.FormatDate(yesterday))

	// A replica shutting down starts no run: a 503 that says so.
	if err := h.sched.Stop(); err != nil {
		t.Fatal(err)
	}
	closing := staff.post("/admin/jobs/payments/run", url.Values{"date": {store.FormatDate(today.AddDate(0, 0, -3))}})
	wantStatus(t, "run now while shutting down", closing, http.StatusServiceUnavailable)
	wantText(t, "shutting down", closing.testid("job-payments").Find(`[data-testid="form-error"]`), "This replica is shutting down")
}
