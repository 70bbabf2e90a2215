package handlers

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/web/paths"
)

// CatalogueWindow is what the catalogue pages show, read through the
// store's shop window (a second for stock, a minute for lists).
type CatalogueWindow interface {
	Categories(ctx context.Context) ([]store.Category, error)
	Catalogue(ctx context.Context, category string, limit int, cursor string) (store.Page[store.Product], error)
	ProductWithStock(ctx context.Context, id string) (store.Product, []store.StockLevel, error)
}

// cataloguePageSize fills four rows of three cards.
const cataloguePageSize = 12

// Catalogue serves the product list and product pages.
type Catalogue struct {
	Window CatalogueWindow
	// Store answers what is personal: the subscribe form of a subscribable
	// product.
	Store subscribeFormStore
}

// List is /products (and the home page): one category or all, a page at a
// time; htmx asks for the next page's cards only.
func (h *Catalogue) List(c *fiber.Ctx) error {
	slug, cursor := c.Query("category"), c.Query("after")
	if slug != "" && !store.ValidID(slug) {
		return page.NotFound("That category")
	}
	cats, err := h.Window.Categories(c.UserContext())
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
	products, err := h.Window.Catalogue(c.UserContext(), slug, cataloguePageSize, cursor)
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
	p, stock, err := h.Window.ProductWithStock(c.UserContext(), id)
	if err != nil {
		return views.ProductPage{}, notFoundAs(err, "That product")
	}
	data := views.ProductPage{Product: p, Stock: views.StockPanel{ProductID: p.ID, Levels: stock}}
	data.Add = views.AddToCart{ProductID: p.ID, Quantity: "1", Available: data.Stock.Total()}
	if cats, err := h.Window.Categories(c.UserContext()); err == nil {
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
	return page.Render(c, fiber.StatusOK, page.View{Title: data.Product.Name, Description: data.Product.Description, Page: page.Full(views.ProductView, data)})
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
	return page.Render(c, fiber.StatusOK, page.View{Title: data.Product.Name, Description: data.Product.Description, Page: page.Full(views.ProductView, data), Partial: views.StockCounter(data.Stock)})
}
