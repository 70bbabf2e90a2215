package views

import "unicode/utf8"

// chartTick is a value marked on a chart's vertical axis, at its height
// in the chart's viewBox (chartH high).
type chartTick struct {
	Y     int
	Label string
}

// TextY keeps a tick's label inside the chart's height.
func (t chartTick) TextY() int { return min(max(t.Y+4, 10), chartH-2) }

// chartAxes are a bar chart's marks: values up the side, days or months
// along the bottom (first, middle, last).
type chartAxes struct {
	Y []chartTick
	X []string
}

// YWidth is the side axis's width in pixels: its longest label's, about
// 7 px a character at the axis's size, and the gap to the bars.
func (a chartAxes) YWidth() int {
	w := 0
	for _, t := range a.Y {
		w = max(w, utf8.RuneCountInString(t.Label))
	}
	return 7*w + 8
}

// spacedTicks drops a tick too close to one kept before it, so two labels
// never print over each other (a small refund's bar under the zero line).
func spacedTicks(ticks ...chartTick) []chartTick {
	var out []chartTick
	for _, t := range ticks {
		near := false
		for _, k := range out {
			if d := t.Y - k.Y; d > -14 && d < 14 {
				near = true
			}
		}
		if !near {
			out = append(out, t)
		}
	}
	return out
}

// spanLabels are the first, middle and last of n labels, as an axis
// along the bottom shows them.
func spanLabels(n int, label func(i int) string) []string {
	switch n {
	case 0:
		return nil
	case 1:
		return []string{label(0)}
	case 2:
		return []string{label(0), label(1)}
	}
	return []string{label(0), label(n / 2), label(n - 1)}
}
