package handlers

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"
	"golang.org/x/sync/errgroup"

	"shop/handlers/page"
	"shop/jobs"
	"shop/store"
	"shop/store/rules"
	"shop/views"
	"shop/views/lang"
	"shop/web/paths"
)

// JobScheduler is the billing jobs' scheduler of this replica
// (*jobs.Scheduler).
type JobScheduler interface {
	// RunNow starts a run in the background once it holds the lease of
	// job and date: jobs.ErrRunning, store.ErrLeaseHeld, store.ErrLeaseDone
	// or jobs.ErrFutureDate when it cannot.
	// RunNow starts a run for the staff member named.
	RunNow(job string, date time.Time, staff string) error
	// NextRun is when the job runs next on this replica (zero if never).
	NextRun(job string) time.Time
	// Schedule is the job's cron expression.
	Schedule(job string) string
}

// AdminJobStore is what the staff jobs pages read: the run records every
// replica writes, and the leases of the ticks.
type AdminJobStore interface {
	Runs(ctx context.Context, job string, limit int, cursor string) (store.Page[store.JobRun], error)
	Run(ctx context.Context, job, id string) (store.JobRun, error)
	RunFailures(ctx context.Context, runID string, limit int, cursor string) (store.Page[store.RunFailure], error)
	LeaseOf(ctx context.Context, job string, day time.Time) (store.Lease, error)
	Now() time.Time
	// Today is the billing date of now, in the shop's time zone.
	Today() time.Time
	Location() *time.Location
}

// AdminJobs serves /admin/jobs: the billing jobs, their runs and "Run now".
type AdminJobs struct {
	Store AdminJobStore
	// Jobs is this replica's scheduler; nil when it runs no jobs
	// (SHOP_JOBS=false): runs still show, "Run now" is a 503.
	Jobs JobScheduler
}

// billingJobNames are the jobs the console's home follows (the card
// refunds have a block of their own: the refunds waiting; the ticket
// stock job shows on the batch-run page only).
var (
	billingJobNames = []string{jobs.JobReminders, jobs.JobPayments}
	jobNames        = append(slices.Clip(billingJobNames), jobs.JobCardRefunds, jobs.JobTicketStock)
)

const (
	jobRunsPageSize = 10  // runs of a job on the console
	chartDays       = 30  // days of the run page's chart
	chartPageSize   = 100 // runs read per request for the chart
	chartMaxPages   = 5   // at most this many requests for the chart
	// recentRun is how long the console shows how the newest run ended.
	recentRun = 15 * time.Minute
)

// schedulerOffMessage answers "Run now" on a replica without a scheduler.
func schedulerOffMessage(c *fiber.Ctx) string { return page.T(c, "admin.jobs.err.scheduler_off") }

// scheduler is the replica's scheduler, nil when there is none (also when
// a nil *jobs.Scheduler was put in the interface).
func (h *AdminJobs) scheduler() JobScheduler {
	if h.Jobs == nil {
		return nil
	}
	if v := reflect.ValueOf(h.Jobs); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil
	}
	return h.Jobs
}

// jobParam reads the job from the URL, a 404 for anything else.
func jobParam(c *fiber.Ctx) (string, error) {
	job := c.Params("job")
	if !jobs.ValidJob(job) {
		return "", page.NotFound("error.not_found.job")
	}
	return job, nil
}

// progress is a run's progress; a run recorded as running whose lease has
// run out or moved on is stalled (its replica stopped without recording
// its end), so its page stops asking.
func (h *AdminJobs) progress(ctx context.Context, run store.JobRun) (views.AdminRunProgress, error) {
	p := views.AdminRunProgress{Run: run}
	if run.Outcome != store.RunRunning || run.Trigger == jobs.TriggerCommandLine {
		return p, nil // a command-line run holds no lease
	}
	l, err := h.Store.LeaseOf(ctx, run.Job, run.Date)
	switch {
	case errors.Is(err, store.ErrNotFound):
		p.Stalled = lang.T(ctx, "admin.jobs.stalled.no_lease")
	case err != nil:
		return p, err
	case l.Owner != run.Replica:
		p.Stalled = lang.T(ctx, "admin.jobs.stalled.moved", "Owner", l.Owner)
	case l.Done:
		p.Stalled = lang.T(ctx, "admin.jobs.stalled.finished")
	case l.ExpiresAt.Before(h.Store.Now()):
		p.Stalled = lang.T(ctx, "admin.jobs.stalled.ran_out", "Time", l.ExpiresAt.In(h.Store.Location()).Format("2006-01-02 15:04:05 MST"))
	}
	return p, nil
}

