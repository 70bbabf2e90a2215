package store

// What of an order not shipping yet is still to ship. A refund of units of
// a placed order and CreateShipments both go by ToShip, so a unit is either
// put back into its warehouse or shipped, never both.

// ToShip is what of the line is still to ship from each warehouse: its
// allocations less its refunded units, these taken back from the last
// allocation first (a fixed order, so the refund and the shipments agree
// on which warehouse keeps which units). It means this while the order is
// placed; once shipped, Allocations is what left.
func (i OrderItem) ToShip() []Allocation {
	back := max(i.Refunded, 0)
	out := make([]Allocation, len(i.Allocations))
	n := len(out)
	for j := len(i.Allocations) - 1; j >= 0; j-- {
		a := i.Allocations[j]
		left := max(a.Quantity, 0)
		take := min(back, left)
		back -= take
		if left -= take; left > 0 {
			n--
			out[n] = Allocation{WarehouseID: a.WarehouseID, Quantity: left}
		}
	}
	return out[n:]
}

// backWhereAllocated is where refunding n more units of a line not shipped
// yet puts them back: per warehouse, what it had to ship before less what
// it has after.
func backWhereAllocated(it OrderItem, n int) []Allocation {
	after := it
	after.Refunded += n
	kept := map[string]int{}
	for _, a := range after.ToShip() {
		kept[a.WarehouseID] += a.Quantity
	}
	var back []Allocation
	for _, a := range it.ToShip() {
		d := a.Quantity - kept[a.WarehouseID]
		kept[a.WarehouseID] = max(-d, 0)
		if d > 0 {
			back = append(back, Allocation{WarehouseID: a.WarehouseID, Quantity: d})
		}
	}
	return back
}
