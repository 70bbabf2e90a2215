package store

import (
	"fmt"
	"testing"
)

func TestOrderItemToShip(t *testing.T) {
	t.Parallel()
	two := []Allocation{{WarehouseID: "w1", Quantity: 2}, {WarehouseID: "w2", Quantity: 3}}
	for _, c := range []struct {
		name     string
		allocs   []Allocation
		refunded int
		want     string
	}{
		{"nothing refunded", two, 0, "[{w1 2} {w2 3}]"},
		{"the last allocation gives first", two, 2, "[{w1 2} {w2 1}]"},
		{"the last allocation emptied", two, 3, "[{w1 2}]"},
		{"then the one before", two, 4, "[{w1 1}]"},
		{"all refunded", two, 5, "[]"},
		{"more refunded than allocated", two, 7, "[]"},
		{"no allocations", nil, 1, "[]"},
		{"one warehouse", []Allocation{{WarehouseID: "w1", Quantity: 4}}, 1, "[{w1 3}]"},
		{"an empty allocation kept out", []Allocation{{WarehouseID: "w1", Quantity: 2}, {WarehouseID: "w2", Quantity: 0}}, 1, "[{w1 1}]"},
		{"a negative refund count gives nothing back", two, -1, "[{w1 2} {w2 3}]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			it := OrderItem{Quantity: 5, Allocations: c.allocs, Refunded: c.refunded}
			if got := fmt.Sprint(it.ToShip()); got != c.want {
				t.Fatalf("ToShip of %v less %d = %s, want %s", c.allocs, c.refunded, got, c.want)
			}
		})
	}
}

// What a refund puts back and what is then left to ship add up to what
// was to ship before, warehouse by warehouse, whatever was refunded first.
func TestBackWhereAllocatedAgreesWithToShip(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		before, n int
		want      string
	}{
		{0, 2, "[{w2 2}]"},
		{0, 4, "[{w1 1} {w2 3}]"},
		{2, 2, "[{w1 1} {w2 1}]"},
		{3, 2, "[{w1 2}]"},
		{4, 1, "[{w1 1}]"},
		{5, 1, "[]"},
	} {
		it := OrderItem{Quantity: 5, Allocations: []Allocation{{WarehouseID: "w1", Quantity: 2}, {WarehouseID: "w2", Quantity: 3}}, Refunded: c.before}
		back := backWhereAllocated(it, c.n)
		if got := fmt.Sprint(back); got != c.want && !(c.want == "[]" && len(back) == 0) {
			t.Errorf("refund %d after %d: back %s, want %s", c.n, c.before, got, c.want)
		}
		after := it
		after.Refunded += c.n
		sum := map[string]int{}
		for _, a := range back {
			sum[a.WarehouseID] += a.Quantity
		}
		for _, a := range after.ToShip() {
			sum[a.WarehouseID] += a.Quantity
		}
		for _, a := range it.ToShip() {
			sum[a.WarehouseID] -= a.Quantity
		}
		for w, d := range sum {
			if d != 0 {
				t.Errorf("refund %d after %d: %s off by %d", c.n, c.before, w, d)
			}
		}
	}
}