// List is every job: schedule, next run here, today's lease, "Run now",
// the run going now with its live progress, and the latest runs.
func (h *AdminJobs) List(c *fiber.Ctx) error {
	return h.renderList(c, fiber.StatusOK, views.AdminRunForm{})
}

// renderList renders the console; form, if its Job is set, is that job's
// "Run now" form as sent, with its errors.
func (h *AdminJobs) renderList(c *fiber.Ctx, status int, form views.AdminRunForm) error {
	sched := h.scheduler()
	today := h.Store.Today()
	now := h.Store.Now()
	csrf := page.CSRFToken(c)
	data := views.AdminJobsPage{SchedulerOff: sched == nil, Today: store.FormatDate(today), Jobs: make([]views.AdminJob, len(jobNames))}
	g, ctx := errgroup.WithContext(c.UserContext())
	for i, name := range jobNames {
		j := &data.Jobs[i]
		j.Name, j.Now = name, now
		j.Form = views.AdminRunForm{Job: name, Date: data.Today, Errors: views.FieldErrors{}}
		if form.Job == name {
			j.Form = form
		}
		j.Form.Today, j.Form.CSRF, j.Form.Disabled = data.Today, csrf, sched == nil
		if sched != nil {
			j.Schedule, j.NextRun = sched.Schedule(name), sched.NextRun(name)
		}
		g.Go(func() error {
			l, err := h.Store.LeaseOf(ctx, name, today)
			switch {
			case errors.Is(err, store.ErrNotFound):
				return nil
			case err != nil:
				return err
			}
			j.Lease = &l
			return nil
		})
		g.Go(func() error {
			runs, err := h.Store.Runs(ctx, name, jobRunsPageSize, "")
			if err != nil {
				return err
			}
			j.Runs = views.AdminJobRuns{Job: name, Runs: runs.Items}
			j.Runs.NextURL = paths.More(paths.AdminJobRuns(name), runs.Next)
			// The progress is the run record in the table, so it shows
			// whichever replica makes the run: the run going, else the
			// newest if it ended a moment ago (how it ended, not polled).
			for _, r := range runs.Items {
				if r.Outcome == store.RunRunning {
					p, err := h.progress(ctx, r)
					if err != nil {
						return err
					}
					j.Progress = &p
					return nil
				}
			}
			if len(runs.Items) > 0 {
				if r := runs.Items[0]; !r.EndedAt.IsZero() && now.Sub(r.EndedAt) < recentRun {
					j.Progress = &views.AdminRunProgress{Run: r}
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return page.Render(c, status, page.View{Title: page.T(c, "admin.jobs.title"), Page: page.Full(views.AdminJobsView, data)})
}

// Runs is a job's runs, newest first, a page at a time; htmx asks for the
// next page's rows.
func (h *AdminJobs) Runs(c *fiber.Ctx) error {
	job, err := jobParam(c)
	if err != nil {
		return err
	}
	runs, err := h.Store.Runs(c.UserContext(), job, adminPageSize, c.Query("after"))
	if err != nil {
		return err
	}
	data := views.AdminJobRunsPage{Runs: views.AdminJobRuns{Job: job, Runs: runs.Items}}
	data.Runs.NextURL = paths.More(paths.AdminJobRuns(job), runs.Next)
	return page.Render(c, fiber.StatusOK, page.View{
		Title: page.T(c, "admin.jobs.runs_of", "Job", views.AdminJobNoun(c.UserContext(), job)), Page: page.Full(views.AdminJobRunsView, data), Partial: views.AdminJobRunRows(data.Runs),
	})
}

// run reads the run of the URL; an unknown job or run is a 404.
func (h *AdminJobs) run(c *fiber.Ctx) (store.JobRun, error) {
	job, err := jobParam(c)
	if err != nil {
		return store.JobRun{}, err
	}
	id, err := pathID(c, "id", "error.not_found.run")
	if err != nil {
		return store.JobRun{}, err
	}
	run, err := h.Store.Run(c.UserContext(), job, id)
	return run, notFoundAs(err, "error.not_found.run")
}

// Progress is a run's progress bar and counts, which htmx asks for every
// second while the run goes; the answer once it has ended (or stalled)
// carries no trigger, and the asking stops. That answer also has htmx
// reload the page, whose other parts (the lease, the runs, the run's
// outcome and failures) changed with the run's end.
func (h *AdminJobs) Progress(c *fiber.Ctx) error {
	run, err := h.run(c)
	if err != nil {
		return err
	}
	p, err := h.progress(c.UserContext(), run)
	if err != nil {
		return err
	}
	if !p.Polling() && page.IsHTMX(c) {
		c.Set("HX-Refresh", "true")
	}
	return page.Render(c, fiber.StatusOK, page.View{
		Title: page.T(c, "admin.jobs.title_progress", "Job", views.AdminJobName(c.UserContext(), run.Job)), Page: page.Full(views.AdminJobProgressView, p), Partial: views.AdminRunProgressView(p),
	})
}

// Show is one run: counts, outcome and error, the subscriptions it could
// not finish with (a page at a time), and a chart of the job's last 30
// days. htmx asks for the next page of failures only.
func (h *AdminJobs) Show(c *fiber.Ctx) error {
	run, err := h.run(c)
	if err != nil {
		return err
	}
	after := c.Query("failures_after")
	data := views.AdminRunPage{}
	var failures store.Page[store.RunFailure]
	g, ctx := errgroup.WithContext(c.UserContext())
	g.Go(func() (err error) {
		failures, err = h.Store.RunFailures(ctx, run.ID, adminPageSize, after)
		return err
	})
	if after == "" || !page.IsHTMX(c) {
		g.Go(func() (err error) { data.Progress, err = h.progress(ctx, run); return err })
		g.Go(func() (err error) { data.Chart, err = h.chart(ctx, run); return err })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	data.Failures = failures.Items
	if failures.Next != "" {
		data.FailuresNext = paths.WithQuery(c.Path(), "failures_after", failures.Next)
	}
	var partial templ.Component
	if after != "" {
		partial = views.AdminRunFailureRows(data)
	}
	return page.Render(c, fiber.StatusOK, page.View{
		Title: page.T(c, "admin.jobs.run_for", "Job", views.AdminJobName(c.UserContext(), run.Job), "Date", store.FormatDate(run.Date)), Page: page.Full(views.AdminRunView, data), Partial: partial,
	})
}

// chart reads the job's runs of the last 30 days (newest first, stopping
// at the first older one) and sums them by the day they started.
func (h *AdminJobs) chart(ctx context.Context, run store.JobRun) (views.AdminRunChart, error) {
	loc := h.Store.Location()
	today := h.Store.Today()
	first := today.AddDate(0, 0, -(chartDays - 1))
	c := views.AdminRunChart{Job: run.Job, CountLabel: "charged", Current: rules.DateOf(run.StartedAt, loc), Days: make([]views.AdminChartDay, chartDays)}
	if run.Job == jobs.JobReminders {
		c.CountLabel = "reminded"
	}
	for i := range c.Days {
		c.Days[i].Day = first.AddDate(0, 0, i)
	}
	cursor := ""
	for range chartMaxPages {
		runs, err := h.Store.Runs(ctx, run.Job, chartPageSize, cursor)
		if err != nil {
			return c, err
		}
		for _, r := range runs.Items {
			day := rules.DateOf(r.StartedAt, loc)
			if day.Before(first) {
				return c, nil
			}
			i := int(day.Sub(first).Hours()+0.5) / 24
			if i < 0 || i >= chartDays {
				continue // a clock ahead of ours
			}
			d := &c.Days[i]
			d.Runs++
			if run.Job == jobs.JobReminders {
				d.Count += r.Counts.Mailed
			} else {
				d.Count += r.Counts.Charged
			}
			d.Duration += r.Duration()
			switch r.Outcome {
			case store.RunFailed, store.RunCancelled:
				d.Troubled = true
			case store.RunRunning:
				d.Running = true
			}
		}
		if runs.Next == "" {
			return c, nil
		}
		cursor = runs.Next
	}
	c.Truncated = true
	return c, nil
}

// RunNow starts a run of the job for the date of the form (today unless
// changed): a 303 to the run's page once it holds its lease. A bad date
// is a 422; a run going already or a lease refused is a 409 that says
// why; no scheduler on this replica is a 503.
func (h *AdminJobs) RunNow(c *fiber.Ctx) error {
	job, err := jobParam(c)
	if err != nil {
		return err
	}
	form := views.AdminRunForm{Job: job, Date: strings.TrimSpace(page.Field(c, "date")), Errors: views.FieldErrors{}}
	sched := h.scheduler()
	if sched == nil {
		form.Errors[""] = schedulerOffMessage(c)
		return h.renderList(c, fiber.StatusServiceUnavailable, form)
	}
	today := h.Store.Today()
	date, perr := rules.ParseDate(form.Date)
	switch {
	case form.Date == "":
		form.Errors["date"] = page.T(c, "admin.jobs.err.date_empty", "Today", store.FormatDate(today))
	case perr != nil:
		form.Errors["date"] = page.T(c, "admin.jobs.err.date_bad", "Today", store.FormatDate(today))
	case date.After(today):
		form.Errors["date"] = page.T(c, "admin.jobs.err.future_today", "Date", form.Date, "Today", store.FormatDate(today))
	}
	if len(form.Errors) > 0 {
		return h.renderList(c, fiber.StatusUnprocessableEntity, form)
	}
	day := store.FormatDate(date)
	started := h.Store.Now()
	err = sched.RunNow(job, date, page.Viewer(c).Name)
	switch {
	case errors.Is(err, jobs.ErrFutureDate):
		form.Errors["date"] = page.T(c, "admin.jobs.err.future", "Date", day)
		return h.renderList(c, fiber.StatusUnprocessableEntity, form)
	case errors.Is(err, jobs.ErrRunning):
		form.Errors[""] = page.T(c, "admin.jobs.err.running", "Job", views.AdminJobNoun(c.UserContext(), job))
		return h.renderList(c, fiber.StatusConflict, form)
	case errors.Is(err, store.ErrLeaseDone):
		form.Errors[""] = page.T(c, "admin.jobs.err.lease_done", "Job", views.AdminJobNoun(c.UserContext(), job), "Date", day)
		return h.renderList(c, fiber.StatusConflict, form)
	case errors.Is(err, jobs.ErrShuttingDown):
		form.Errors[""] = page.T(c, "admin.jobs.err.shutting_down")
		return h.renderList(c, fiber.StatusServiceUnavailable, form)
	case errors.Is(err, store.ErrLeaseHeld):
		form.Errors[""] = page.T(c, "admin.jobs.err.lease_held", "Holder", h.leaseHolder(c.UserContext(), job, date))
		return h.renderList(c, fiber.StatusConflict, form)
	case err != nil:
		return err
	}
	if run, ok := h.startedRun(c.UserContext(), job, date, started); ok {
		page.Flash(c, views.FlashSuccess, page.T(c, "admin.jobs.started", "Job", views.AdminJobNoun(c.UserContext(), job), "Date", day))
		return page.Redirect(c, paths.AdminJobRun(job, run.ID))
	}
	page.Flash(c, views.FlashSuccess, page.T(c, "admin.jobs.started_later", "Job", views.AdminJobNoun(c.UserContext(), job), "Date", day))
	return page.Redirect(c, paths.AdminJobs)
}

// leaseHolder says who holds the lease of a job's date, as well as it can.
func (h *AdminJobs) leaseHolder(ctx context.Context, job string, date time.Time) string {
	noun, day := views.AdminJobNoun(ctx, job), store.FormatDate(date)
	l, err := h.Store.LeaseOf(ctx, job, date)
	if err != nil {
		return lang.T(ctx, "admin.jobs.holder.unknown", "Job", noun, "Date", day)
	}
	return lang.T(ctx, "admin.jobs.holder.known", "Owner", l.Owner, "Job", noun, "Date", day, "Time", l.ExpiresAt.In(h.Store.Location()).Format("15:04:05 MST"))
}

// startedRun finds the record of the run RunNow just started: the newest
// of the job by staff for that date, started since. The record is written
// before RunNow returns; a lagging read finds nothing, and the console
// shows the run instead.
func (h *AdminJobs) startedRun(ctx context.Context, job string, date, since time.Time) (store.JobRun, bool) {
	runs, err := h.Store.Runs(ctx, job, 5, "")
	if err != nil {
		return store.JobRun{}, false
	}
	for _, r := range runs.Items {
		if r.Trigger == jobs.TriggerStaff && r.Date.Equal(date) && !r.StartedAt.Before(since.Add(-time.Second)) {
			return r, true
		}
	}
	return store.JobRun{}, false
}
