package views

import (
	"shop/store"
)

// AdminStockOn says which page a stock row sits on.
type AdminStockOn string

// AdminStockRow is one stock level with its adjustment form: a row of the
// warehouse's inventory or of the product's stock, and what htmx swaps
// after an adjustment.
type AdminStockRow struct {
	On      AdminStockOn
	Level   store.StockLevel // ProductID and WarehouseID always set
	Stocked bool             // false: the warehouse never held the product
	Delta   string           // as typed, after an error
	Reason  string
	Errors  FieldErrors
	Saved   string // what the last adjustment did
	CSRF    string
}

// AdminStockAdjustPage shows one stock adjustment form alone: the answer to
// a form sent without JavaScript that needs correcting.
type AdminStockAdjustPage struct {
	Warehouse store.Warehouse
	Product   store.Product
	Row       AdminStockRow
	BackURL   string
}

// AdminWarehouseTab names a tab of a warehouse's pages.
type AdminWarehouseTab string

// AdminWarehouseInventory is a warehouse's inventory tab: a page of stock
// with adjustment forms and the latest adjustments.
type AdminWarehouseInventory struct {
	WarehousePage
	CSRF   string
	Recent []store.StockAdjustment
	Filter InventoryFilter
}

// InventoryFilter is how a warehouse's inventory is listed: by product
// name (the whole of it, filtered by Query), or by product id a page at a
// time.
type InventoryFilter struct {
	Query  string
	ByName bool
	Cut    bool // more levels than are sorted at once
}

// AdminWarehouseShipments is a warehouse's shipments tab, newest first.
type AdminWarehouseShipments struct {
	Warehouse store.Warehouse
	Shipments []store.Shipment
	NextURL   string
}

// AdminWarehouseAdjustments is a warehouse's stock adjustments tab.
type AdminWarehouseAdjustments struct {
	Warehouse   store.Warehouse
	Adjustments []store.StockAdjustment
	NextURL     string
}

// WarehouseList is the admin list of warehouses.
type WarehouseList struct {
	Warehouses []store.Warehouse
}

// WarehousePage is one warehouse and a page of its inventory.
type WarehousePage struct {
	Warehouse store.Warehouse
	Stock     []store.StockLevel
	NextURL   string
}
