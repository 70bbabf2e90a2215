package web_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"shop/jobs"
	"shop/store"
	"shop/store/demo"
	"shop/store/payment"
	"shop/store/storetest/paytest"
)

// Staff open the billing jobs, run the payments of today (60 due, each
// charge taking a moment), watch the console's progress bar fill through
// htmx polling until the run completes and the polling stops, open the run
// (its failures and the chart of the month), and the mail it sent.
// Parallel: what it times is the run against its own pace (60 s at most);
// the console without JavaScript, timed against the wall clock, is
// TestBrowserJobsConsoleReloadsItselfWithoutJavaScript.
func TestBrowserJobsRunNowProgressAndRunPage(t *testing.T) {
	t.Parallel()
	var h *jobsHarness
	s := newShop(t, withJobsScheduler(t, &h, 4))
	bg := context.Background()
	today := s.env.Store.Today()
	now := time.Now().UTC()

	// A month of history for the chart: most days a run, one failed, one
	// day missed.
	for i := 29; i >= 1; i-- {
		if i == 12 {
			continue
		}
		start := now.Add(-time.Duration(i) * 24 * time.Hour)
		r := store.JobRun{Job: jobs.JobPayments, Date: today.AddDate(0, 0, -i), Trigger: jobs.TriggerSchedule, Replica: "replica-a",
			StartedAt: start, EndedAt: start.Add(time.Duration(2000+137*(i%7)) * time.Millisecond), Outcome: store.RunCompleted,
			Counts: store.RunCounts{Due: 20 + 3*(i%5), Charged: 18 + 3*(i%5), Declined: 2, Mailed: 20 + 3*(i%5)}}
		if i == 8 {
			r.Outcome, r.Error, r.Counts = store.RunFailed, "list due subscriptions: operation error DynamoDB: Query, request canceled", store.RunCounts{Due: 6, Charged: 4, Mailed: 4}
		}
		recordRun(t, s.env.Store, r)
	}
	demoDue, err := s.env.Store.PaymentsDue(bg, today, 100, "")
	if err != nil {
		t.Fatal(err)
	}
	h.seedDue(t, 60, today)
	// Two forgotten for 70 days (beyond the catch-up window: failures for
	// staff), three whose card is declined.
	h.seedDue(t, 2, today.AddDate(0, 0, -70))
	declined := paytest.LegacyCard(t, s.env.Store, payment.CardDeclined, "12/99")
	h.seedDue(t, 3, today, func(s *store.Subscription) { s.Card = declined })
	// And one of Ada's, who then finds its receipt on /receipts.
	ada := s.customerID(t, demo.CustomerEmail)
	h.seedDue(t, 1, today, func(s *store.Subscription) {
		s.AccountID, s.Email, s.ProductName = ada, demo.CustomerEmail, "Journey Beans 250 g"
	})
	h.delay.Store(int64(250 * time.Millisecond))
	wantCharged := 61 + len(demoDue.Items)

	j := newJourney(t, s.base)

	j.signInAt("/admin/jobs", demo.StaffEmail, demo.StaffPassword, "job-payments")
	if got := j.text(`#job-payments ` + sel("job-schedule")); !strings.Contains(got, "0 7 * * *") {
		t.Fatalf("schedule %q", got)
	}
	j.shot("j1-jobs")

	j.do("run payments now", chromedp.Click(sel("run-now-payments")), chromedp.WaitVisible(sel("run-title")))
	if got := j.text(sel("flash")); !strings.Contains(got, "Started the payments run for "+store.FormatDate(today)) {
		t.Fatalf("flash %q", got)
	}
	j.shot("j2-run-started")

	// The console's bar, polled by htmx, moves to the end.
	progress := `#job-payments [data-testid="run-progress"]`
	j.do("back to the console", chromedp.Navigate(s.base+"/admin/jobs"), chromedp.WaitVisible(progress))
	var seen []int
	midShot := false
	deadline := time.Now().Add(60 * time.Second)
	for {
		st, err := chromedp.Run(j.ctx, chromedp.Evaluate[[]string](`(() => {
			const a = document.querySelector('`+progress+`');
			if (!a) return ["", "0", "0"];
			const b = a.querySelector('progress');
			return [a.dataset.outcome, b.getAttribute('value'), b.getAttribute('max')];
		})()`))
		if err != nil {
			t.Fatal(err)
		}
		if st[0] == "" { // the page reloads as the run ends
			if time.Now().After(deadline) {
				t.Fatalf("the progress went away (bar %v)", seen)
			}
			time.Sleep(50 * time.Millisecond)
			continue
		}
		v, _ := strconv.Atoi(st[1])
		m, _ := strconv.Atoi(st[2])
		if len(seen) == 0 || seen[len(seen)-1] != v {
			seen = append(seen, v)
		}
		if !midShot && v > 0 && v < m {
			j.shot("j3-jobs-running")
			midShot = true
		}
		if st[0] == store.RunCompleted {
			if v != m {
				t.Fatalf("completed with the bar at %d of %d", v, m)
			}
			break
		}
		if st[0] != store.RunRunning || time.Now().After(deadline) {
			t.Fatalf("the run is %q (bar %v)", st[0], seen)
		}
		time.Sleep(150 * time.Millisecond)
	}
	t.Logf("the bar went %v", seen)
	if !midShot {
		t.Fatalf("the bar never showed a run part done: %v", seen)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] < seen[i-1] {
			t.Fatalf("the bar went back: %v", seen)
		}
	}
	polling, err := chromedp.Run(j.ctx, chromedp.Evaluate[bool](`document.querySelector('`+progress+`').hasAttribute('hx-trigger')`))
	if err != nil || polling {
		t.Fatalf("the finished run's progress still polls (%v)", err)
	}
	// The console reloaded as the run ended: the run's row and today's
	// lease are up to date too.
	if got := j.text(`#job-payments [data-testid="run-row"] [data-testid="run-outcome"]`); got != store.RunCompleted {
		t.Fatalf("the newest run's row says %q", got)
	}
	if got := j.text(`#job-payments ` + sel("job-lease")); !strings.HasPrefix(got, "done") {
		t.Fatalf("today's lease %q", got)
	}
	if got := j.text(progress + ` [data-testid="run-progress-charged"]`); got != strconv.Itoa(wantCharged)+" charged" {
		t.Fatalf("progress says %q, want %d charged", got, wantCharged)
	}
	j.shot("j4-jobs-completed")

	j.do("open the run", chromedp.Click(progress+` [data-testid="run-progress-link"]`), chromedp.WaitVisible(sel("run-chart")))
	if got := j.text(sel("count-charged")); got != strconv.Itoa(wantCharged) {
		t.Fatalf("run page: charged %q, want %d", got, wantCharged)
	}
	if got := j.text(sel("count-declined")); got != "3" {
		t.Fatalf("run page: declined %q, want 3", got)
	}
	if bars := j.count(sel("run-chart-bar")); bars != 2*29 { // 28 days of history and today, two panels
		t.Fatalf("%d bars in the chart, want %d", bars, 2*29)
	}
	if got := j.text(sel("run-failures")); !strings.Contains(got, "beyond the 60-day catch-up window") {
		t.Fatalf("failures %q", got)
	}
	j.shot("j5-run-page")

	j.do("outbox", chromedp.Click(sel("nav-outbox")), chromedp.WaitVisible(sel("outbox")))
	j.shot("j6-outbox")
	j.do("a mail", chromedp.Click(`[data-testid="mail-row"] [data-testid="mail-link"]`), chromedp.WaitVisible(sel("mail-html")))
	j.shot("j7-mail")
	// A full-page capture leaves out the sandboxed frame (it paints in a
	// process of its own): this one is of the window, scrolled to it.
	if dir := os.Getenv("SHOP_SCREENSHOTS"); dir != "" {
		j.do("scroll to the HTML", chromedp.ScrollIntoView(sel("mail-html")))
		time.Sleep(300 * time.Millisecond)
		png, err := chromedp.Run(j.ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		_ = os.WriteFile(filepath.Join(dir, "j7b-mail-html.png"), png, 0o644)
	}

	// The customer sees the new receipt.
	j.signOut()
	j.signIn(demo.CustomerEmail, demo.CustomerPassword)
	j.do("Ada opens her receipts", chromedp.Navigate(s.base+"/receipts"), chromedp.WaitVisible(sel("receipts")))
	if got := j.text(`[data-testid="receipt-row"][data-kind="receipt"]`); !strings.Contains(got, "Journey Beans 250 g") {
		t.Fatalf("Ada's newest receipt: %q", got)
	}
	j.shot("j8-customer-receipt")
}

