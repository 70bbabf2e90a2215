package views

import (
	"context"
	"time"

	"shop/store"
	"shop/views/lang"
)

// DashboardBlock names the blocks of the console's home; each loads and
// refreshes on its own.
// Title is the block's title's message id.
var DashboardBlocks = []struct{ Name, Title string }{
	{"sales", "admin.home.sales"},
	{"to-ship", "admin.home.to_ship"},
	{"awaiting-stock", "admin.home.awaiting_stock"},
	{"low-stock", "admin.home.low_stock"},
	{"jobs", "admin.home.jobs"},
	{"drops", "admin.home.drops"},
	{"card-refunds", "admin.home.card_refunds"},
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
func (s AdminSales) bars(ctx context.Context) []salesBar {
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
			Title: t(ctx, "admin.home.bar", "Day", lang.Date(ctx, d.Day), "Orders", tn(ctx, "admin.home.orders", d.Orders), "Revenue", money(ctx, d.Revenue))}
	}
	return out
}

// chartSummary says in words what the chart shows, for screen readers.
func (s AdminSales) chartSummary(ctx context.Context) string {
	best := store.DayTotal{}
	for _, d := range s.Days {
		if d.Revenue.Amount > best.Revenue.Amount {
			best = d
		}
	}
	if best.Orders == 0 {
		return t(ctx, "admin.home.chart_none")
	}
	return t(ctx, "admin.home.chart_best", "Day", lang.Date(ctx, best.Day), "Revenue", money(ctx, best.Revenue))
}

// AdminToShip is the orders placed and not yet all shipped, oldest first.
type AdminToShip struct {
	Orders []store.Order
	More   bool // more wait than are shown
	Now    time.Time
}

// waited is how long an order has waited, in the largest whole unit.
func waited(ctx context.Context, since, now time.Time) string {
	d := now.Sub(since)
	switch {
	case d < time.Hour:
		return tn(ctx, "admin.home.minutes", int(d.Minutes()))
	case d < 48*time.Hour:
		return tn(ctx, "admin.home.hours", int(d.Hours()))
	}
	return tn(ctx, "admin.home.days", int(d.Hours()/24))
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
