package views

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	"shop/store"
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
	// Lease is today's tick: who runs it until when; nil if nobody took it.
	Lease    *store.Lease
	Form     AdminRunForm
	Progress *AdminRunProgress // the run going now, if any
	Runs     AdminJobRuns
}

// LeaseState says in words where today's lease stands.
func (j AdminJob) LeaseState(ctx context.Context) string {
	switch l := j.Lease; {
	case l == nil:
		return "free: no replica has taken today's tick"
	case l.Done:
		return "done: today's tick ran to its end (" + l.Owner + ")"
	case l.ExpiresAt.Before(j.Now):
		return "free: " + l.Owner + "'s lease ran out at " + adminTime(ctx, l.ExpiresAt)
	default:
		return "held by " + l.Owner + " until " + adminTime(ctx, l.ExpiresAt)
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
func runDuration(r store.JobRun) string {
	if r.StartedAt.IsZero() {
		return "—"
	}
	return formatDuration(r.Duration())
}

func formatDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "—"
	case d < 10*time.Second:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s"
	case d < time.Minute:
		return strconv.Itoa(int(d.Seconds())) + " s"
	case d < time.Hour:
		return fmt.Sprintf("%d min %02d s", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%d h %02d min", int(d.Hours()), int(d.Minutes())%60)
	}
}

// AdminChartDay is what a job's runs did on one day.
type AdminChartDay struct {
	Day      time.Time // in the shop's time zone
	Runs     int
	Count    int           // charged (payments) or mailed (reminders)
	Duration time.Duration // all the day's runs together
	Troubled bool          // a run of the day failed or was cancelled
	Running  bool
}

// AdminRunChart is a job's runs of the last 30 days, a slot a day, oldest
// first: the count (charged, or reminders mailed) and the time taken.
type AdminRunChart struct {
	Job        string
	CountLabel string // "charged" or "reminders mailed"
	Days       []AdminChartDay
	Current    time.Time // the day of the run the page is about
	Truncated  bool      // more runs than the chart reads: the oldest days may be short
}

// The chart's geometry, in SVG user units (it scales to the page's width).
const (
	chartWidth  = 720.0
	chartLeft   = 64.0 // room for the y labels
	chartRight  = 12.0
	chartPanelH = 110.0
	chartTop1   = 26.0
	chartTop2   = chartTop1 + chartPanelH + 46
	chartHeight = chartTop2 + chartPanelH + 30
)

// ChartPanel is one bar chart of the SVG.
type ChartPanel struct {
	Title  string
	Top    float64
	Bottom float64
	Bars   []ChartBar
	Ticks  []ChartTick
}

// ChartBar is one day's bar.
type ChartBar struct {
	X, Y, W, H float64
	Fill       string
	Title      string // the tooltip: the day's numbers
}

// ChartTick is a y-axis label with its grid line.
type ChartTick struct {
	Y     float64
	Label string
}

// ChartLabel is an x-axis label.
type ChartLabel struct {
	X     float64
	Label string
}

const (
	fillCount    = "#2e7d4f"
	fillDuration = "#1f6fb2"
	fillTroubled = "#c0392b"
	fillRunning  = "#9aa5b1"
)

func (c AdminRunChart) slot() float64 {
	return (chartWidth - chartLeft - chartRight) / float64(max(len(c.Days), 1))
}

// CurrentBand is where the run on the page sits: x and width of its day's
// slot; ok is false when it is outside the chart.
func (c AdminRunChart) CurrentBand() (x, w float64, ok bool) {
	for i, d := range c.Days {
		if d.Day.Equal(c.Current) {
			return chartLeft + float64(i)*c.slot(), c.slot(), true
		}
	}
	return 0, 0, false
}

func (c AdminRunChart) dayTitle(d AdminChartDay) string {
	s := d.Day.Format("Mon 2 Jan") + ": "
	if d.Runs == 0 {
		return s + "no run"
	}
	runs := "1 run"
	if d.Runs > 1 {
		runs = strconv.Itoa(d.Runs) + " runs"
	}
	s += runs + ", " + strconv.Itoa(d.Count) + " " + c.CountLabel + ", " + formatDuration(d.Duration)
	if d.Troubled {
		s += ", a run failed or was cancelled"
	}
	if d.Running {
		s += ", running now"
	}
	return s
}

// Panels are the count chart over the duration chart.
func (c AdminRunChart) Panels() []ChartPanel {
	slot := c.slot()
	barW := slot * 0.7
	maxCount, maxDur := 0, time.Duration(0)
	for _, d := range c.Days {
		maxCount = max(maxCount, d.Count)
		maxDur = max(maxDur, d.Duration)
	}
	count := ChartPanel{Title: "Subscriptions " + c.CountLabel + " per day", Top: chartTop1, Bottom: chartTop1 + chartPanelH}
	top := niceCeil(float64(max(maxCount, 1)))
	count.Ticks = ticks(count, top, func(v float64) string {
		if v != math.Trunc(v) {
			return ""
		}
		return strconv.Itoa(int(v))
	})
	unit, unitName := durationUnit(maxDur)
	dur := ChartPanel{Title: "Time taken per day (" + unitName + ")", Top: chartTop2, Bottom: chartTop2 + chartPanelH}
	durTop := niceCeil(math.Max(float64(maxDur)/float64(unit), 1))
	dur.Ticks = ticks(dur, durTop, func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) })
	for i, d := range c.Days {
		if d.Runs == 0 {
			continue
		}
		x := chartLeft + float64(i)*slot + (slot-barW)/2
		title := c.dayTitle(d)
		fill := fillCount
		if d.Running {
			fill = fillRunning
		}
		if h := chartPanelH * float64(d.Count) / top; d.Count > 0 {
			count.Bars = append(count.Bars, ChartBar{X: x, Y: count.Bottom - h, W: barW, H: h, Fill: fill, Title: title})
		} else {
			// A run that charged nobody still shows: a sliver on the axis.
			count.Bars = append(count.Bars, ChartBar{X: x, Y: count.Bottom - 2, W: barW, H: 2, Fill: fill, Title: title})
		}
		fill = fillDuration
		switch {
		case d.Troubled:
			fill = fillTroubled
		case d.Running:
			fill = fillRunning
		}
		h := math.Max(chartPanelH*float64(d.Duration)/float64(unit)/durTop, 2)
		dur.Bars = append(dur.Bars, ChartBar{X: x, Y: dur.Bottom - h, W: barW, H: h, Fill: fill, Title: title})
	}
	return []ChartPanel{count, dur}
}

