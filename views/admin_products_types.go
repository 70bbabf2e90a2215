package views

import (
	"shop/store"
)

// AdminProductList is a page of the catalogue for staff.
type AdminProductList struct {
	Products   []store.Product
	Categories []store.Category
	Category   string // the filter, "" for all
	NextURL    string
	// Query finds products by name (the shop window's search index); Found
	// is how many matched in every category.
	Query string
	Found int
}

// AdminProductForm is the new or edit product form as typed.
type AdminProductForm struct {
	ID          string // "" for a new product
	Name        string
	Description string
	Category    string
	Price       string
	Currency    string
	// Subscribable offers the product by subscription at MonthlyPrice.
	Subscribable bool
	MonthlyPrice string
	Categories   []store.Category
	Errors       FieldErrors
	CSRF         string
}

// AdminProductOrders is the orders-of-a-product section: its date filter
// and a page of order lines, newest first.
type AdminProductOrders struct {
	ProductID string
	Filter    AdminDateFilter
	Items     []store.OrderItem
	NextURL   string
}

// AdminProductPage is a product's staff page: the edit form, its stock in
// every warehouse and its orders.
type AdminProductPage struct {
	Product store.Product
	Form    AdminProductForm
	Stock   []AdminStockRow
	Orders  AdminProductOrders
}
