package handlers

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
)

// SearchWindow finds products in the shop window's index (no table read
// once it is warm).
type SearchWindow interface {
	SearchSorted(ctx context.Context, q string, order store.CatalogueOrder, limit int) (store.SearchResult, error)
}

const (
	searchResults  = 24
	searchMaxRunes = 100
)

// Search serves /search: a page of results, or (htmx, as the person types)
// the results alone.
type Search struct {
	Window SearchWindow
}

// Show searches for ?q=.
func (h *Search) Show(c *fiber.Ctx) error {
	q := strings.TrimSpace(c.Query("q"))
	order, ok := store.ParseSearchOrder(c.Query("sort"))
	if !ok {
		return page.BadRequest("search.bad_sort")
	}
	data := views.SearchPage{Query: q, Typed: page.IsHTMX(c), Order: order}
	switch {
	case !utf8.ValidString(q) || utf8.RuneCountInString(q) > searchMaxRunes:
		data.Problem = page.T(c, "search.problem")
	case q != "":
		r, err := h.Window.SearchSorted(c.UserContext(), q, order, searchResults)
		if err != nil {
			return err
		}
		data.Products, data.Total = productsIn(c.UserContext(), r.Products), r.Total
	}
	title := page.T(c, "search.title")
	if q != "" && data.Problem == "" {
		title = page.T(c, "search.title.query", "Query", q)
	}
	return page.List(c, title, views.SearchView, views.SearchResults, data)
}
