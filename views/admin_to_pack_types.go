package views

import (
	"cmp"
	"slices"

	"shop/store"
)

// ToPackTab is the shipments page's first tab, the packing queue
// (?status=to-pack, and the page's default).
const ToPackTab = "to-pack"

// AdminToPackPage is a page of the packing queue: the orders placed and
// not packed yet, grouped by the warehouse they leave from.
type AdminToPackPage struct {
	Groups     []store.PackingGroup
	Orders     int               // orders on this page
	Warehouses map[string]string // id -> name
	NextURL    string
	CSRF       string
}

// PickSheet is what the print page holds: per warehouse, each product to
// pick with its quantity summed over the orders chosen; then one packing
// slip per order.
type PickSheet struct {
	Picks []PickWarehouse
	Slips []PackingSlipOrder
}

// PickWarehouse is one warehouse's part of the pick list.
type PickWarehouse struct {
	Warehouse store.Warehouse
	Lines     []PickTotal
}

// PickTotal is one product to pick in a warehouse, for how many orders.
type PickTotal struct {
	ProductID, ProductName string
	Quantity, Orders       int
}

// PackingSlipOrder is one order's slip: where it goes and, per warehouse
// it leaves from, what goes in the parcel.
type PackingSlipOrder struct {
	Order store.Order
	Parts []PickWarehouseLines
}

// PickWarehouseLines is what one warehouse puts in an order's parcel.
type PickWarehouseLines struct {
	Warehouse store.Warehouse
	Lines     []store.PickLine
}

// orderLines is what an order's warehouses pick: its shipments' items once
// packed, else its lines still to ship as allocated.
func orderLines(d store.OrderDetails) []store.PickLine {
	var out []store.PickLine
	if len(d.Shipments) > 0 {
		for _, sh := range d.Shipments {
			for _, it := range sh.Items {
				out = append(out, store.PickLine{WarehouseID: sh.WarehouseID, ProductID: it.ProductID, ProductName: it.ProductName, Quantity: it.Quantity})
			}
		}
	} else {
		for _, it := range d.Items {
			for _, a := range it.ToShip() {
				out = append(out, store.PickLine{WarehouseID: a.WarehouseID, ProductID: it.ProductID, ProductName: it.ProductName, Quantity: a.Quantity})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b store.PickLine) int {
		return cmp.Or(cmp.Compare(a.WarehouseID, b.WarehouseID), cmp.Compare(a.ProductName, b.ProductName))
	})
	return out
}

// NewPickSheet builds the print page of the orders chosen, in the order
// chosen; ws names the warehouses (one closed since shows its id).
func NewPickSheet(orders []store.OrderDetails, ws []store.Warehouse) PickSheet {
	byID := map[string]store.Warehouse{}
	for _, w := range ws {
		byID[w.ID] = w
	}
	warehouse := func(id string) store.Warehouse {
		if w, ok := byID[id]; ok {
			return w
		}
		return store.Warehouse{ID: id, Name: id}
	}
	var sheet PickSheet
	picks := map[string]*PickWarehouse{}
	totals := map[[2]string]*PickTotal{}
	for _, d := range orders {
		slip := PackingSlipOrder{Order: d.Order}
		for _, l := range orderLines(d) {
			if n := len(slip.Parts); n == 0 || slip.Parts[n-1].Warehouse.ID != l.WarehouseID {
				slip.Parts = append(slip.Parts, PickWarehouseLines{Warehouse: warehouse(l.WarehouseID)})
			}
			part := &slip.Parts[len(slip.Parts)-1]
			part.Lines = append(part.Lines, l)
			if picks[l.WarehouseID] == nil {
				picks[l.WarehouseID] = &PickWarehouse{Warehouse: warehouse(l.WarehouseID)}
			}
			key := [2]string{l.WarehouseID, l.ProductID}
			if totals[key] == nil {
				totals[key] = &PickTotal{ProductID: l.ProductID, ProductName: l.ProductName}
			}
			totals[key].Quantity += l.Quantity
			totals[key].Orders++
		}
		sheet.Slips = append(sheet.Slips, slip)
	}
	for key, tot := range totals {
		picks[key[0]].Lines = append(picks[key[0]].Lines, *tot)
	}
	for _, p := range picks {
		slices.SortFunc(p.Lines, func(a, b PickTotal) int {
			return cmp.Or(cmp.Compare(a.ProductName, b.ProductName), cmp.Compare(a.ProductID, b.ProductID))
		})
		sheet.Picks = append(sheet.Picks, *p)
	}
	slices.SortFunc(sheet.Picks, func(a, b PickWarehouse) int {
		return cmp.Or(cmp.Compare(a.Warehouse.Name, b.Warehouse.Name), cmp.Compare(a.Warehouse.ID, b.Warehouse.ID))
	})
	return sheet
}

// pickQuantity is one line to pick, as staff read it: "2 × Mug".
func pickQuantity(l store.PickLine) string { return itoa(l.Quantity) + " × " + l.ProductName }

// AdminToPackResult is what pressing one row's Pack did, shown in the
// row's place (htmx): the shipments made, or that someone had packed it
// already, or that it could not be packed.
type AdminToPackResult struct {
	OrderID   string
	Shipments []store.Shipment
	Already   bool
	Problem   bool
	From      string        // the warehouse whose row was pressed
	Others    []string      // the order's other warehouses on the page: their rows say the same
	Counts    []ToPackCount // the order's warehouses' counts, one less
}

// ToPackCount is how many orders a warehouse's group on the queue's page
// has still to pack.
type ToPackCount struct {
	WarehouseID string
	Left        int
}

// toPackCountID and toPackLeftField name a warehouse's count in its
// heading and the hidden field the form posts it in; toPackRowID names an
// order's row under a warehouse.
func toPackCountID(warehouseID string) string { return "to-pack-count-" + warehouseID }

func toPackLeftField(warehouseID string) string { return ToPackLeftField + warehouseID }

func toPackRowID(warehouseID, orderID string) string { return "to-pack-" + warehouseID + "-" + orderID }

// ToPackLeftField prefixes the hidden field of a warehouse's count.
const ToPackLeftField = "left-"

// shipmentName is a shipment's number, its id before numbers.
func shipmentName(sh store.Shipment) string {
	if sh.Number != "" {
		return sh.Number
	}
	return sh.ID
}