// XLabels name every fifth day and the last one.
func (c AdminRunChart) XLabels() []ChartLabel {
	slot := c.slot()
	var out []ChartLabel
	for i, d := range c.Days {
		if (len(c.Days)-1-i)%5 == 0 {
			out = append(out, ChartLabel{X: chartLeft + (float64(i)+0.5)*slot, Label: d.Day.Format("2 Jan")})
		}
	}
	return out
}

// Summary is the chart's text alternative.
func (c AdminRunChart) Summary() string {
	runs, count, troubled := 0, 0, 0
	for _, d := range c.Days {
		runs += d.Runs
		count += d.Count
		if d.Troubled {
			troubled++
		}
	}
	s := fmt.Sprintf("%s of %s in the last %d days, %s %s", plural(runs, "run"), c.Job, len(c.Days), plural(count, "subscription"), c.CountLabel)
	if troubled > 0 {
		s += "; a run failed or was cancelled on " + plural(troubled, "day")
	}
	return s + "."
}

func ticks(p ChartPanel, top float64, label func(float64) string) []ChartTick {
	var out []ChartTick
	for _, f := range []float64{0, 0.5, 1} {
		v := top * f
		l := label(v)
		if l == "" {
			continue
		}
		out = append(out, ChartTick{Y: p.Bottom - (p.Bottom-p.Top)*f, Label: l})
	}
	return out
}

// niceCeil is the smallest of 1, 2, 5 × 10^k at least v.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v-1e-9 {
			return m * p
		}
	}
	return 10 * p
}

// durationUnit picks the unit of the duration axis.
func durationUnit(d time.Duration) (time.Duration, string) {
	switch {
	case d >= 2*time.Hour:
		return time.Hour, "hours"
	case d >= 2*time.Minute:
		return time.Minute, "minutes"
	default:
		return time.Second, "seconds"
	}
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// svgNum writes a coordinate.
func svgNum(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
