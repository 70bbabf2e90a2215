package views

import (
	"context"
	"math"
	"strconv"
	"time"

	"shop/views/lang"
)

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
