package handlers

import (
	"context"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/web/paths"
)

// CatalogueStore is what the catalogue pages read.
type CatalogueStore interface {
	Categories(ctx context.Context) ([]store.Category, error)
	Catalogue(ctx context.Context, category string, limit int, cursor string) (store.Page[store.Product], error)
	ProductWithStock(ctx context.Context, id string) (store.Product, []store.StockLevel, error)
	// For the subscribe form of a subscribable product.
	subscribeFormStore
}

// cataloguePageSize fills four rows of three cards.
const cataloguePageSize = 12

// Catalogue serves the product list and product pages.
type Catalogue struct {
	Store CatalogueStore

	// Categories change rarely and are on every catalogue page: keep them a
	// minute rather than read them on every view.
	mu         sync.RWMutex
	categories []store.Category
	fetched    time.Time
}

func (h *Catalogue) allCategories(ctx context.Context) ([]store.Category, error) {
	h.mu.RLock()
	cats, fresh := h.categories, time.Since(h.fetched) < time.Minute
	h.mu.RUnlock()
	if cats != nil && fresh {
		return cats, nil
	}
	// Read without the lock held: a slow read must not stall every page.
	cats, err := h.Store.Categories(ctx)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.categories, h.fetched = cats, time.Now()
	h.mu.Unlock()
	return cats, nil
}

// List is /products (and the home page): one category or all, a page at a
// time; htmx asks for the next page's cards only.
func (h *Catalogue) List(c *fiber.Ctx) error {
	slug, cursor := c.Query("category"), c.Query("after")
	if slug != "" && !store.ValidID(slug) {
		return page.NotFound("That category")
	}
	cats, err := h.allCategories(c.UserContext())
	if err != nil {
		return err
	}
	var current store.Category
	if slug != "" {
		for _, cat := range cats {
			if cat.Slug == slug {
				current = cat
			}
		}
		if current.Slug == "" {
			return page.NotFound("That category")
		}
	}
	products, err := h.Store.Catalogue(c.UserContext(), slug, cataloguePageSize, cursor)
	if err != nil {
		return err
	}
	data := views.CataloguePage{Categories: cats, Category: current, Products: products.Items}
	data.NextURL = paths.More(paths.Catalogue, products.Next, "category", slug)
	title := "Catalogue"
	if current.Name != "" {
		title = current.Name
	}
	return page.List(c, title, views.CatalogueView, views.ProductCards, data)
}

func (h *Catalogue) product(c *fiber.Ctx) (views.ProductPage, error) {
	id, err := pathID(c, "id", "That product")
	if err != nil {
		return views.ProductPage{}, err
	}
	p, stock, err := h.Store.ProductWithStock(c.UserContext(), id)
	if err != nil {
		return views.ProductPage{}, notFoundAs(err, "That product")
	}
	data := views.ProductPage{Product: p, Stock: views.StockPanel{ProductID: p.ID, Levels: stock}}
	data.Add = views.AddToCart{ProductID: p.ID, Quantity: "1", Available: data.Stock.Total()}
	if cats, err := h.allCategories(c.UserContext()); err == nil {
		for _, cat := range cats {
			if cat.Slug == p.Category {
				data.Category = cat
			}
		}
	} else {
		return views.ProductPage{}, err
	}
	return data, nil
}

// Show is a product's page with its stock across warehouses.
func (h *Catalogue) Show(c *fiber.Ctx) error {
	data, err := h.product(c)
	if err != nil {
		return err
	}
	data.Add.CSRF = page.CSRFToken(c)
	if data.Subscribe, err = subscribeForm(c.UserContext(), h.Store, page.Viewer(c), data.Product, data.Add.CSRF); err != nil {
		return err
	}
	return page.Render(c, fiber.StatusOK, page.View{Title: data.Product.Name, Page: page.Full(views.ProductView, data)})
}

// Stock is the product page's stock panel alone, for its htmx refresh (and
// the full page without JavaScript).
func (h *Catalogue) Stock(c *fiber.Ctx) error {
	data, err := h.product(c)
	if err != nil {
		return err
	}
	if !page.IsHTMX(c) {
		data.Add.CSRF = page.CSRFToken(c)
		if data.Subscribe, err = subscribeForm(c.UserContext(), h.Store, page.Viewer(c), data.Product, data.Add.CSRF); err != nil {
			return err
		}
	}
	return page.Render(c, fiber.StatusOK, page.View{Title: data.Product.Name, Page: page.Full(views.ProductView, data), Partial: views.StockCounter(data.Stock)})
}
