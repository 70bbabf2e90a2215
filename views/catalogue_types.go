// Package views holds the templ layouts, shared components, pages and the
// partials htmx swaps, with the typed data each one takes.
package views

import (
	"context"
	"strconv"

	"shop/store"
	"shop/web/paths"
)

// CatalogueMainPart names the catalogue's main part among a page's kept
// parts.
const CatalogueMainPart = "catalogue"

// CataloguePage is the product list of one category (or all) in one
// order, its first Page pages of PerPage products: "show more" adds a page
// and puts its number in the address, so a reload shows the same list.
type CataloguePage struct {
	Categories []store.Category
	Category   store.Category // zero: all products
	Order      store.CatalogueOrder
	Products   []store.Product
	// Paging, zero where a list is not paged (search results). Products
	// start at page FirstPage: 1 on the page, the page asked for when
	// "show more" asks for one.
	PerPage, FirstPage, Page int
	Total                    int // products in the list
}

// Shown is how many products the list shows, up to its page.
func (p CataloguePage) Shown() int { return min(p.Page*p.PerPage, p.Total) }

// NextURL is the list one page longer, "" when it shows every product.
func (p CataloguePage) NextURL() string {
	if p.Shown() >= p.Total {
		return ""
	}
	return paths.CatalogueList(p.Category.Slug, string(p.Order), p.Page+1)
}

// PrevURL is the list one page shorter, "" on the first page.
func (p CataloguePage) PrevURL() string {
	if p.Page <= 1 {
		return ""
	}
	return paths.CatalogueList(p.Category.Slug, string(p.Order), p.Page-1)
}

// pageAnchor is the id of the link of the product at i of Products when
// it starts a page after the first ("page-2"), so that a link without
// JavaScript lands on the page it asked for; "" for any other.
func (p CataloguePage) pageAnchor(i int) string {
	if p.PerPage <= 0 || p.FirstPage < 1 {
		return ""
	}
	at := (p.FirstPage-1)*p.PerPage + i
	if at == 0 || at%p.PerPage != 0 {
		return ""
	}
	return "page-" + strconv.Itoa(at/p.PerPage+1)
}

// withAnchor is the URL of a list of page pages that lands on the page's
// first product.
func withAnchor(url string, page int) string {
	if page <= 1 {
		return url
	}
	return url + "#page-" + strconv.Itoa(page)
}

// orderLabel is how the sort control names an order.
func orderLabel(ctx context.Context, o store.CatalogueOrder) string {
	switch o {
	case store.ByPrice:
		return t(ctx, "catalogue.sort.price")
	case store.ByPriceDesc:
		return t(ctx, "catalogue.sort.price_desc")
	case store.ByNewest:
		return t(ctx, "catalogue.sort.newest")
	case store.ByRelevance:
		return t(ctx, "search.sort.relevance")
	}
	return t(ctx, "catalogue.sort.name")
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
