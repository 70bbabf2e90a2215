package handlers

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/sync/errgroup"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/web/paths"
)

// AdminOrderStore is what the staff order pages read and write.
type AdminOrderStore interface {
	// Now is the shop's clock (the store's, set in tests).
	Now() time.Time
	Location() *time.Location // the shop's time zone: date filters pick its days
	OrdersBetween(ctx context.Context, from, to time.Time, limit int, cursor string) (store.Page[store.Order], error)
	ProductOrders(ctx context.Context, productID string, from, to time.Time, limit int, cursor string) (store.Page[store.OrderItem], error)
	OrdersOfLines(ctx context.Context, lines []store.OrderItem) ([]store.Order, error)
	OrderDetails(ctx context.Context, orderID string) (store.OrderDetails, error)
	CreateShipments(ctx context.Context, orderID, shippingType string) ([]store.Shipment, error)
	RefundOrder(ctx context.Context, req store.OrderRefundRequest, refunder store.Refunder) (store.Refund, error)
	RetryCardRefund(ctx context.Context, orderID, key string, refunder store.Refunder) (store.Refund, error)
	Warehouses(ctx context.Context) ([]store.Warehouse, error)
	OrderIDByNumber(ctx context.Context, number string) (string, error)
	ReturnByNumber(ctx context.Context, number string) (store.Return, error)
	CustomerOrders(ctx context.Context, customerID string, limit int, cursor string) (store.Page[store.Order], error)
	HeldOrders(ctx context.Context, limit int, cursor string) (store.Page[store.Order], error)
	Customer(ctx context.Context, id string) (store.Customer, error)
	AllocateOrder(ctx context.Context, orderID string) (store.Order, error)
}

// orderStatuses are the statuses the list can show alone.
var orderStatuses = []string{string(store.OrderPlaced), string(store.OrderShipping), string(store.OrderShipped), string(store.OrderDelivered), string(store.OrderCancelled), string(store.OrderAwaitingStock), statusAwaitingPayment}

// statusPagesRead bounds the pages of the range one screen of a status
// reads (each a Query per list shard): a rare status in a busy range
// would otherwise read the whole range to fill one screen. Short of a
// screen, the page says how many orders it looked through and offers the
// next ones.
const statusPagesRead = 4

// shippingTypes are the ways a parcel can travel.
var shippingTypes = []string{"Standard", "Express"}

const (
	csvPageSize   = 200
	csvTimeout    = 2 * time.Minute
	orderCSVStamp = "2006-01-02T15:04:05.000Z07:00"
)

// An instant in an export is orderCSVStamp, ISO 8601 in the shop's time
// zone with its offset (the column's header names the zone): a spreadsheet
// shows the shop's times and a program still reads the instant exactly.

// csvTimeColumn heads a column of orderCSVStamp instants: "placed_at (ISO 8601,
// Europe/Stockholm)".
func csvTimeColumn(name string, loc *time.Location) string {
	return name + " (ISO 8601, " + loc.String() + ")"
}

// AdminOrders serves /admin/orders.
type AdminOrders struct {
	Store AdminOrderStore
	// Products are what the list filters by (the catalogue's copy).
	Products AdminOrderProducts
	// Log receives the failure of an export cut short after it started.
	Log *slog.Logger
	// Refunds makes a refund's card part at the provider that took it.
	Refunds CardRefunds
	// StripeDashboard is the Stripe Dashboard's address for the shop's
	// key (https://dashboard.stripe.com/test for a test key); default the
	// live one (StripeDashboard).
	StripeDashboard string
}

func (h *AdminOrders) log() *slog.Logger {
	if h.Log != nil {
		return h.Log
	}
	return slog.Default()
}

func (h *AdminOrders) filter(c *fiber.Ctx) (dateRange, views.AdminDateFilter, *rangeError) {
	f := views.AdminDateFilter{Action: paths.AdminOrders, Target: "orders-section", From: c.Query("from"), To: c.Query("to")}
	r, err := parseDateRange(f.From, f.To, h.Store.Now(), h.Store.Location())
	if err != nil {
		f.Errors = err.FieldErrors(c)
		return r, f, err
	}
	f.From, f.To = r.From, r.To
	return r, f, nil
}

