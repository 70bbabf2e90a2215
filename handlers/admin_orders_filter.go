package handlers

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
)

// AdminOrderProducts are the products staff filter orders by: the
// catalogue's copy (store.Window), no read once it is warm.
type AdminOrderProducts interface {
	CatalogueProducts(ctx context.Context) ([]store.Product, error)
}

// maxBuyerFilter bounds the customer's name or email typed to filter by.
const maxBuyerFilter = 100

// orderFilter is what the orders list shows of a date range: of a
// status, of a customer whose name or email holds Buyer (any case), with
// a line of a product. The product picks the pages read (its order lines
// of the range, access pattern 9); the rest filter each page here.
type orderFilter struct {
	Status  store.OrderStatus
	Buyer   string // lower case
	Product string
}

func (f orderFilter) narrows() bool { return f.Status != "" || f.Buyer != "" }

func (f orderFilter) match(o store.Order) bool {
	if f.Status != "" && o.Status != f.Status {
		return false
	}
	if f.Buyer != "" && !strings.Contains(strings.ToLower(o.Buyer.Name), f.Buyer) && !strings.Contains(strings.ToLower(o.Buyer.Email), f.Buyer) {
		return false
	}
	return true
}

// parseOrderFilter reads the product and customer fields into the form and
// the filter; a product not in the catalogue or a customer's words too
// long are the form's errors (422).
func (h *AdminOrders) parseOrderFilter(c *fiber.Ctx, f *views.AdminDateFilter) (orderFilter, error) {
	products, err := h.Products.CatalogueProducts(c.UserContext())
	if err != nil {
		return orderFilter{}, err
	}
	f.Products = products
	f.Product, f.Buyer = strings.TrimSpace(c.Query("product")), strings.TrimSpace(c.Query("buyer"))
	of := orderFilter{Status: store.OrderStatus(f.Status), Buyer: strings.ToLower(f.Buyer), Product: f.Product}
	bad := func(field, msg string) {
		if f.Errors == nil {
			f.Errors = views.FieldErrors{}
		}
		f.Errors[field] = msg
	}
	if f.Product != "" && !slices.ContainsFunc(products, func(p store.Product) bool { return p.ID == f.Product }) {
		bad("product", page.T(c, "admin.orders.err.product"))
	}
	if utf8.RuneCountInString(f.Buyer) > maxBuyerFilter {
		bad("buyer", page.T(c, "admin.orders.err.buyer_long", "Max", maxBuyerFilter))
	}
	return of, nil
}

// ordersPage is a page of the range's orders to filter: all of them, or
// with a product, the orders of its lines (a line's page may name an
// order twice; OrdersOfLines reads each once).
func (h *AdminOrders) ordersPage(ctx context.Context, r dateRange, f orderFilter, limit int, cursor string) (store.Page[store.Order], error) {
	if f.Product == "" {
		return h.Store.OrdersBetween(ctx, r.Start, r.End, limit, cursor)
	}
	lines, err := h.Store.ProductOrders(ctx, f.Product, r.Start, r.End, limit, cursor)
	if err != nil {
		return store.Page[store.Order]{}, err
	}
	orders, err := h.Store.OrdersOfLines(ctx, lines.Items)
	return store.Page[store.Order]{Items: orders, Next: lines.Next}, err
}
