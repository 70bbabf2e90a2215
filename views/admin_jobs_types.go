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

// adminChartDay is a day of the chart: "Mon 2 Jan", "11월 2일 (월)",
// "Sen 2 Jan"; without the weekday, "2 Jan".
func adminChartDay(ctx context.Context, d time.Time, weekday bool) string {
	l := lang.From(ctx)
	switch l {
	case lang.Korean:
		s := d.Format("1월 2일")
		if weekday {
			s += " (" + koreanWeekdays[d.Weekday()] + ")"
		}
		return s
	case lang.Indonesian:
		s := strconv.Itoa(d.Day()) + " " + indonesianMonths[d.Month()-1]
		if weekday {
			s = indonesianWeekdays[d.Weekday()] + " " + s
		}
		return s
	}
	if weekday {
		return d.Format("Mon 2 Jan")
	}
	return d.Format("2 Jan")
}

var (
	koreanWeekdays     = [7]string{"일", "월", "화", "수", "목", "금", "토"}
	indonesianWeekdays = [7]string{"Min", "Sen", "Sel", "Rab", "Kam", "Jum", "Sab"}
	indonesianMonths   = [12]string{"Jan", "Feb", "Mar", "Apr", "Mei", "Jun", "Jul", "Agu", "Sep", "Okt", "Nov", "Des"}
)

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

func (c AdminRunChart) dayTitle(ctx context.Context, d AdminChartDay) string {
	day := adminChartDay(ctx, d.Day, true)
	if d.Runs == 0 {
		return t(ctx, "admin.jobs.day.no_run", "Day", day)
	}
	s := t(ctx, "admin.jobs.day.runs", "Day", day, "Runs", tn(ctx, "admin.jobs.n_runs", d.Runs),
		"Count", d.Count, "Label", adminCountLabel(ctx, c.CountLabel), "Took", formatDuration(ctx, d.Duration))
	if d.Troubled {
		s += t(ctx, "admin.jobs.day.troubled")
	}
	if d.Running {
		s += t(ctx, "admin.jobs.day.running")
	}
	return s
}

// Panels are the count chart over the duration chart.
func (c AdminRunChart) Panels(ctx context.Context) []ChartPanel {
	slot := c.slot()
	barW := slot * 0.7
	maxCount, maxDur := 0, time.Duration(0)
	for _, d := range c.Days {
		maxCount = max(maxCount, d.Count)
		maxDur = max(maxDur, d.Duration)
	}
	count := ChartPanel{Title: t(ctx, "admin.jobs.chart.count_title", "Label", adminCountLabel(ctx, c.CountLabel)), Top: chartTop1, Bottom: chartTop1 + chartPanelH}
	top := niceCeil(float64(max(maxCount, 1)))
	count.Ticks = ticks(count, top, func(v float64) string {
		if v != math.Trunc(v) {
			return ""
		}
		return strconv.Itoa(int(v))
	})
	unit, unitName := durationUnit(maxDur)
	dur := ChartPanel{Title: t(ctx, "admin.jobs.chart.time_title", "Unit", t(ctx, unitName)), Top: chartTop2, Bottom: chartTop2 + chartPanelH}
	durTop := niceCeil(math.Max(float64(maxDur)/float64(unit), 1))
	dur.Ticks = ticks(dur, durTop, func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) })
	for i, d := range c.Days {
		if d.Runs == 0 {
			continue
		}
		x := chartLeft + float64(i)*slot + (slot-barW)/2
		title := c.dayTitle(ctx, d)
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
func (c AdminRunChart) XLabels(ctx context.Context) []ChartLabel {
	slot := c.slot()
	var out []ChartLabel
	for i, d := range c.Days {
		if (len(c.Days)-1-i)%5 == 0 {
			out = append(out, ChartLabel{X: chartLeft + (float64(i)+0.5)*slot, Label: adminChartDay(ctx, d.Day, false)})
		}
	}
	return out
}

// Summary is the chart's text alternative.
func (c AdminRunChart) Summary(ctx context.Context) string {
	runs, count, troubled := 0, 0, 0
	for _, d := range c.Days {
		runs += d.Runs
		count += d.Count
		if d.Troubled {
			troubled++
		}
	}
	s := t(ctx, "admin.jobs.chart.summary", "Runs", tn(ctx, "admin.jobs.n_runs", runs), "Job", AdminJobNoun(ctx, c.Job),
		"Days", len(c.Days), "Subscriptions", tn(ctx, "admin.jobs.n_subscriptions", count), "Label", adminCountLabel(ctx, c.CountLabel))
	if troubled > 0 {
		s += tn(ctx, "admin.jobs.chart.summary_troubled", troubled)
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

// durationUnit picks the unit of the duration axis, and its name's
// message id.
func durationUnit(d time.Duration) (time.Duration, string) {
	switch {
	case d >= 2*time.Hour:
		return time.Hour, "admin.jobs.unit.hours"
	case d >= 2*time.Minute:
		return time.Minute, "admin.jobs.unit.minutes"
	default:
		return time.Second, "admin.jobs.unit.seconds"
	}
}

// svgNum writes a coordinate.
func svgNum(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
