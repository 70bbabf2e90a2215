package rules

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

func lvl(w string, q int) Holding { return Holding{WarehouseID: w, Quantity: q} }

func TestAllocate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []AllocationLine
		want  [][]Allocation
		short string // product id of the line that cannot be filled
	}{
		{
			name:  "one warehouse holds every line",
			lines: []AllocationLine{{ProductID: "a", Quantity: 2, Stock: []Holding{lvl("w1", 5), lvl("w2", 1)}}, {ProductID: "b", Quantity: 1, Stock: []Holding{lvl("w1", 1), lvl("w2", 9)}}},
			want:  [][]Allocation{{{"w1", 2}}, {{"w1", 1}}},
		},
		{
			name:  "of two complete warehouses the one holding more wins",
			lines: []AllocationLine{{ProductID: "a", Quantity: 1, Stock: []Holding{lvl("w1", 1), lvl("w2", 7)}}},
			want:  [][]Allocation{{{"w2", 1}}},
		},
		{
			name:  "equal stock: lowest id",
			lines: []AllocationLine{{ProductID: "a", Quantity: 1, Stock: []Holding{lvl("w2", 3), lvl("w1", 3)}}},
			want:  [][]Allocation{{{"w1", 1}}},
		},
		{
			name:  "no single warehouse: split, most stock first",
			lines: []AllocationLine{{ProductID: "a", Quantity: 6, Stock: []Holding{lvl("w1", 2), lvl("w2", 4), lvl("w3", 1)}}},
			want:  [][]Allocation{{{"w2", 4}, {"w1", 2}}},
		},
		{
			name: "lines in different warehouses",
			lines: []AllocationLine{
				{ProductID: "a", Quantity: 1, Stock: []Holding{lvl("w1", 1)}},
				{ProductID: "b", Quantity: 1, Stock: []Holding{lvl("w2", 1), lvl("w1", 0)}},
			},
			want: [][]Allocation{{{"w1", 1}}, {{"w2", 1}}},
		},
		{
			name:  "not enough anywhere",
			lines: []AllocationLine{{ProductID: "a", Quantity: 1, Stock: []Holding{lvl("w1", 1)}}, {ProductID: "b", Quantity: 5, Stock: []Holding{lvl("w1", 2), lvl("w2", 2)}}},
			short: "b",
		},
		{
			name:  "no stock item at all",
			lines: []AllocationLine{{ProductID: "a", Quantity: 1}},
			short: "a",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Allocate(tc.lines)
			if tc.short != "" {
				var short *Shortage
				if !errors.As(err, &short) || short.ProductID != tc.short || tc.lines[short.Line].ProductID != tc.short {
					t.Fatalf("Allocate = %v, %v; want short of %s", got, err, tc.short)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Allocate = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// spreadLines are n lines of qty each, every product held by warehouses
// warehouses with per units each.
func spreadLines(n, qty, warehouses, per int) []AllocationLine {
	var lines []AllocationLine
	for i := range n {
		l := AllocationLine{ProductID: fmt.Sprintf("p%02d", i), Quantity: qty}
		for w := range warehouses {
			l.Stock = append(l.Stock, Holding{WarehouseID: fmt.Sprintf("w%d", w+1), Quantity: per})
		}
		lines = append(lines, l)
	}
	return lines
}

// A line Allocate would split across more than perLine warehouses takes
// the ones holding most; what they cannot fill is short. Within the cap
// the allocation is Allocate's own.
func TestAllocateAtMostCapsWarehousesPerLine(t *testing.T) {
	const perLine = 4
	free, err := Allocate(spreadLines(15, 60, 8, 10))
	if err != nil || len(free[0]) != 6 {
		t.Fatalf("uncapped allocator: %v, %v; the case needs a split across 6", free, err)
	}
	_, err = AllocateAtMost(spreadLines(15, 60, 8, 10), perLine)
	var short *Shortage
	if !errors.As(err, &short) || short.Available != 4*10 || short.Wanted != 60 {
		t.Fatalf("AllocateAtMost of a line needing 6 warehouses: %v", err)
	}

	lines := []AllocationLine{
		{ProductID: "a", Quantity: 7, Stock: []Holding{lvl("w1", 1), lvl("w2", 2), lvl("w3", 3), lvl("w4", 4), lvl("w5", 1)}},
		{ProductID: "b", Quantity: 1, Stock: []Holding{lvl("w5", 1)}},
	}
	want, _ := Allocate(lines)
	got, err := AllocateAtMost(lines, perLine)
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("within the cap: %v, %v; want the allocator's %v", got, err, want)
	}
	// The four holding most fill it exactly: the allocator's split.
	lines[0].Quantity = 10
	got, err = AllocateAtMost(lines, perLine)
	if err != nil || fmt.Sprint(got[0]) != "[{w4 4} {w3 3} {w2 2} {w1 1}]" {
		t.Fatalf("top four: %v, %v", got, err)
	}
	// One more needs a fifth: refused, with what one order can take.
	lines[0].Quantity = 11
	if _, err := AllocateAtMost(lines, perLine); !errors.As(err, &short) || short.ProductID != "a" || short.Line != 0 || short.Available != 10 {
		t.Fatalf("a fifth warehouse: %v", err)
	}
}

// A drop sets its quantity aside from the warehouses holding most, at
// most `most` of them; what they hold together is what it could take.
func TestSetAside(t *testing.T) {
	for _, tc := range []struct {
		name           string
		stock          []Holding
		quantity, most int
		plan           string
		available      int
		ok             bool
	}{
		{"one warehouse", []Holding{lvl("w1", 9)}, 5, 20, "[{w1 5}]", 9, true},
		{"most first, then by id", []Holding{lvl("w2", 3), lvl("w3", 4), lvl("w1", 3)}, 8, 20, "[{w3 4} {w1 3} {w2 1}]", 10, true},
		{"empty and negative levels skipped", []Holding{lvl("w1", 0), lvl("w2", -2), lvl("w3", 2)}, 2, 20, "[{w3 2}]", 2, true},
		{"too few", []Holding{lvl("w1", 2), lvl("w2", 1)}, 5, 20, "[{w1 2} {w2 1}]", 3, false},
		{"only the `most` holding most count", []Holding{lvl("w1", 1), lvl("w2", 5), lvl("w3", 4)}, 10, 2, "[{w2 5} {w3 4}]", 9, false},
		{"nothing held", nil, 1, 20, "[]", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, available, ok := SetAside(tc.stock, tc.quantity, tc.most)
			if fmt.Sprint(plan) != tc.plan || available != tc.available || ok != tc.ok {
				t.Fatalf("SetAside = %v, %d, %v; want %s, %d, %v", plan, available, ok, tc.plan, tc.available, tc.ok)
			}
		})
	}
}

// What goes back goes to the warehouses that gave most first.
func TestGiveBack(t *testing.T) {
	setAside := []Allocation{{WarehouseID: "w1", Quantity: 2}, {WarehouseID: "w2", Quantity: 5}, {WarehouseID: "w3", Quantity: 2}}
	for _, tc := range []struct {
		n    int
		want string
	}{
		{0, "[]"},
		{1, "[{w2 1}]"},
		{5, "[{w2 5}]"},
		{6, "[{w2 5} {w1 1}]"},
		{9, "[{w2 5} {w1 2} {w3 2}]"},
		{12, "[{w2 5} {w1 2} {w3 2}]"},
	} {
		if got := GiveBack(setAside, tc.n); fmt.Sprint(got) != tc.want {
			t.Errorf("GiveBack(%d) = %v, want %s", tc.n, got, tc.want)
		}
	}
}
