package store

// A customer asks back lines in one go, but an order may have left from
// several warehouses. Each unit goes back to a warehouse that shipped it,
// in a parcel of its own: one return per warehouse, each with its number,
// address and slip, which staff there receive, inspect and refund on
// their own. The returns of one ask are its parts ("parcel 1 of 2").

// returnParcel is how many units of each asked line go back to one
// warehouse (quantities by the line's place in the ask).
type returnParcel struct {
	warehouse string
	units     []int
}

// splitReturn sends the asked lines back to the warehouses that shipped
// them, in as few parcels as it can: first the warehouse that can take the
// most of the units (the first to ship on a tie), then the one that can
// take most of the rest, and so on. A warehouse can take what it shipped of
// a product less what earlier returns already sent it. Units no shipment
// accounts for (an earlier return from before returns were split took them
// elsewhere) go in the first parcel; an order with no shipment to read goes
// to the warehouse checkout allocated its first line to. The warehouse is
// "" when nothing names one.
func splitReturn(d OrderDetails, lines []ReturnLine) []returnParcel {
	var order []string
	shipped := map[string]map[string]int{} // warehouse → product → units it can take
	for _, sh := range d.Shipments {
		if shipped[sh.WarehouseID] == nil {
			shipped[sh.WarehouseID] = map[string]int{}
			order = append(order, sh.WarehouseID)
		}
		for _, it := range sh.Items {
			shipped[sh.WarehouseID][it.ProductID] += it.Quantity
		}
	}
	for _, r := range d.Returns {
		for _, l := range r.Lines {
			if w := shipped[r.SendTo.ID]; w != nil {
				w[l.ProductID] -= l.Quantity
			}
		}
	}
	left := make([]int, len(lines))
	for i, l := range lines {
		left[i] = l.Quantity
	}
	var parcels []returnParcel
	for {
		best, most := "", 0
		for _, w := range order {
			if n := sum(takeFrom(shipped[w], lines, left, false)); n > most {
				best, most = w, n
			}
		}
		if most == 0 {
			break
		}
		units := takeFrom(shipped[best], lines, left, true)
		for i, n := range units {
			left[i] -= n
		}
		parcels = append(parcels, returnParcel{warehouse: best, units: units})
	}
	if sum(left) == 0 {
		return parcels
	}
	if len(parcels) == 0 {
		return []returnParcel{{warehouse: allocatedWarehouse(d, lines), units: left}}
	}
	for i, n := range left {
		parcels[0].units[i] += n
	}
	return parcels
}

// takeFrom is how many of each line's units still left a warehouse can
// take (what it shipped of the product, less what it had back); take
// counts them off what it can take.
func takeFrom(can map[string]int, lines []ReturnLine, left []int, take bool) []int {
	used := map[string]int{}
	units := make([]int, len(lines))
	for i, l := range lines {
		n := max(0, min(left[i], can[l.ProductID]-used[l.ProductID]))
		used[l.ProductID] += n
		units[i] = n
	}
	if take {
		for p, n := range used {
			can[p] -= n
		}
	}
	return units
}

func sum(ns []int) int {
	t := 0
	for _, n := range ns {
		t += n
	}
	return t
}

// allocatedWarehouse is the warehouse checkout allocated the first of the
// lines to, "" if none.
func allocatedWarehouse(d OrderDetails, lines []ReturnLine) string {
	for _, it := range d.Items {
		if it.ProductID == lines[0].ProductID && len(it.Allocations) > 0 {
			return it.Allocations[0].WarehouseID
		}
	}
	return ""
}

// parcelsOf makes a return of each parcel from the return planned for the
// whole ask: its own id (but the first's), number, lines and place among
// the parts.
func parcelsOf(planned Return, first int, parcels []returnParcel) []Return {
	rs := make([]Return, 0, len(parcels))
	for p, parcel := range parcels {
		r := planned
		if p > 0 {
			r.ID = NewIDAt(planned.RequestedAt)
		}
		r.Number = ReturnNumber(r.OrderLabel(), first+p)
		r.SendTo = Warehouse{ID: parcel.warehouse}
		r.Lines = nil
		for i, n := range parcel.units {
			if n > 0 {
				l := planned.Lines[i]
				l.Quantity = n
				r.Lines = append(r.Lines, l)
			}
		}
		if len(parcels) > 1 {
			r.Part, r.Parts = p+1, len(parcels)
		}
		rs = append(rs, r)
	}
	return rs
}
