// Package views holds the templ layouts, shared components, pages and the
// partials htmx swaps, with the typed data each one takes.
package views

import (
	"shop/store"
)

// CataloguePage is the product list of one category (or all).
type CataloguePage struct {
	Categories []store.Category
	Category   store.Category // zero: all products
	Products   []store.Product
	NextURL    string // "" on the last page
}

// ProductPage is one product with its stock.
type ProductPage struct {
	Product  store.Product
	Category store.Category
	Stock    StockPanel
	Add      AddToCart
	// Subscribe is the subscribe form of a subscribable product, nil for
	// any other.
	Subscribe *SubscribeForm
}

// StockPanel is the live stock counter of a product page.
type StockPanel struct {
	ProductID string
	Levels    []store.StockLevel
}
