package handlers

import (
	"context"
	"strconv"

	"github.com/a-h/templ"
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
	Shelf(ctx context.Context, category string, order store.CatalogueOrder, from, limit int) (store.Shelf, error)
	// ProductOnSale is the product, its stock and its scheduled price
	// change (the subscribe form's preview; nil when none), in one read.
	ProductOnSale(ctx context.Context, id string) (store.Product, []store.StockLevel, *store.PriceChange, error)
	// ShippingZones price the subscribe form's delivery (a minute old).
	ShippingZones(ctx context.Context) ([]store.ShippingZone, error)
}

const (
	// cataloguePageSize fills four rows of three cards.
	cataloguePageSize = 12
	// maxCataloguePage bounds a page number from the URL (a page past the
	// list's end shows it whole) so that it sizes nothing.
	maxCataloguePage = 1 << 20
)

// Catalogue serves the product list and product pages.
type Catalogue struct {
	Window CatalogueWindow
	// Store answers what is personal: the subscribe form of a subscribable
	// product.
	Store subscribeFormStore
	// CardProvider is the card provider new cards are typed at ("": the
	// old gateway's card form on the page).
	CardProvider string
	// Facts keeps the subscribe form's reads a moment (nil: read each view).
	Facts *SubscribeFacts
}

// List is /products (and the home page): one category or all, in the
// order asked for (?sort=, by name when none), its first ?page= pages.
// htmx asks for the next page's cards alone ("show more"), or for the whole
// list in a new order (the sort control, which targets #catalogue-list).
// A sort or page that is no such thing is a 400; a page past the end shows
// the whole list.
func (h *Catalogue) List(c *fiber.Ctx) error {
	slug := c.Query("category")
	if slug != "" && !store.ValidID(slug) {
		return page.NotFound("error.not_found.category")
	}
	order, ok := store.ParseCatalogueOrder(c.Query("sort"))
	if !ok {
		return page.BadRequest("catalogue.bad_sort")
	}
	pageNo := 1
	if s := c.Query("page"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return page.BadRequest("catalogue.bad_page")
		}
		pageNo = min(n, maxCataloguePage)
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
			return page.NotFound("error.not_found.category")
		}
	}
	c.Vary("HX-Target")
	title := page.T(c, "catalogue.title")
	if current.Name != "" {
		title = views.CategoryName(c.UserContext(), current)
	}
	shelf := shelfAsked{slug: slug, order: order, page: pageNo, cats: cats, current: current}
	if !page.IsHTMX(c) {
		// The list is the page's kept main part: its shelf is read only
		// when the part is not kept.
		main, err := views.KeptOr(c.UserContext(), views.CatalogueMainPart, func() (templ.Component, error) {
			data, err := h.shelf(c.UserContext(), shelf, false)
			return views.CatalogueMain(data), err
		})
		if err != nil {
			return err
		}
		return page.Render(c, fiber.StatusOK, page.View{Title: title, Page: page.Full(views.CatalogueKeptView, main)})
	}
	more := c.Get("HX-Target") != "catalogue-list"
	data, err := h.shelf(c.UserContext(), shelf, more)
	if err != nil {
		return err
	}
	view := page.View{Title: title, Page: page.Full(views.CatalogueView, data), Partial: views.CatalogueList(data)}
	if more {
		view.Partial = views.CatalogueMore(data)
	}
	// The address bar shows the list the way links spell it.
	c.Set("HX-Push-Url", paths.CatalogueList(slug, string(order), data.Page))
	return page.Render(c, fiber.StatusOK, view)
}

// shelfAsked is the list a catalogue address asks for.
type shelfAsked struct {
	slug    string
	order   store.CatalogueOrder
	page    int
	cats    []store.Category
	current store.Category
}

// shelf is the asked list's products up to its page (only that page's for
// more, htmx's next page below the list), from the shop window.
func (h *Catalogue) shelf(ctx context.Context, a shelfAsked, more bool) (views.CataloguePage, error) {
	from, first := 0, 1
	if more {
		from, first = (a.page-1)*cataloguePageSize, a.page
	}
	shelf, err := h.Window.Shelf(ctx, a.slug, a.order, from, a.page*cataloguePageSize-from)
	if err != nil {
		return views.CataloguePage{}, err
	}
	pages := max(1, (shelf.Total+cataloguePageSize-1)/cataloguePageSize)
	return views.CataloguePage{
		Categories: a.cats, Category: a.current, Order: a.order, Products: productsIn(ctx, shelf.Products),
		PerPage: cataloguePageSize, FirstPage: first, Page: min(a.page, pages), Total: shelf.Total,
	}, nil
}

// product is the product's page but its forms' CSRF token and subscribe
// form, and its scheduled price change (nil when none) for that form.
func (h *Catalogue) product(c *fiber.Ctx) (views.ProductPage, *store.PriceChange, error) {
	id, err := pathID(c, "id", "error.not_found.product")
	if err != nil {
		return views.ProductPage{}, nil, err
	}
	p, stock, change, err := h.Window.ProductOnSale(c.UserContext(), id)
	if err != nil {
		return views.ProductPage{}, nil, notFoundAs(err, "error.not_found.product")
	}
	p = productIn(c.UserContext(), p)
	data := views.ProductPage{Product: p, Stock: views.StockPanel{ProductID: p.ID, Levels: stock}}
	data.Add = views.AddToCart{ProductID: p.ID, Quantity: "1", Available: data.Stock.Total()}
	if cats, err := h.Window.Categories(c.UserContext()); err == nil {
		for _, cat := range cats {
			if cat.Slug == p.Category {
				data.Category = cat
			}
		}
	} else {
		return views.ProductPage{}, nil, err
	}
	return data, change, nil
}

// Show is a product's page with its stock across warehouses.
func (h *Catalogue) Show(c *fiber.Ctx) error {
	data, change, err := h.product(c)
	if err != nil {
		return err
	}
	data.Add.CSRF = page.CSRFToken(c)
	if err := h.subscribeForm(c, &data, change); err != nil {
		return err
	}
	return page.Render(c, fiber.StatusOK, page.View{Title: data.Product.Name, Description: data.Product.Description, Page: page.Full(views.ProductView, &data)})
}

// subscribeForm puts the product's subscribe form on its page, its preview
// quoting the product's scheduled price change from the window's read of
// the page.
func (h *Catalogue) subscribeForm(c *fiber.Ctx, data *views.ProductPage, change *store.PriceChange) error {
	v := page.Viewer(c)
	st := h.Facts.For(h.Store, v.ID, page.VisitOf(c).Saved)
	f, err := subscribeForm(c.UserContext(), st, h.Window, v, data.Product, data.Add.CSRF, len(data.Stock.Levels) > 0, change, h.CardProvider)
	data.Subscribe = f
	return err
}

// Stock is the product page's stock panel alone, for its htmx refresh (and
// the full page without JavaScript).
func (h *Catalogue) Stock(c *fiber.Ctx) error {
	data, change, err := h.product(c)
	if err != nil {
		return err
	}
	if !page.IsHTMX(c) {
		data.Add.CSRF = page.CSRFToken(c)
		if err := h.subscribeForm(c, &data, change); err != nil {
			return err
		}
	}
	return page.Render(c, fiber.StatusOK, page.View{Title: data.Product.Name, Description: data.Product.Description, Page: page.Full(views.ProductView, &data), Partial: views.StockCounter(data.Stock)})
}
