package store

import (
	"fmt"
	"testing"
)

// Asked units go back to the warehouses that shipped them, in as few
// parcels as they can.
func TestSplitReturn(t *testing.T) {
	ship := func(w string, items ...any) Shipment {
		sh := Shipment{WarehouseID: w}
		for i := 0; i < len(items); i += 2 {
			sh.Items = append(sh.Items, ShipmentItem{ProductID: items[i].(string), Quantity: items[i+1].(int)})
		}
		return sh
	}
	sentBefore := func(w string, product string, n int) Return {
		return Return{SendTo: Warehouse{ID: w}, Lines: []ReturnLine{{ProductID: product, Quantity: n}}}
	}
	ask := func(pairs ...any) []ReturnLine {
		var ls []ReturnLine
		for i := 0; i < len(pairs); i += 2 {
			ls = append(ls, ReturnLine{ProductID: pairs[i].(string), Quantity: pairs[i+1].(int)})
		}
		return ls
	}
	for _, c := range []struct {
		name    string
		d       OrderDetails
		lines   []ReturnLine
		parcels string
	}{
		{"one warehouse", OrderDetails{Shipments: []Shipment{ship("w1", "a", 3)}}, ask("a", 2), "w1:[2]"},
		{"two warehouses, most units first", OrderDetails{Shipments: []Shipment{ship("w1", "a", 1), ship("w2", "b", 3)}},
			ask("a", 1, "b", 2), "w2:[0 2] w1:[1 0]"},
		{"a tie goes to the first to ship", OrderDetails{Shipments: []Shipment{ship("w1", "a", 1), ship("w2", "b", 1)}},
			ask("a", 1, "b", 1), "w1:[1 0] w2:[0 1]"},
		{"a product from both: one parcel where it can", OrderDetails{Shipments: []Shipment{ship("w2", "a", 1), ship("w1", "a", 1, "b", 1)}},
			ask("a", 1, "b", 1), "w1:[1 1]"},
		{"a line split between two", OrderDetails{Shipments: []Shipment{ship("w1", "a", 2), ship("w2", "a", 3)}},
			ask("a", 4), "w2:[3] w1:[1]"},
		{"an earlier return took one warehouse's units", OrderDetails{Shipments: []Shipment{ship("w1", "a", 2), ship("w2", "a", 1)},
			Returns: []Return{sentBefore("w1", "a", 2)}}, ask("a", 1), "w2:[1]"},
		{"an earlier return sent elsewhere, more than shipped: the first parcel", OrderDetails{Shipments: []Shipment{ship("w1", "a", 2)},
			Returns: []Return{sentBefore("w1", "a", 1), sentBefore("w9", "a", 1)}}, ask("a", 2), "w1:[2]"},
		{"two lines of one product", OrderDetails{Shipments: []Shipment{ship("w1", "a", 1), ship("w2", "a", 1)}},
			ask("a", 1, "a", 1), "w1:[1 0] w2:[0 1]"},
		{"no shipment: the allocation", OrderDetails{Items: []OrderItem{{ProductID: "a", Allocations: []Allocation{{WarehouseID: "w3", Quantity: 1}}}}},
			ask("a", 1), "w3:[1]"},
		{"nothing names a warehouse", OrderDetails{}, ask("a", 1), ":[1]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, p := range splitReturn(c.d, c.lines) {
				got = append(got, fmt.Sprintf("%s:%v", p.warehouse, p.units))
			}
			if s := fmt.Sprint(got); s != "["+c.parcels+"]" {
				t.Errorf("parcels %s, want [%s]", s, c.parcels)
			}
		})
	}
}

// Each parcel is a return of its own: the first keeps the planned id, the
// numbers follow the order's returns, and only lines with units stay.
func TestParcelsOf(t *testing.T) {
	planned := Return{ID: "r0", OrderNumber: "FF-T9PSJN", Lines: []ReturnLine{{ProductID: "a", Quantity: 1}, {ProductID: "b", Quantity: 2}}}
	rs := parcelsOf(planned, 3, []returnParcel{{"w2", []int{0, 2}}, {"w1", []int{1, 0}}})
	if len(rs) != 2 || rs[0].ID != "r0" || rs[1].ID == "r0" || rs[1].ID == "" {
		t.Fatalf("returns %+v", rs)
	}
	for i, want := range []struct {
		number, w, product string
		units, part        int
	}{{"FF-T9PSJN-R3", "w2", "b", 2, 1}, {"FF-T9PSJN-R4", "w1", "a", 1, 2}} {
		r := rs[i]
		if r.Number != want.number || r.SendTo.ID != want.w || len(r.Lines) != 1 || r.Lines[0].ProductID != want.product ||
			r.Lines[0].Quantity != want.units || r.Part != want.part || r.Parts != 2 {
			t.Errorf("part %d: %+v", i+1, r)
		}
	}
	if one := parcelsOf(planned, 1, []returnParcel{{"w1", []int{1, 2}}}); one[0].Part != 0 || one[0].Parts != 0 || one[0].Units() != 3 {
		t.Errorf("one parcel: %+v", one[0])
	}
}
