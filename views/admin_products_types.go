package views

import (
	"shop/store"
	"shop/views/lang"
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
	// TrialDays is the free trial subscribers get, in days (0-90; blank: none).
	TrialDays  string
	Categories []store.Category
	// Texts are the name and description in the shop's other languages,
	// one per language, empty where staff gave none.
	Texts  []AdminProductText
	Errors FieldErrors
	CSRF   string
}

// AdminProductText is a product's name and description in one of the
// shop's other languages, as the form shows them.
type AdminProductText struct {
	Lang              lang.Lang
	Name, Description string
}

// NameField and DescriptionField are the form's names of its fields.
func (t AdminProductText) NameField() string        { return "name_" + string(t.Lang) }
func (t AdminProductText) DescriptionField() string { return "description_" + string(t.Lang) }

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
	Product  store.Product
	Form     AdminProductForm
	Photo    AdminPhotoForm
	Stock    []AdminStockRow
	LowStock AdminLowStockForm
	Orders   AdminProductOrders
}

// AdminLowStockForm sets the level under which a product's stock in a
// warehouse shows as low.
type AdminLowStockForm struct {
	ProductID string
	At        string
	Stocked   bool // some warehouse holds it: the threshold lives on its stock
	Errors    FieldErrors
	CSRF      string
}

// AdminPhotoForm is a product's picture on its staff page and the form
// that uploads a new photo.
type AdminPhotoForm struct {
	ProductID string
	CSRF      string
	Picture   Picture
	// HasPhoto is false while the shop's drawn picture stands in.
	HasPhoto bool
	Error    string // why the last upload was refused
}

// hasTexts says whether the form shows a text in another language or an
// error at one: its section then starts open.
func (f AdminProductForm) hasTexts() bool {
	for _, t := range f.Texts {
		if t.Name != "" || t.Description != "" || f.Errors[t.NameField()] != "" || f.Errors[t.DescriptionField()] != "" {
			return true
		}
	}
	return false
}
