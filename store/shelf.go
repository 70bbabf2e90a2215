package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
)

// The storefront's sorted lists. The catalogue is small (see
// docs/catalogue.md: tens of thousands of products fit in each replica),
// so the shop window keeps the whole of it, read by name from GSI2 once a
// minute, and cuts each category's list in each order from that copy in
// memory: any order and any page of it costs no DynamoDB request once
// warm, and no order needs an index of its own. The lists are kept per
// category and order (a handful of keys, each a slice of products the copy
// already holds), so a view only slices.

// CatalogueOrder is an order the storefront lists products in.
type CatalogueOrder string

// The orders a shopper can pick; ByName is the catalogue's own order and
// the default.
const (
	ByName      CatalogueOrder = "name"
	ByPrice     CatalogueOrder = "price"      // cheapest first
	ByPriceDesc CatalogueOrder = "price-desc" // dearest first
	ByNewest    CatalogueOrder = "newest"     // newest first
)

// CatalogueOrders are the orders, as the sort control offers them.
var CatalogueOrders = []CatalogueOrder{ByName, ByPrice, ByPriceDesc, ByNewest}

// ParseCatalogueOrder reads an order as a URL spells it; "" is ByName.
func ParseCatalogueOrder(s string) (CatalogueOrder, bool) {
	if s == "" {
		return ByName, true
	}
	o := CatalogueOrder(s)
	return o, slices.Contains(CatalogueOrders, o)
}

// Shelf is a run of products of a sorted list and how many the list holds.
type Shelf struct {
	Products []Product
	Total    int
}

// Shelf is the products of a category (or, category "", of the whole
// catalogue) in order, from the from-th (0 first) for at most limit, and
// how many the list holds; at most a minute old.
func (w *Window) Shelf(ctx context.Context, category string, order CatalogueOrder, from, limit int) (Shelf, error) {
	key := "shelf\x00" + category + "\x00" + string(order)
	list, err := windowGet(ctx, w, key, windowListTTL, &w.lists, func(ctx context.Context) ([]Product, error) {
		all, err := w.allProducts(ctx)
		if err != nil {
			return nil, err
		}
		return sortedShelf(all, category, order), nil
	})
	if err != nil {
		return Shelf{}, err
	}
	from = min(max(from, 0), len(list))
	end := min(from+max(limit, 0), len(list))
	return Shelf{Products: slices.Clone(list[from:end]), Total: len(list)}, nil
}

// allProducts is the whole catalogue by name, at most a minute old: what
// the shelves are cut from and the search index is built from.
func (w *Window) allProducts(ctx context.Context) ([]Product, error) {
	return windowGet(ctx, w, "all-products", windowListTTL, &w.lists, w.s.AllProducts)
}

// CatalogueProducts is the whole catalogue by name, at most a minute old:
// what staff pick a product from to filter by (the list is the caller's).
func (w *Window) CatalogueProducts(ctx context.Context) ([]Product, error) {
	all, err := w.allProducts(ctx)
	return slices.Clone(all), err
}

// CatalogueProduct is a product from the whole catalogue's copy, at most
// a minute old: what a drop's page and card show of the product a ticket
// buys, with no read of its own once the catalogue is warm. ErrNotFound
// when the catalogue has no such product.
func (w *Window) CatalogueProduct(ctx context.Context, id string) (Product, error) {
	byID, err := windowGet(ctx, w, "products-by-id", windowListTTL, &w.lists, func(ctx context.Context) (map[string]Product, error) {
		all, err := w.allProducts(ctx)
		m := make(map[string]Product, len(all))
		for _, p := range all {
			m[p.ID] = p
		}
		return m, err
	})
	if err != nil {
		return Product{}, err
	}
	p, ok := byID[id]
	if !ok {
		return Product{}, fmt.Errorf("product %s: %w", id, ErrNotFound)
	}
	return p, nil
}

// sortedShelf is a new list of the products of category ("" all) in
// order. all is by name; a stable sort keeps that order among equals.
func sortedShelf(all []Product, category string, order CatalogueOrder) []Product {
	list := make([]Product, 0, len(all))
	for _, p := range all {
		if category == "" || p.Category == category {
			list = append(list, p)
		}
	}
	if order != ByName {
		slices.SortStableFunc(list, productOrder(order)) // ties keep the catalogue's order, by name
	}
	return list
}

// productOrder compares two products in order; by name (the catalogue's
// own order) and by relevance (a search's) it has no say: 0.
func productOrder(order CatalogueOrder) func(a, b Product) int {
	switch order {
	case ByPrice:
		return func(a, b Product) int { return cmp.Compare(a.Price.Amount, b.Price.Amount) }
	case ByPriceDesc:
		return func(a, b Product) int { return cmp.Compare(b.Price.Amount, a.Price.Amount) }
	case ByNewest:
		return func(a, b Product) int { return b.CreatedAt.Compare(a.CreatedAt) }
	}
	return func(Product, Product) int { return 0 }
}