// List is the orders placed in a date range (default the last 30 days),
// newest first, optionally of one status; htmx asks for the section (the
// filter) or the next page's rows. ?number= goes to the order of that
// number, or to the return of a return's number.
func (h *AdminOrders) List(c *fiber.Ctx) error {
	ctx, after := c.UserContext(), c.Query("after")
	r, f, rerr := h.filter(c)
	f.Statuses, f.Status = orderStatuses, c.Query("status")
	of, err := h.parseOrderFilter(c, &f)
	if err != nil {
		return err
	}
	data := views.AdminOrderList{Filter: f}
	status := fiber.StatusOK
	if c.Context().QueryArgs().Has("number") {
		data.Number = strings.ToUpper(strings.TrimSpace(c.Query("number")))
		id, err := h.Store.OrderIDByNumber(ctx, data.Number)
		var r store.Return
		if _, _, isReturn := store.ParseReturnNumber(data.Number); isReturn && errors.Is(err, store.ErrNotFound) {
			// The number on a returned parcel: its return.
			if r, err = h.Store.ReturnByNumber(ctx, data.Number); err == nil {
				return page.Redirect(c, paths.AdminReturn(r.OrderID, r.ID))
			}
		}
		switch {
		case err == nil:
			return page.Redirect(c, paths.AdminOrder(id))
		case !errors.Is(err, store.ErrNotFound):
			return err
		case data.Number == "":
			status, data.NumberError = fiber.StatusUnprocessableEntity, page.T(c, "admin.orders.err.number_empty")
		default:
			status, data.NumberError = fiber.StatusNotFound, page.T(c, "admin.orders.err.number_unknown", "Number", data.Number)
		}
	}
	if id := c.Query("customer"); id != "" {
		return h.customerOrders(c, id, data)
	}
	switch {
	case f.Status == statusAwaitingPayment:
		return h.heldOrders(c, data)
	case f.Status != "" && !slices.Contains(orderStatuses, f.Status):
		status = fiber.StatusUnprocessableEntity
		data.Filter.Errors = views.FieldErrors{"": page.T(c, "admin.orders.err.status")}
	case rerr != nil || f.Errors.Has("product") || f.Errors.Has("buyer"):
		status = fiber.StatusUnprocessableEntity
	default:
		next, err := h.readOrders(ctx, r, of, after, &data)
		if err != nil {
			return err
		}
		data.NextURL = paths.More(paths.AdminOrders, next, "from", r.From, "to", r.To, "status", f.Status, "product", f.Product, "buyer", f.Buyer)
		data.CSVURL = paths.AdminOrdersCSV(r.From, r.To, "status", f.Status, "product", f.Product, "buyer", f.Buyer)
	}
	partial := views.AdminOrdersSection(data)
	if after != "" {
		partial = views.AdminOrderRows(data)
	}
	return page.Render(c, status, page.View{Title: page.T(c, "admin.orders.title"), Page: page.Full(views.AdminOrdersView, data), Partial: partial})
}

// customerOrders is one customer's orders, newest first, whatever their
// dates (their GSI2 partition: one Query a page).
func (h *AdminOrders) customerOrders(c *fiber.Ctx, id string, data views.AdminOrderList) error {
	if !store.ValidID(id) {
		return page.NotFound("error.not_found.customer")
	}
	var (
		cust   store.Customer
		orders store.Page[store.Order]
	)
	after := c.Query("after")
	g, ctx := errgroup.WithContext(c.UserContext())
	g.Go(func() (err error) {
		cust, err = h.Store.Customer(ctx, id)
		return notFoundAs(err, "error.not_found.customer")
	})
	g.Go(func() (err error) { orders, err = h.Store.CustomerOrders(ctx, id, adminPageSize, after); return err })
	if err := g.Wait(); err != nil {
		return err
	}
	data.Customer, data.Orders = &cust, orders.Items
	data.NextURL = paths.More(paths.AdminOrders, orders.Next, "customer", id)
	partial := views.AdminOrdersSection(data)
	if after != "" {
		partial = views.AdminOrderRows(data)
	}
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "admin.orders.title_of", "Customer", cust.Name), Page: page.Full(views.AdminOrdersView, data), Partial: partial})
}