// Without JavaScript, while a run goes (a reminders run of another
// replica, recorded in the table), the jobs console reloads itself every
// 2 s, and stops once the run has ended. Parallel: it waits for the
// reloads rather than counting those of a fixed few seconds (a loaded
// machine slows each load), and a page that asks for no reload cannot
// reload however busy the machine is.
func TestBrowserJobsConsoleReloadsItselfWithoutJavaScript(t *testing.T) {
	t.Parallel()
	var h *jobsHarness
	s := newShop(t, withJobsScheduler(t, &h, 4))
	bg := context.Background()
	today := s.env.Store.Today()
	j := newJourney(t, s.base)
	j.signInAt("/admin/jobs", demo.StaffEmail, demo.StaffPassword, "job-payments")

	lease, err := s.env.Store.AcquireLease(bg, jobs.JobReminders, today, "replica-b", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	rem := recordRun(t, s.env.Store, store.JobRun{Job: jobs.JobReminders, Date: today, Trigger: jobs.TriggerSchedule, Replica: "replica-b",
		StartedAt: time.Now().UTC(), Outcome: store.RunRunning, Counts: store.RunCounts{Due: 10, Mailed: 4}})
	j.do("no JavaScript", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}))
	loads := func() int { return strings.Count(s.log.String(), "path=/admin/jobs route=") }
	before := loads()
	j.do("console without JavaScript", chromedp.Navigate(s.base+"/admin/jobs"), chromedp.WaitVisible(`#job-reminders [data-testid="run-progress"]`))
	j.do("the running console asks to be reloaded", chromedp.WaitReady(sel("noscript-refresh")))
	j.shot("j8-jobs-no-js-running")
	// The first load and two reloads of its own: 5 s on a quiet machine.
	for deadline := time.Now().Add(30 * time.Second); loads()-before < 3; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("without JavaScript the console loaded %d times in 30 s while a run goes, want it to reload itself", loads()-before)
		}
	}
	rem.Outcome, rem.EndedAt, rem.Counts = store.RunCompleted, time.Now().UTC(), store.RunCounts{Due: 10, Mailed: 10}
	recordRun(t, s.env.Store, rem)
	if err := s.env.Store.FinishLease(bg, lease); err != nil {
		t.Fatal(err)
	}
	// The last reload shows the run ended: its page asks for no more. (A
	// fixed wait here failed on a loaded machine, the reload still under way.)
	j.do("the reload after the run ended", chromedp.WaitNotPresent(sel("noscript-refresh")))
	settled := loads()
	time.Sleep(4 * time.Second)
	if n := loads() - settled; n != 0 {
		t.Fatalf("the console reloaded %d times after the run ended", n)
	}
	j.shot("j9-jobs-no-js-ended")
}
