package handlers

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/sync/errgroup"

	"shop/handlers/page"
	"shop/store"
	"shop/store/photos"
	"shop/store/rules"
	"shop/views"
	"shop/web/paths"
)

// AdminProductStore is what the staff product pages read and write.
type AdminProductStore interface {
	// Currency is the ISO 4217 code the shop prices in.
	Currency() string
	// Now is the shop's clock (the store's, set in tests).
	Now() time.Time
	Location() *time.Location // the shop's time zone: date filters pick its days
	Categories(ctx context.Context) ([]store.Category, error)
	Catalogue(ctx context.Context, category string, limit int, cursor string) (store.Page[store.Product], error)
	ProductWithStock(ctx context.Context, id string) (store.Product, []store.StockLevel, error)
	Warehouses(ctx context.Context) ([]store.Warehouse, error)
	CreateProduct(ctx context.Context, p store.Product) (store.Product, error)
	UpdateProduct(ctx context.Context, p store.Product) error
	ProductOrders(ctx context.Context, productID string, from, to time.Time, limit int, cursor string) (store.Page[store.OrderItem], error)
	SetLowStockAt(ctx context.Context, productID string, at int) error
	SetProductPhoto(ctx context.Context, productID string, photo store.Photo) error
}

const (
	maxProductNameRunes = 100
	maxDescriptionRunes = 2000
)

// ProductFinder finds products by name: the shop window's search index,
// which reads nothing from the table once warm (a product added on
// another replica shows within a minute).
type ProductFinder interface {
	Search(ctx context.Context, q string, limit int) (store.SearchResult, error)
}

// adminProductsFound is how many products a search by name lists.
const adminProductsFound = 50

// AdminProducts serves /admin/products.
type AdminProducts struct {
	Store AdminProductStore
	// Shelf keeps the products' photos and their copies.
	Shelf  photos.Shelf
	Finder ProductFinder
}

// List is the catalogue by name, of one category or all, a page at a time;
// htmx asks for the next page's rows only.
func (h *AdminProducts) List(c *fiber.Ctx) error {
	slug, cursor := c.Query("category"), c.Query("after")
	if slug != "" && !store.ValidID(slug) {
		return page.NotFound("error.not_found.category")
	}
	var (
		cats     []store.Category
		products store.Page[store.Product]
	)
	g, ctx := errgroup.WithContext(c.UserContext())
	g.Go(func() (err error) { cats, err = h.Store.Categories(ctx); return err })
	q := strings.TrimSpace(c.Query("q"))
	if utf8.RuneCountInString(q) > maxProductNameRunes {
		q = string([]rune(q)[:maxProductNameRunes])
	}
	var found store.SearchResult
	if q != "" {
		g.Go(func() (err error) { found, err = h.Finder.Search(ctx, q, adminProductsFound); return err })
	} else {
		g.Go(func() (err error) { products, err = h.Store.Catalogue(ctx, slug, adminPageSize, cursor); return err })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	data := views.AdminProductList{Products: products.Items, Categories: cats, Category: slug, Query: q}
	if q != "" {
		// The index holds every category: keep the one asked for.
		data.Products, data.Found = nil, found.Total
		for _, p := range found.Products {
			if slug == "" || p.Category == slug {
				data.Products = append(data.Products, p)
			}
		}
	}
	data.NextURL = paths.More(paths.AdminProducts, products.Next, "category", slug)
	return page.List(c, page.T(c, "admin.products.title"), views.AdminProductsView, views.AdminProductRows, data)
}

// New shows the empty new product form.
func (h *AdminProducts) New(c *fiber.Ctx) error {
	cats, err := h.Store.Categories(c.UserContext())
	if err != nil {
		return err
	}
	f := views.AdminProductForm{Currency: h.Store.Currency(), Categories: cats, CSRF: page.CSRFToken(c), Texts: productTextsForm(store.Product{})}
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "admin.products.new"), Page: page.Full(views.AdminNewProductView, f)})
}