// readOrders fills one screen of the range's orders the filter lets
// through: pages of the range (or of the product's lines) filtered here,
// at most statusPagesRead of them when a status or customer narrows them.
// It returns the cursor of what is left.
func (h *AdminOrders) readOrders(ctx context.Context, r dateRange, f orderFilter, cursor string, data *views.AdminOrderList) (string, error) {
	for pages := 0; ; pages++ {
		p, err := h.ordersPage(ctx, r, f, adminPageSize, cursor)
		if err != nil {
			return "", err
		}
		data.Looked += len(p.Items)
		for _, o := range p.Items {
			if f.match(o) {
				data.Orders = append(data.Orders, o)
			}
		}
		cursor = p.Next
		if !f.narrows() || cursor == "" || len(data.Orders) >= adminPageSize || pages+1 >= statusPagesRead {
			data.Partial = f.narrows() && cursor != "" && len(data.Orders) < adminPageSize
			return cursor, nil
		}
	}
}

// csvText keeps a typed value from being read as a formula by a spreadsheet.
func csvText(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

func orderCSVHeader(loc *time.Location) []string {
	return []string{"order_id", "order_number", csvTimeColumn("placed_at", loc), "customer_id", "customer_name", "customer_email", "status", "subtotal", "discount", "total", "currency", "lines", "ship_to_city", "ship_to_country"}
}

func orderCSVRecord(o store.Order, loc *time.Location) []string {
	return []string{
		o.ID, o.Number, o.PlacedAt.In(loc).Format(orderCSVStamp), o.CustomerID, csvText(o.Buyer.Name), csvText(o.Buyer.Email), string(o.Status),
		o.Subtotal.Decimal(), o.Discount.Decimal(), o.Total.Decimal(), o.Total.Currency,
		strconv.Itoa(o.Lines), csvText(o.ShipTo.City), csvText(o.ShipTo.Country),
	}
}

// CSV streams the orders of a date range the list's filters let through
// as a CSV file, newest first (see streamCSV).
func (h *AdminOrders) CSV(c *fiber.Ctx) error {
	r, err := parseDateRange(c.Query("from"), c.Query("to"), h.Store.Now(), h.Store.Location())
	if err != nil {
		return page.BadRequest(err.Text(c))
	}
	f := views.AdminDateFilter{Status: c.Query("status")}
	of, ferr := h.parseOrderFilter(c, &f)
	switch {
	case ferr != nil:
		return ferr
	case f.Status != "" && (!slices.Contains(orderStatuses, f.Status) || f.Status == statusAwaitingPayment):
		return page.BadRequest(page.T(c, "admin.orders.err.status"))
	case f.Errors.Any():
		for _, msg := range f.Errors {
			return page.BadRequest(msg)
		}
	}
	loc := h.Store.Location()
	return streamCSV(c, h.log(), "orders-"+r.From+"-to-"+r.To+".csv", orderCSVHeader(loc), "orders",
		func(ctx context.Context, cursor string) (csvPage, error) {
			orders, err := h.ordersPage(ctx, r, of, csvPageSize, cursor)
			p := csvPage{next: orders.Next}
			for _, o := range orders.Items {
				if of.match(o) {
					p.records = append(p.records, orderCSVRecord(o, loc))
				}
			}
			return p, err
		})
}

// orderPage reads what the order page shows.
func (h *AdminOrders) orderPage(c *fiber.Ctx, id string) (views.AdminOrderPage, error) {
	var (
		d  store.OrderDetails
		ws []store.Warehouse
	)
	g, ctx := errgroup.WithContext(c.UserContext())
	g.Go(func() (err error) {
		d, err = h.Store.OrderDetails(ctx, id)
		return notFoundAs(err, "error.not_found.order")
	})
	g.Go(func() (err error) { ws, err = h.Store.Warehouses(ctx); return err })
	if err := g.Wait(); err != nil {
		return views.AdminOrderPage{}, err
	}
	names := make(map[string]string, len(ws))
	for _, w := range ws {
		names[w.ID] = w.Name
	}
	slices.SortFunc(ws, func(a, b store.Warehouse) int { return strings.Compare(a.Name, b.Name) })
	return views.AdminOrderPage{Details: d, Warehouses: names, WarehouseList: ws, ShippingTypes: shippingTypes, CSRF: page.CSRFToken(c),
		Refund: views.RefundForm{Key: store.NewID()}, StripeDashboard: h.stripeDashboard()}, nil
}

func (h *AdminOrders) renderOrder(c *fiber.Ctx, id string, status int, problem string) error {
	data, err := h.orderPage(c, id)
	if err != nil {
		return err
	}
	data.Error = problem
	return page.Render(c, status, page.View{Title: page.T(c, "admin.orders.order", "Order", data.Details.Order.Label()), Page: page.Full(views.AdminOrderView, data)})
}

// Show is one order with its items, invoice and shipments.
func (h *AdminOrders) Show(c *fiber.Ctx) error {
	id, err := pathID(c, "id", "error.not_found.order")
	if err != nil {
		return err
	}
	return h.renderOrder(c, id, fiber.StatusOK, "")
}

// CreateShipments makes the order's shipments, one per warehouse its items
// are allocated to. Doing it twice is a 409 with the order as it is now.
func (h *AdminOrders) CreateShipments(c *fiber.Ctx) error {
	id, err := pathID(c, "id", "error.not_found.order")
	if err != nil {
		return err
	}
	typ := page.Field(c, "type")
	known := false
	for _, t := range shippingTypes {
		known = known || t == typ
	}
	if !known {
		return h.renderOrder(c, id, fiber.StatusUnprocessableEntity, page.T(c, "admin.orders.err.shipping_type"))
	}
	shipments, err := h.Store.CreateShipments(c.UserContext(), id, typ)
	switch {
	case errors.Is(err, store.ErrNotPaid):
		return h.renderOrder(c, id, fiber.StatusConflict, page.T(c, "admin.orders.err.not_paid"))
	case errors.Is(err, store.ErrShipmentsExist):
		return h.renderOrder(c, id, fiber.StatusConflict, page.T(c, "admin.orders.err.shipments_exist"))
	case errors.Is(err, store.ErrRefundedWhileShipping):
		return h.renderOrder(c, id, fiber.StatusConflict, page.T(c, "admin.orders.err.refunded_meanwhile"))
	case errors.Is(err, store.ErrNothingToShip):
		return h.renderOrder(c, id, fiber.StatusUnprocessableEntity, page.T(c, "admin.orders.err.nothing_to_ship"))
	case err != nil:
		return notFoundAs(err, "error.not_found.order")
	}
	page.Flash(c, views.FlashSuccess, page.N(c, "admin.orders.created_shipments", len(shipments)))
	return page.Redirect(c, paths.AdminOrder(id))
}

// Allocate allocates a subscription's order awaiting stock from the stock
// there is now. Pressed twice (or by two staff at once), the second is a
// 409 with the order as it is; still too little stock is a 409 that says
// how much there is.
func (h *AdminOrders) Allocate(c *fiber.Ctx) error {
	id, err := pathID(c, "id", "error.not_found.order")
	if err != nil {
		return err
	}
	o, err := h.Store.AllocateOrder(c.UserContext(), id)
	var short *store.StockShortError
	switch {
	case errors.Is(err, store.ErrNotAwaitingStock):
		return h.renderOrder(c, id, fiber.StatusConflict, page.T(c, "admin.orders.err.not_awaiting"))
	case errors.As(err, &short):
		return h.renderOrder(c, id, fiber.StatusConflict, stockShortText(c, short))
	case errors.Is(err, store.ErrConflict):
		return h.renderOrder(c, id, fiber.StatusConflict, page.T(c, "admin.orders.err.stock_changing"))
	case err != nil:
		return notFoundAs(err, "error.not_found.order")
	}
	page.Flash(c, views.FlashSuccess, page.T(c, "admin.orders.allocated", "Order", o.Label()))
	return page.Redirect(c, paths.AdminOrder(id))
}

// stockShortText says which product lacks stock to allocate an order.
func stockShortText(c *fiber.Ctx, short *store.StockShortError) string {
	if short.Available == 0 {
		return page.T(c, "admin.orders.err.out_of_stock", "Product", short.ProductName)
	}
	return page.T(c, "admin.orders.err.short", "Product", short.ProductName, "Available", short.Available, "Wanted", short.Wanted)
}
