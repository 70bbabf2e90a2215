package rules

import (
	"cmp"
	"fmt"
	"slices"
)

// Allocation is how many units of an order line leave from one warehouse.
type Allocation struct {
	WarehouseID string
	Quantity    int
}

// Holding is how many units of a line's product one warehouse holds.
type Holding struct {
	WarehouseID string
	Quantity    int
}

// AllocationLine is one order line with the stock that could fill it.
type AllocationLine struct {
	ProductID string
	Quantity  int
	Stock     []Holding
}

// Shortage says which line (its index in the lines allocated) cannot be
// filled: it wants Wanted, and the warehouses it may leave from hold
// Available together.
type Shortage struct {
	Line      int
	ProductID string
	Wanted    int
	Available int
}

func (e *Shortage) Error() string {
	return fmt.Sprintf("line %d (%s): %d wanted, %d held", e.Line, e.ProductID, e.Wanted, e.Available)
}

// Allocate decides which warehouses each line leaves from. One warehouse
// that holds every line is preferred (one parcel); of several, the one with
// the most stock of the lines, then the lowest id. Otherwise each line is
// split across warehouses, most stock first. A line that cannot be filled is
// a *Shortage.
func Allocate(lines []AllocationLine) ([][]Allocation, error) {
	for i, l := range lines {
		total := 0
		for _, s := range l.Stock {
			total += max(s.Quantity, 0)
		}
		if total < l.Quantity {
			return nil, &Shortage{Line: i, ProductID: l.ProductID, Wanted: l.Quantity, Available: total}
		}
	}
	if w := singleWarehouse(lines); w != "" {
		out := make([][]Allocation, len(lines))
		for i, l := range lines {
			out[i] = []Allocation{{WarehouseID: w, Quantity: l.Quantity}}
		}
		return out, nil
	}
	out := make([][]Allocation, len(lines))
	for i, l := range lines {
		need := l.Quantity
		for _, s := range mostFirst(l.Stock) {
			if need == 0 {
				break
			}
			take := min(need, s.Quantity)
			if take <= 0 {
				continue
			}
			out[i] = append(out[i], Allocation{WarehouseID: s.WarehouseID, Quantity: take})
			need -= take
		}
	}
	return out, nil
}

// AllocateAtMost is Allocate with at most perLine warehouses per line. An
// allocation within the cap is Allocate's own; only when a line would be
// split further are the lines allocated again from the perLine warehouses
// holding most of each (no single warehouse held them all, so the split is
// the same for every line that fits). What those cannot fill is a
// *Shortage.
func AllocateAtMost(lines []AllocationLine, perLine int) ([][]Allocation, error) {
	out, err := Allocate(lines)
	if err != nil || !slices.ContainsFunc(out, func(a []Allocation) bool { return len(a) > perLine }) {
		return out, err
	}
	capped := slices.Clone(lines)
	for i := range capped {
		st := mostFirst(capped[i].Stock)
		capped[i].Stock = st[:min(len(st), perLine)]
	}
	return Allocate(capped)
}

// mostFirst is a copy of stock, the warehouse holding most first, then by
// id.
func mostFirst(stock []Holding) []Holding {
	st := slices.Clone(stock)
	slices.SortFunc(st, func(a, b Holding) int {
		return cmp.Or(cmp.Compare(b.Quantity, a.Quantity), cmp.Compare(a.WarehouseID, b.WarehouseID))
	})
	return st
}

func singleWarehouse(lines []AllocationLine) string {
	covers := map[string]int{} // warehouse -> lines it can fill alone
	held := map[string]int{}   // warehouse -> units of these lines it holds
	for _, l := range lines {
		for _, s := range l.Stock {
			if s.Quantity >= l.Quantity {
				covers[s.WarehouseID]++
			}
			held[s.WarehouseID] += max(s.Quantity, 0)
		}
	}
	best := ""
	for w, n := range covers {
		if n != len(lines) {
			continue
		}
		if best == "" || held[w] > held[best] || (held[w] == held[best] && w < best) {
			best = w
		}
	}
	return best
}

// SetAside takes quantity units from the warehouses holding most first, at
// most `most` of them (a drop setting its quantity aside): the plan, what
// those warehouses hold together, and ok false when that is too few.
func SetAside(stock []Holding, quantity, most int) (plan []Allocation, available int, ok bool) {
	st := mostFirst(stock)
	left := quantity
	for _, l := range st[:min(len(st), most)] {
		if l.Quantity <= 0 {
			continue
		}
		available += l.Quantity
		if left > 0 {
			n := min(left, l.Quantity)
			plan = append(plan, Allocation{WarehouseID: l.WarehouseID, Quantity: n})
			left -= n
		}
	}
	return plan, available, left == 0
}

// GiveBack returns n units to the warehouses they were set aside from,
// those that gave most first (of equal ones, in setAside's order).
func GiveBack(setAside []Allocation, n int) []Allocation {
	from := slices.Clone(setAside)
	slices.SortStableFunc(from, func(a, b Allocation) int { return cmp.Compare(b.Quantity, a.Quantity) })
	var out []Allocation
	for _, a := range from {
		if n <= 0 {
			break
		}
		k := min(n, a.Quantity)
		out = append(out, Allocation{WarehouseID: a.WarehouseID, Quantity: k})
		n -= k
	}
	return out
}