// productFromForm reads and checks the product form into p; the form keeps
// what was typed and a message per field.
func productFromForm(c *fiber.Ctx, f *views.AdminProductForm, p *store.Product) {
	f.Errors = views.FieldErrors{}
	f.Name = formTextIn(c.UserContext(), f.Errors, "name", page.Field(c, "name"), oneLine)
	f.Description = formTextIn(c.UserContext(), f.Errors, "description", page.Field(c, "description"), multiLine)
	f.Category = page.Field(c, "category")
	f.Price = strings.TrimSpace(page.Field(c, "price"))
	f.Subscribable = page.Field(c, "subscribable") != ""
	f.MonthlyPrice = strings.TrimSpace(page.Field(c, "monthly_price"))
	f.TrialDays = strings.TrimSpace(page.Field(c, "trial_days"))
	switch n := utf8.RuneCountInString(f.Name); {
	case f.Errors.Has("name"):
	case n == 0:
		f.Errors["name"] = page.T(c, "admin.products.err.name")
	case n > maxProductNameRunes:
		f.Errors["name"] = page.T(c, "admin.products.err.name_long")
	}
	if utf8.RuneCountInString(f.Description) > maxDescriptionRunes && !f.Errors.Has("description") {
		f.Errors["description"] = page.T(c, "admin.products.err.description_long")
	}
	known := false
	for _, cat := range f.Categories {
		known = known || cat.Slug == f.Category
	}
	switch {
	case f.Category == "":
		f.Errors["category"] = page.T(c, "admin.products.err.category")
	case !known:
		f.Errors["category"] = page.T(c, "admin.products.err.category_unknown")
	}
	price, err := rules.ParseMoney(f.Price, f.Currency)
	switch {
	case f.Price == "":
		f.Errors["price"] = page.T(c, "admin.products.err.price")
	case err != nil:
		f.Errors["price"] = page.T(c, "admin.products.err.price_format", "Currency", f.Currency)
	case price.Amount == 0:
		f.Errors["price"] = page.T(c, "admin.products.err.price_zero")
	}
	// A monthly price is needed only to offer subscriptions; unticked, what
	// was typed is kept in the form but not saved.
	monthly := store.Money{Currency: f.Currency}
	if f.Subscribable {
		m, err := rules.ParseMoney(f.MonthlyPrice, f.Currency)
		switch {
		case f.MonthlyPrice == "":
			f.Errors["monthly_price"] = page.T(c, "admin.products.err.monthly")
		case err != nil:
			f.Errors["monthly_price"] = page.T(c, "admin.products.err.monthly_format", "Currency", f.Currency)
		case m.Amount == 0:
			f.Errors["monthly_price"] = page.T(c, "admin.products.err.monthly_zero")
		default:
			monthly = m
		}
	}
	p.Name, p.Description, p.Category, p.Price = f.Name, f.Description, f.Category, price
	p.Subscribable, p.MonthlyPrice = f.Subscribable, monthly
	p.TrialDays = trialDaysFromForm(c, f)
	productTextsFromForm(c, f, p)
}

// Create adds a product; on bad input the form comes back with a message at
// each field and a 422, and nothing is written.
func (h *AdminProducts) Create(c *fiber.Ctx) error {
	cats, err := h.Store.Categories(c.UserContext())
	if err != nil {
		return err
	}
	f := views.AdminProductForm{Currency: h.Store.Currency(), Categories: cats}
	var p store.Product
	productFromForm(c, &f, &p)
	if !f.Errors.Any() {
		created, err := h.Store.CreateProduct(c.UserContext(), p)
		switch {
		case errors.Is(err, store.ErrConflict):
			f.Errors[""] = "A product with this id exists already. Try again."
		case err != nil:
			return err
		default:
			page.Flash(c, views.FlashSuccess, page.T(c, "admin.products.created", "Name", created.Name))
			return page.Redirect(c, paths.AdminProduct(created.ID))
		}
	}
	f.CSRF = page.CSRFToken(c)
	return page.Render(c, fiber.StatusUnprocessableEntity, page.View{Title: page.T(c, "admin.products.new"), Page: page.Full(views.AdminNewProductView, f), Partial: views.AdminProductFormView(f)})
}

