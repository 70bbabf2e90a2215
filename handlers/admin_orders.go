package handlers

import (
	"context"
	"errors"
	"log/slog"
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
	OrderDetails(ctx context.Context, orderID string) (store.OrderDetails, error)
	CreateShipments(ctx context.Context, orderID, shippingType string) ([]store.Shipment, error)
	Warehouses(ctx context.Context) ([]store.Warehouse, error)
}

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
	// Log receives the failure of an export cut short after it started.
	Log *slog.Logger
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
		f.Errors = err.Errors()
		return r, f, err
	}
	f.From, f.To = r.From, r.To
	return r, f, nil
}

// List is the orders placed in a date range (default the last 30 days),
// newest first; htmx asks for the section (the date filter) or the next
// page's rows.
func (h *AdminOrders) List(c *fiber.Ctx) error {
	r, f, rerr := h.filter(c)
	data := views.AdminOrderList{Filter: f}
	status := fiber.StatusOK
	if rerr != nil {
		status = fiber.StatusUnprocessableEntity
	} else {
		p, err := h.Store.OrdersBetween(c.UserContext(), r.Start, r.End, adminPageSize, c.Query("after"))
		if err != nil {
			return err
		}
		data.Orders = p.Items
		data.NextURL = paths.More(paths.AdminOrders, p.Next, "from", r.From, "to", r.To)
		data.CSVURL = paths.AdminOrdersCSV(r.From, r.To)
	}
	partial := views.AdminOrdersSection(data)
	if c.Query("after") != "" {
		partial = views.AdminOrderRows(data)
	}
	return page.Render(c, status, page.View{Title: "Orders", Page: page.Full(views.AdminOrdersView, data), Partial: partial})
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

// CSV streams the orders of a date range as a CSV file, newest first (see
// streamCSV).
func (h *AdminOrders) CSV(c *fiber.Ctx) error {
	r, err := parseDateRange(c.Query("from"), c.Query("to"), h.Store.Now(), h.Store.Location())
	if err != nil {
		return page.BadRequest(err.Message)
	}
	loc := h.Store.Location()
	return streamCSV(c, h.log(), "orders-"+r.From+"-to-"+r.To+".csv", orderCSVHeader(loc), "orders",
		func(ctx context.Context, cursor string) (csvPage, error) {
			orders, err := h.Store.OrdersBetween(ctx, r.Start, r.End, csvPageSize, cursor)
			p := csvPage{next: orders.Next}
			for _, o := range orders.Items {
				p.records = append(p.records, orderCSVRecord(o, loc))
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
	g.Go(func() (err error) { d, err = h.Store.OrderDetails(ctx, id); return notFoundAs(err, "That order") })
	g.Go(func() (err error) { ws, err = h.Store.Warehouses(ctx); return err })
	if err := g.Wait(); err != nil {
		return views.AdminOrderPage{}, err
	}
	names := make(map[string]string, len(ws))
	for _, w := range ws {
		names[w.ID] = w.Name
	}
	return views.AdminOrderPage{Details: d, Warehouses: names, ShippingTypes: shippingTypes, CSRF: page.CSRFToken(c)}, nil
}

func (h *AdminOrders) renderOrder(c *fiber.Ctx, id string, status int, problem string) error {
	data, err := h.orderPage(c, id)
	if err != nil {
		return err
	}
	data.Error = problem
	return page.Render(c, status, page.View{Title: "Order " + id, Page: page.Full(views.AdminOrderView, data)})
}

// Show is one order with its items, invoice and shipments.
func (h *AdminOrders) Show(c *fiber.Ctx) error {
	id, err := pathID(c, "id", "That order")
	if err != nil {
		return err
	}
	return h.renderOrder(c, id, fiber.StatusOK, "")
}

// CreateShipments makes the order's shipments, one per warehouse its items
// are allocated to. Doing it twice is a 409 with the order as it is now.
func (h *AdminOrders) CreateShipments(c *fiber.Ctx) error {
	id, err := pathID(c, "id", "That order")
	if err != nil {
		return err
	}
	typ := c.FormValue("type")
	known := false
	for _, t := range shippingTypes {
		known = known || t == typ
	}
	if !known {
		return h.renderOrder(c, id, fiber.StatusUnprocessableEntity, "Choose a shipping type: "+strings.Join(shippingTypes, " or ")+".")
	}
	shipments, err := h.Store.CreateShipments(c.UserContext(), id, typ)
	switch {
	case errors.Is(err, store.ErrShipmentsExist):
		return h.renderOrder(c, id, fiber.StatusConflict, "This order's shipments exist already (someone may have just created them). Here they are.")
	case errors.Is(err, store.ErrNothingToShip):
		return h.renderOrder(c, id, fiber.StatusUnprocessableEntity, "Nothing in this order is allocated to a warehouse, so there is nothing to ship.")
	case err != nil:
		return notFoundAs(err, "That order")
	}
	msg := "Created 1 shipment."
	if len(shipments) != 1 {
		msg = "Created " + strconv.Itoa(len(shipments)) + " shipments, one per warehouse."
	}
	page.Flash(c, views.FlashSuccess, msg)
	return page.Redirect(c, paths.AdminOrder(id))
}
