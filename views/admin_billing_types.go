package views

import (
	"context"
	"time"

	"shop/store"
	"shop/views/lang"
)

// AdminBilling is the billing dashboard: the subscriptions' kept totals
// now and over BillingMonths months.
type AdminBilling struct {
	Totals store.BillingTotals
}

// billingBar is one bar of a billing chart: a month's figure, scaled to
// the chart's height.
type billingBar struct {
	X, Y, W, H int
	Class      string
	Title      string // the month and the figure, for a pointer and a screen reader
}

// billingSeries is one figure a month, drawn in a class of its own.
type billingSeries struct {
	Class  string
	Name   string // what the figure is: "New"
	Values []int64
	Value  func(int64) string // one figure as written: "3", "€12.90"
}

// billingBars lays the series side by side in each month's slot, on one
// scale (the largest figure of any series fills the height).
func billingBars(ctx context.Context, months []store.BillingMonth, series ...billingSeries) []billingBar {
	if len(months) == 0 || len(series) == 0 {
		return nil
	}
	var top int64
	for _, s := range series {
		for _, v := range s.Values {
			top = max(top, v)
		}
	}
	slot := chartW / len(months)
	w := max((slot-4)/len(series), 1)
	var out []billingBar
	for i, m := range months {
		for k, s := range series {
			v := s.Values[i]
			h := 0
			if top > 0 {
				h = int(v * (chartH - 2) / top)
			}
			if v > 0 && h == 0 {
				h = 1 // a figure above zero always shows
			}
			out = append(out, billingBar{X: i*slot + 2 + k*w, Y: chartH - h, W: w, H: h, Class: s.Class,
				Title: billingMonthName(ctx, m.Month) + ": " + s.Name + " " + s.Value(v)})
		}
	}
	return out
}

// billingPlot is one billing chart: its bars, and its axes: the largest
// figure and zero up the side, the first and last month along the bottom.
type billingPlot struct {
	Bars []billingBar
	Axes chartAxes
}

func billingPlotOf(ctx context.Context, months []store.BillingMonth, series ...billingSeries) billingPlot {
	p := billingPlot{Bars: billingBars(ctx, months, series...)}
	if len(months) == 0 || len(series) == 0 {
		return p
	}
	var top int64
	for _, s := range series {
		for _, v := range s.Values {
			top = max(top, v)
		}
	}
	if top > 0 {
		p.Axes.Y = append(p.Axes.Y, chartTick{Y: 2, Label: series[0].Value(top)})
	}
	p.Axes.Y = append(p.Axes.Y, chartTick{Y: chartH - 1, Label: series[0].Value(0)})
	first, last := billingMonthName(ctx, months[0].Month), billingMonthName(ctx, months[len(months)-1].Month)
	p.Axes.X = []string{first, last}
	return p
}

// billingDrawn says a chart has a bar above zero to draw.
func billingDrawn(bars []billingBar) bool {
	for _, bar := range bars {
		if bar.H > 0 {
			return true
		}
	}
	return false
}

func (b AdminBilling) counts(f func(store.BillingMonth) int) []int64 {
	out := make([]int64, len(b.Totals.Months))
	for i, m := range b.Totals.Months {
		out[i] = int64(f(m))
	}
	return out
}

// recovered is each month's recovered revenue in the shop's currency (the
// first of each month's amounts): the chart draws one currency.
func (b AdminBilling) recovered() []int64 {
	out := make([]int64, len(b.Totals.Months))
	for i, m := range b.Totals.Months {
		if len(m.Recovered) > 0 {
			out[i] = m.Recovered[0].Amount
		}
	}
	return out
}

// count writes a count as the page's language does.
func (b AdminBilling) count(ctx context.Context) func(int64) string {
	return func(v int64) string { return lang.Number(ctx, v) }
}

// money writes an amount in the shop's currency as the page's language does.
func (b AdminBilling) money(ctx context.Context) func(int64) string {
	return func(v int64) string { return money(ctx, b.shopMoney(v)) }
}

// shopMoney is an amount in the shop's currency (the first of the MRR's).
func (b AdminBilling) shopMoney(v int64) store.Money {
	m := store.Money{Amount: v}
	if len(b.Totals.MRR) > 0 {
		m.Currency = b.Totals.MRR[0].Currency
	}
	return m
}

// billingMonthName is a month as the reader's language writes it
// ("November 2026", "2026년 11월"), as the sales figures do.
func billingMonthName(ctx context.Context, m store.Month) string {
	return lang.Month(ctx, m.Start(time.UTC))
}
