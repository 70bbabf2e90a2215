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

// AdminSales is the sales block: today, the last 30 days, and a bar a day;
// revenue is the days' orders as charged, refunds count on the day the
// money went back.
type AdminSales struct {
	Today, Month store.DayTotal // Month: summed over the days, Day unset
	Days         []store.DayTotal
	Loc          *time.Location
}

// salesBar is one day's bars in the chart: its revenue rises from the
// baseline, what it refunded hangs below it.
type salesBar struct {
	X, Y, W, H int
	RefundH    int // the refunds' bar, from the baseline down
	Title      string
	Today      bool
}

const chartW, chartH = 600, 140

// refunded says whether the days gave anything back.
func (s AdminSales) refunded() bool { return s.Month.Refunded.Amount > 0 }

// baseline is the chart's zero line: the bottom without refunds, else
// where revenue and refunds share the height on one scale.
func (s AdminSales) baseline() int {
	top, bottom := s.extent()
	if bottom == 0 || top+bottom == 0 {
		return chartH
	}
	return min(int(top*chartH/(top+bottom)), chartH-5) // room for a small refund's bar
}

// extent is the best day's revenue and the largest day's refunds.
func (s AdminSales) extent() (top, bottom int64) {
	for _, d := range s.Days {
		top, bottom = max(top, d.Revenue.Amount), max(bottom, d.Refunded.Amount)
	}
	return top, bottom
}

// scale is an amount's height in the chart: revenue and refunds share
// the height on one scale.
func (s AdminSales) scale(v int64) int {
	top, bottom := s.extent()
	if top+bottom == 0 {
		return 0
	}
	return int(v * (chartH - 2) / (top + bottom))
}

// bars lays out the days' revenue above the baseline and their refunds
// below it, on one scale, so a refund's bar compares with a sale's.
func (s AdminSales) bars(ctx context.Context) []salesBar {
	if len(s.Days) == 0 {
		return nil
	}
	base := s.baseline()
	w := chartW / len(s.Days)
	out := make([]salesBar, len(s.Days))
	for i, d := range s.Days {
		h, rh := s.scale(d.Revenue.Amount), s.scale(d.Refunded.Amount)
		if d.Orders > 0 {
			h = max(h, 2) // a day with orders shows, however small
		}
		if d.Refunded.Amount > 0 {
			rh = max(rh, 4) // red on a thin line: a little taller to be seen
		}
		title := t(ctx, "admin.home.bar", "Day", lang.Date(ctx, d.Day), "Orders", tn(ctx, "admin.home.orders", d.Orders), "Revenue", money(ctx, d.Revenue))
		if d.Refunded.Amount > 0 {
			title = t(ctx, "admin.home.bar_refunded", "Day", lang.Date(ctx, d.Day), "Orders", tn(ctx, "admin.home.orders", d.Orders), "Revenue", money(ctx, d.Revenue),
				"Refunded", money(ctx, d.Refunded), "Net", money(ctx, d.Net()))
		}
		h, rh = min(h, base), min(rh, chartH-base)
		out[i] = salesBar{X: i*w + 1, Y: base - h, W: w - 2, H: h, RefundH: rh, Today: i == len(s.Days)-1, Title: title}
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
	var says string
	if best.Orders == 0 {
		says = t(ctx, "admin.home.chart_none")
	} else {
		says = t(ctx, "admin.home.chart_best", "Day", lang.Date(ctx, best.Day), "Revenue", money(ctx, best.Revenue))
	}
	if s.refunded() {
		says += " " + t(ctx, "admin.home.chart_refunded", "Refunded", money(ctx, s.Month.Refunded))
	}
	return says
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

// axes marks the sales chart: the best day's revenue, half of it and zero
// up the side (and the largest refund below zero), the first, middle and
// last day along the bottom.
func (s AdminSales) axes(ctx context.Context) chartAxes {
	days := spanLabels(len(s.Days), func(i int) string { return lang.DayMonth(ctx, s.Days[i].Day) })
	top, bottom := s.extent()
	if top+bottom == 0 {
		return chartAxes{Y: []chartTick{{Y: chartH - 1, Label: lang.Number(ctx, 0)}}, X: days}
	}
	cur := s.Month.Revenue.Currency
	at := func(v int64) store.Money { return store.Money{Amount: v, Currency: cur} }
	base := s.baseline()
	up := min(s.scale(top), base)
	ticks := []chartTick{{Y: base - up, Label: money(ctx, at(top))}, {Y: base, Label: money(ctx, at(0))}, {Y: base - up/2, Label: money(ctx, at(top/2))}}
	if bottom > 0 {
		ticks = append(ticks, chartTick{Y: base + min(s.scale(bottom), chartH-base), Label: "−" + money(ctx, at(bottom))})
	}
	return chartAxes{Y: spacedTicks(ticks...), X: days}
}
