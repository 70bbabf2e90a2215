package views

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"shop/store"
	"shop/views/lang"
	"shop/web/paths"
)

// The staff console of the billing jobs (/admin/jobs): typed data of its
// pages and the geometry of the run chart, drawn as inline SVG on the
// server.

// AdminJobsPage is every job with its schedule, today's lease, the "Run
// now" form, the run going now and the latest runs.
type AdminJobsPage struct {
	Jobs []AdminJob
	// SchedulerOff: this replica runs no jobs (SHOP_JOBS=false); runs
	// recorded by others still show, "Run now" is refused.
	SchedulerOff bool
	Today        string
}

// Polling reports whether a run is going, so the page refreshes itself
// without JavaScript.
func (p AdminJobsPage) Polling() bool {
	for _, j := range p.Jobs {
		if j.Progress != nil && j.Progress.Polling() {
			return true
		}
	}
	return false
}

// AdminJob is one job on the console.
type AdminJob struct {
	Name     string
	Schedule string    // cron expression; "" when the scheduler is off here
	NextRun  time.Time // on this replica; zero when not scheduled
	Now      time.Time
	// Lease is the job's lease of today (every tick of the day takes the
	// same one): who holds it until when; nil if no tick took it today.
	Lease    *store.Lease
	Form     AdminRunForm
	Progress *AdminRunProgress // the run going now, if any
	Runs     AdminJobRuns
}

// LeaseState says in words where today's lease stands.
func (j AdminJob) LeaseState(ctx context.Context) string {
	switch l := j.Lease; {
	case l == nil:
		return t(ctx, "admin.jobs.lease.free")
	case l.Done:
		return t(ctx, "admin.jobs.lease.done", "Owner", l.Owner)
	case l.ExpiresAt.Before(j.Now):
		return t(ctx, "admin.jobs.lease.ran_out", "Owner", l.Owner, "Time", adminTime(ctx, l.ExpiresAt))
	default:
		return t(ctx, "admin.jobs.lease.held", "Owner", l.Owner, "Time", adminTime(ctx, l.ExpiresAt))
	}
}

// AdminRunForm is the "Run now" form of a job, as typed.
type AdminRunForm struct {
	Job      string
	Date     string // YYYY-MM-DD, the billing date the run processes
	Today    string
	Errors   FieldErrors
	CSRF     string
	Disabled bool // the scheduler is off on this replica
}

// AdminJobRuns is a page of a job's runs, newest first.
type AdminJobRuns struct {
	Job     string
	Runs    []store.JobRun
	NextURL string
}

// AdminJobRunsPage is a job's run history on a page of its own (where
// "Show more" leads without JavaScript).
type AdminJobRunsPage struct {
	Runs AdminJobRuns
}

// AdminRunProgress is a run's progress bar and counts. While the run goes
// htmx asks for it again every second; once it has ended (or stalled) it
// comes back without the trigger and the polling stops.
type AdminRunProgress struct {
	Run store.JobRun
	// Stalled says why a run recorded as running is no longer moving (its
	// lease expired or went to another replica); "" while it is healthy.
	Stalled string
}

// Polling reports whether the progress should be asked for again.
func (p AdminRunProgress) Polling() bool {
	return p.Run.Outcome == store.RunRunning && p.Stalled == ""
}

// Counters are the counts the run's job keeps; the rare ones (beyond
// catch-up, cancelled) only when there are some.
func (p AdminRunProgress) Counters() []runCounter {
	var out []runCounter
	for _, c := range runCounters(p.Run.Job) {
		if !c.Rare || c.Of(p.Run.Counts) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// URL is where htmx asks for the progress.
func (p AdminRunProgress) URL() string { return paths.AdminJobRunProgress(p.Run.Job, p.Run.ID) }

// ProgressMax is the progress bar's maximum: the subscriptions found due
// so far (at least 1, so an empty run shows a full bar when it ends).
func (p AdminRunProgress) ProgressMax() int {
	if p.Run.Counts.Due > 0 {
		return p.Run.Counts.Due
	}
	return 1
}

// ProgressValue is the progress bar's value.
func (p AdminRunProgress) ProgressValue() int {
	if p.Run.Counts.Due == 0 {
		if p.Run.Outcome == store.RunRunning {
			return 0
		}
		return 1
	}
	return min(p.Run.Counts.Done(), p.Run.Counts.Due)
}

// DoneCount is how many of the due subscriptions the run has finished
// with (a subscription charged for missed periods counts once per charge,
// so it is held to the due).
func (p AdminRunProgress) DoneCount() int { return min(p.Run.Counts.Done(), p.Run.Counts.Due) }

// Percent is the share done, in whole percent.
func (p AdminRunProgress) Percent() int {
	return int(math.Floor(100 * float64(p.ProgressValue()) / float64(p.ProgressMax())))
}

// AdminRunPage is one run: its record, its failures and a chart of the
// job's runs of the last 30 days.
type AdminRunPage struct {
	Progress     AdminRunProgress
	Failures     []store.RunFailure
	FailuresNext string
	Chart        AdminRunChart
}

// runStarted is when a run started: the time alone on the day it processed
// (a billing date, a day in the shop's time zone), else the day too.
func runStarted(ctx context.Context, r store.JobRun) string {
	if r.StartedAt.IsZero() {
		return "—"
	}
	if adminDay(ctx, r.StartedAt) == store.FormatDate(r.Date) {
		return r.StartedAt.In(Zone(ctx)).Format("15:04 MST")
	}
	return adminStamp(ctx, r.StartedAt)
}

// runDuration is how long a run took, as staff read it.
func runDuration(ctx context.Context, r store.JobRun) string {
	if r.StartedAt.IsZero() {
		return "—"
	}
	return formatDuration(ctx, r.Duration())
}

// formatDuration is a duration in the page's language: "1.5 s",
// "3 min 05 s", "2 h 05 min".
func formatDuration(ctx context.Context, d time.Duration) string {
	switch {
	case d < 0:
		return "—"
	case d < 10*time.Second:
		return t(ctx, "admin.jobs.dur.seconds", "Seconds", adminDecimal(ctx, d.Seconds()))
	case d < time.Minute:
		return t(ctx, "admin.jobs.dur.seconds", "Seconds", strconv.Itoa(int(d.Seconds())))
	case d < time.Hour:
		return t(ctx, "admin.jobs.dur.minutes", "Minutes", int(d.Minutes()), "Seconds", fmt.Sprintf("%02d", int(d.Seconds())%60))
	default:
		return t(ctx, "admin.jobs.dur.hours", "Hours", int(d.Hours()), "Minutes", fmt.Sprintf("%02d", int(d.Minutes())%60))
	}
}

// adminDecimal is v with one decimal, as the page's language writes it
// (Indonesian with a comma).
func adminDecimal(ctx context.Context, v float64) string {
	s := strconv.FormatFloat(v, 'f', 1, 64)
	if lang.From(ctx) == lang.Indonesian {
		s = strings.Replace(s, ".", ",", 1)
	}
	return s
}

var adminCountLabelIDs = map[string]string{
	"charged":  "admin.jobs.count.charged",
	"reminded": "admin.jobs.count.reminded",
}

// adminCountLabel is what a job's chart counts ("charged", "reminded") in
// the page's language.
func adminCountLabel(ctx context.Context, label string) string {
	if id, ok := adminCountLabelIDs[label]; ok {
		return t(ctx, id)
	}
	return label
}