// productPage reads everything a product's staff page shows. The orders
// section follows the from/to query; a bad range is shown at the filter.
func (h *AdminProducts) productPage(c *fiber.Ctx, id string) (views.AdminProductPage, error) {
	ctx := c.UserContext()
	rng, rerr := parseDateRange(c.Query("from"), c.Query("to"), h.Store.Now(), h.Store.Location())
	orders := views.AdminProductOrders{ProductID: id, Filter: views.AdminDateFilter{
		Action: paths.AdminProduct(id), Target: "product-orders", From: c.Query("from"), To: c.Query("to"),
	}}
	var (
		p     store.Product
		stock []store.StockLevel
		cats  []store.Category
		ws    []store.Warehouse
		lines store.Page[store.OrderItem]
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		p, stock, err = h.Store.ProductWithStock(gctx, id)
		return notFoundAs(err, "error.not_found.product")
	})
	g.Go(func() (err error) { cats, err = h.Store.Categories(gctx); return err })
	g.Go(func() (err error) { ws, err = h.Store.Warehouses(gctx); return err })
	if rerr == nil {
		g.Go(func() (err error) {
			lines, err = h.Store.ProductOrders(gctx, id, rng.Start, rng.End, adminPageSize, c.Query("orders_after"))
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return views.AdminProductPage{}, err
	}
	if rerr != nil {
		orders.Filter.Errors = rerr.FieldErrors(c)
	} else {
		orders.Filter.From, orders.Filter.To = rng.From, rng.To
		orders.Items = lines.Items
		if lines.Next != "" {
			orders.NextURL = paths.WithQuery(paths.AdminProduct(id), "from", rng.From, "to", rng.To, "orders_after", lines.Next)
		}
	}
	csrf := page.CSRFToken(c)
	data := views.AdminProductPage{
		Product: p,
		Form: views.AdminProductForm{
			ID: p.ID, Name: p.Name, Description: p.Description, Category: p.Category,
			Price: p.Price.Decimal(), Currency: p.Price.Currency, Categories: cats, CSRF: csrf,
			Subscribable: p.Subscribable, MonthlyPrice: monthlyPriceField(p), TrialDays: trialDaysField(p), Texts: productTextsForm(p),
		},
		Photo: views.AdminPhotoForm{
			ProductID: p.ID, CSRF: csrf, Picture: views.ProductPicture(p), HasPhoto: p.Photo.Key != "",
		},
		Orders: orders,
	}
	// Every warehouse, those that never held the product too: stock can be
	// added anywhere.
	for _, w := range ws {
		row := views.AdminStockRow{On: views.StockOnProduct, CSRF: csrf, Level: store.StockLevel{
			ProductID: p.ID, ProductName: p.Name, WarehouseID: w.ID, WarehouseName: w.Name, City: w.Address.City,
		}}
		for _, l := range stock {
			if l.WarehouseID == w.ID {
				row.Level, row.Stocked = l, true
			}
		}
		data.Stock = append(data.Stock, row)
	}
	data.LowStock = views.AdminLowStockForm{ProductID: p.ID, CSRF: csrf, Stocked: len(stock) > 0, Errors: views.FieldErrors{},
		At: strconv.Itoa(store.DefaultLowStockAt)}
	if len(stock) > 0 {
		data.LowStock.At = strconv.Itoa(stock[0].LowStockAt())
	}
	return data, nil
}

// LowStock sets the level under which the product's stock shows as low on
// the console's home.
func (h *AdminProducts) LowStock(c *fiber.Ctx) error {
	id, err := pathID(c, "id", "error.not_found.product")
	if err != nil {
		return err
	}
	typed := strings.TrimSpace(page.Field(c, "low_stock_at"))
	at, err := strconv.Atoi(typed)
	if err == nil {
		err = h.Store.SetLowStockAt(c.UserContext(), id, at)
	}
	var msg string
	switch {
	case err == nil:
		page.Flash(c, views.FlashSuccess, page.T(c, "admin.products.low_saved", "At", at))
		return page.Redirect(c, paths.AdminProduct(id)+"#stock")
	case errors.Is(err, store.ErrNotFound):
		msg = page.T(c, "admin.products.err.low_unstocked")
	case errors.Is(err, store.ErrBadLowStockAt), errors.Is(err, strconv.ErrSyntax), errors.Is(err, strconv.ErrRange):
		msg = page.T(c, "admin.products.err.low_number")
	default:
		return err
	}
	data, err := h.productPage(c, id)
	if err != nil {
		return err
	}
	data.LowStock.At, data.LowStock.Errors["low_stock_at"] = typed, msg
	return page.Render(c, fiber.StatusUnprocessableEntity, page.View{Title: data.Product.Name, Page: page.Full(views.AdminProductView, data),
		Partial: views.AdminLowStockFormView(data.LowStock)})
}

// Show is a product's staff page. htmx asks for the orders section (the
// date filter) or the next page of its rows.
func (h *AdminProducts) Show(c *fiber.Ctx) error {
	id, err := pathID(c, "id", "error.not_found.product")
	if err != nil {
		return err
	}
	data, err := h.productPage(c, id)
	if err != nil {
		return err
	}
	status := fiber.StatusOK
	if data.Orders.Filter.Errors.Any() {
		status = fiber.StatusUnprocessableEntity
	}
	partial := views.AdminProductOrdersSection(data.Orders)
	if c.Query("orders_after") != "" {
		partial = views.AdminProductOrderRows(data.Orders)
	}
	return page.Render(c, status, page.View{Title: data.Product.Name, Page: page.Full(views.AdminProductView, data), Partial: partial})
}

// Update saves the edit form; on bad input the form comes back with its
// messages and a 422.
func (h *AdminProducts) Update(c *fiber.Ctx) error {
	id, err := pathID(c, "id", "error.not_found.product")
	if err != nil {
		return err
	}
	var (
		old  store.Product
		cats []store.Category
	)
	g, ctx := errgroup.WithContext(c.UserContext())
	g.Go(func() (err error) {
		old, _, err = h.Store.ProductWithStock(ctx, id)
		return notFoundAs(err, "error.not_found.product")
	})
	g.Go(func() (err error) { cats, err = h.Store.Categories(ctx); return err })
	if err := g.Wait(); err != nil {
		return err
	}
	f := views.AdminProductForm{ID: id, Currency: old.Price.Currency, Categories: cats}
	p := old
	productFromForm(c, &f, &p)
	status := fiber.StatusUnprocessableEntity
	if !f.Errors.Any() {
		err := h.Store.UpdateProduct(c.UserContext(), p)
		switch {
		case errors.Is(err, store.ErrNotFound):
			return page.NotFound("error.not_found.product")
		case errors.Is(err, store.ErrConflict):
			status = fiber.StatusConflict
			f.Errors[""] = page.T(c, "admin.products.err.conflict")
		case err != nil:
			return err
		default:
			page.Flash(c, views.FlashSuccess, page.T(c, "admin.products.saved", "Name", p.Name))
			return page.Redirect(c, paths.AdminProduct(id))
		}
	}
	f.CSRF = page.CSRFToken(c)
	c.Vary("HX-Request")
	if page.IsHTMX(c) {
		return page.Write(c, status, views.AdminProductFormView(f))
	}
	data, err := h.productPage(c, id)
	if err != nil {
		return err
	}
	data.Form = f
	return page.Render(c, status, page.View{Title: old.Name, Page: page.Full(views.AdminProductView, data)})
}

// monthlyPriceField is the monthly price as the form shows it: blank for a
// product that cannot be subscribed to.
func monthlyPriceField(p store.Product) string {
	if !p.Subscribable {
		return ""
	}
	return p.MonthlyPrice.Decimal()
}
