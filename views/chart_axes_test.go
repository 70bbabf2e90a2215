package views

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"shop/store"
)

// The sales chart's axes: the best day and zero up the side, at the
// heights the bars use, the largest refund under zero when there is one,
// and labels never printed over each other.
func TestSalesChartAxes(t *testing.T) {
	eur := func(cents int64) store.Money { return store.Money{Amount: cents, Currency: "EUR"} }
	days := func(revenue, refunded []int64) AdminSales {
		s := AdminSales{Month: store.DayTotal{Revenue: eur(1)}}
		for i := range revenue {
			d := store.DayTotal{Day: time.Date(2026, 11, 1+i, 0, 0, 0, 0, time.UTC), Orders: 1, Revenue: eur(revenue[i]), Refunded: eur(refunded[i])}
			s.Days = append(s.Days, d)
		}
		return s
	}
	labels := func(a chartAxes) (out []string) {
		for _, tk := range a.Y {
			out = append(out, tk.Label)
		}
		return out
	}
	for _, c := range []struct {
		name  string
		sales AdminSales
		y, x  []string
	}{
		{"no sales", AdminSales{}, []string{"0"}, nil},
		{"sales", days([]int64{1000, 4000, 2000}, []int64{0, 0, 0}), []string{"€40.00", "€0.00", "€20.00"}, []string{"1 Nov", "2 Nov", "3 Nov"}},
		{"a refund as large as the best day", days([]int64{4000, 0}, []int64{0, 4000}), []string{"€40.00", "€0.00", "€20.00", "−€40.00"}, []string{"1 Nov", "2 Nov"}},
		// A small refund's bar sits just under zero: its label would print
		// over zero's, so it is left to the bar's own title.
		{"a small refund", days([]int64{4000, 0}, []int64{0, 10}), []string{"€40.00", "€0.00", "€20.00"}, []string{"1 Nov", "2 Nov"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := c.sales.axes(t.Context())
			if got := labels(a); !slices.Equal(got, c.y) {
				t.Fatalf("side axis %q, want %q", got, c.y)
			}
			if !slices.Equal(a.X, c.x) {
				t.Fatalf("bottom axis %q, want %q", a.X, c.x)
			}
			base := c.sales.baseline()
			for _, tk := range a.Y {
				if tk.Label == "€0.00" && tk.Y != base {
					t.Fatalf("zero at %d, the bars' baseline at %d", tk.Y, base)
				}
				if tk.TextY() < 10 || tk.TextY() > chartH {
					t.Fatalf("label %q drawn at %d, outside the chart", tk.Label, tk.TextY())
				}
			}
			for i, b := range c.sales.bars(t.Context()) {
				if c.sales.Days[i].Revenue.Amount == 4000 && b.Y != a.Y[0].Y {
					t.Fatalf("the best day's bar tops at %d, its label at %d", b.Y, a.Y[0].Y)
				}
			}
		})
	}
}

func TestSpanLabels(t *testing.T) {
	for n, want := range map[int][]string{0: nil, 1: {"0"}, 2: {"0", "1"}, 3: {"0", "1", "2"}, 30: {"0", "15", "29"}} {
		if got := spanLabels(n, strconv.Itoa); !slices.Equal(got, want) {
			t.Errorf("%d labels: %q, want %q", n, got, want)
		}
	}
}
