package views

import (
	"strconv"
	"time"

	"shop/store"
	"shop/web/paths"
)

// What the staff console's pages share: the date filter and the small
// formatting helpers. Each page's typed data sits in admin_<area>_types.go
// beside admin_<area>.templ. Everything is prefixed Admin/admin: the
// storefront has its own orders and invoices.

// AdminDateFilter is the from/to form of a list by day. The form swaps the
// element Target (its own section) with htmx and pushes the URL; without
// JavaScript it is a plain GET of Action.
type AdminDateFilter struct {
	Action string
	Target string
	From   string
	To     string
	Errors FieldErrors
	// Statuses, when set, offer a status to show only (Status; "" any).
	Statuses []string
	Status   string
	// Products, when set, offer the orders' filters: a product they have a
	// line of (Product, its id; "" any) and a customer's name or email
	// (Buyer, any part of either).
	Products []store.Product
	Product  string
	Buyer    string
}

// ProductName is the name of the product the orders are filtered by.
func (f AdminDateFilter) ProductName() string {
	for _, p := range f.Products {
		if p.ID == f.Product {
			return p.Name
		}
	}
	return ""
}

const (
	StockOnWarehouse AdminStockOn = "warehouse" // rows are products
	StockOnProduct   AdminStockOn = "product"   // rows are warehouses
)

// ID is the row's element id, unique on either page.
func (r AdminStockRow) ID() string { return "stock-" + r.Level.WarehouseID + "-" + r.Level.ProductID }

const (
	WarehouseTabInventory   AdminWarehouseTab = "inventory"
	WarehouseTabShipments   AdminWarehouseTab = "shipments"
	WarehouseTabAdjustments AdminWarehouseTab = "adjustments"
)

// Row is the stock row of one level of this page.
func (p AdminWarehouseInventory) Row(l store.StockLevel) AdminStockRow {
	return AdminStockRow{On: StockOnWarehouse, Level: l, Stocked: true, CSRF: p.CSRF}
}

// CategoryName is the name of a category slug, the slug if unknown.
func (p AdminProductList) CategoryName(slug string) string { return categoryName(p.Categories, slug) }

func categoryName(cats []store.Category, slug string) string {
	for _, c := range cats {
		if c.Slug == slug {
			return c.Name
		}
	}
	return slug
}

// Action is where the form posts.
func (f AdminProductForm) Action() string {
	if f.ID == "" {
		return paths.AdminProducts
	}
	return paths.AdminProduct(f.ID)
}

// StockTotal is the product's stock over every warehouse.
func (p AdminProductPage) StockTotal() int {
	n := 0
	for _, r := range p.Stock {
		n += r.Level.Quantity
	}
	return n
}

// WarehouseName is the name of a warehouse id, the id if unknown.
func (p AdminOrderPage) WarehouseName(id string) string {
	if n, ok := p.Warehouses[id]; ok {
		return n
	}
	return id
}

// CanShip says whether shipments can be created now.
func (p AdminOrderPage) CanShip() bool {
	return len(p.Details.Shipments) == 0 && p.Details.Order.Status == store.OrderPlaced
}

// AdminSubscriptionsDueTab names the "due on a day" tab beside the statuses.
const AdminSubscriptionsDueTab = "due"

// adminDate is a billing date as staff read it; "—" when unset.
func adminDate(d time.Time) string {
	if d.IsZero() {
		return "—"
	}
	return store.FormatDate(d)
}

func signed(n int) string {
	if n > 0 {
		return "+" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

func shortAddress(a store.Address) string {
	if a.City == "" {
		return a.Country
	}
	if a.Country == "" {
		return a.City
	}
	return a.City + ", " + a.Country
}
