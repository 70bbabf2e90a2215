package views

import (
	"fmt"
	"time"

	"shop/store"
)

// DashboardBlock names the blocks of the console's home; each loads and
// refreshes on its own.
var DashboardBlocks = []struct{ Name, Title string }{
	{"sales", "Sales"},
	{"to-ship", "Waiting to ship"},
	{"awaiting-stock", "Awaiting stock"},
	{"low-stock", "Low stock"},
	{"jobs", "Billing jobs"},
	{"drops", "Drops open now"},
}

// AdminSales is the sales block: today, the last 30 days, and a bar a day.
type AdminSales struct {
	Today, Month store.DayTotal // Month: summed over the days, Day unset
	Days         []store.DayTotal
	Loc          *time.Location
}

// salesBar is one day's bar in the chart.
type salesBar struct {
	X, Y, W, H int
	Title      string
	Today      bool
}

const chartW, chartH = 600, 140

// bars lays out the days' revenue as bars scaled to the best day.
func (s AdminSales) bars() []salesBar {
	if len(s.Days) == 0 {
		return nil
	}
	var top int64
	for _, d := range s.Days {
		top = max(top, d.Revenue.Amount)
	}
	w := chartW / len(s.Days)
	out := make([]salesBar, len(s.Days))
	for i, d := range s.Days {
		h := 0
		if top > 0 {
			h = int(d.Revenue.Amount * (chartH - 2) / top)
		}
		if d.Orders > 0 {
			h = max(h, 2) // a day with orders shows, however small
		}
		out[i] = salesBar{X: i*w + 1, Y: chartH - h, W: w - 2, H: h, Today: i == len(s.Days)-1,
			Title: fmt.Sprintf("%s: %s, %s", d.Day.Format("Mon 2 Jan"), plural(d.Orders, "order"), d.Revenue)}
	}
	return out
}

// chartSummary says in words what the chart shows, for screen readers.
func (s AdminSales) chartSummary() string {
	best := store.DayTotal{}
	for _, d := range s.Days {
		if d.Revenue.Amount > best.Revenue.Amount {
			best = d
		}
	}
	if best.Orders == 0 {
		return "Revenue per day over the last 30 days: no orders."
	}
	return fmt.Sprintf("Revenue per day over the last 30 days; the best day was %s with %s.", best.Day.Format("2 Jan"), best.Revenue)
}

// AdminToShip is the orders placed and not yet all shipped, oldest first.
type AdminToShip struct {
	Orders []store.Order
	More   bool // more wait than are shown
	Now    time.Time
}

// waited is how long an order has waited, in the largest whole unit.
func waited(since, now time.Time) string {
	d := now.Sub(since)
	switch {
	case d < time.Hour:
		return plural(int(d.Minutes()), "minute")
	case d < 48*time.Hour:
		return plural(int(d.Hours()), "hour")
	}
	return plural(int(d.Hours()/24), "day")
}

// AdminLowStock is the stock levels under their threshold.
type AdminLowStock struct {
	Levels []store.StockLevel // the emptiest first
	More   int                // low levels not shown
}

// AdminJobsBlock is each billing job's last run.
type AdminJobsBlock struct {
	Jobs []AdminJobLast
}

// AdminJobLast is one job's last run; Found is false before its first.
type AdminJobLast struct {
	Job   string
	Run   store.JobRun
	Found bool
}

// AdminOpenDrops is the drops open now, with their claims.
type AdminOpenDrops struct {
	Drops []store.Drop
}
