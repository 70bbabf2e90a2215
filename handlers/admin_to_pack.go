package handlers

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/sync/errgroup"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/web/paths"
)

// AdminToPackStore is what the packing queue reads and writes.
type AdminToPackStore interface {
	OrdersToPack(ctx context.Context, limit int, cursor string) (store.Page[store.Order], error)
	Warehouses(ctx context.Context) ([]store.Warehouse, error)
	CreateShipments(ctx context.Context, orderID, shippingType string) ([]store.Shipment, error)
	OrderDetails(ctx context.Context, orderID string) (store.OrderDetails, error)
}

// AdminToPack is the packing queue: the orders placed and not packed yet,
// grouped by the warehouses their checkout allocated, oldest first; staff
// pack one or several (which makes their shipments), or print the pick
// list and packing slips of those they select.
type AdminToPack struct {
	Store AdminToPackStore
}

// toPackPageSize is how many orders a page of the queue shows: a day's
// packing at a glance, still one Query per list shard.
const toPackPageSize = 50

// maxPackAtOnce bounds one press of "Pack selected" or one print: each
// order is a transaction (or a read) of its own.
const maxPackAtOnce = toPackPageSize

// List is the queue, a page at a time: one Query per list shard of the
// queue and one for the warehouses' names, in parallel.
func (h *AdminToPack) List(c *fiber.Ctx) error {
	var (
		p  store.Page[store.Order]
		ws []store.Warehouse
	)
	g, ctx := errgroup.WithContext(c.UserContext())
	g.Go(func() (err error) {
		p, err = h.Store.OrdersToPack(ctx, toPackPageSize, c.Query("after"))
		return err
	})
	g.Go(func() (err error) { ws, err = h.Store.Warehouses(ctx); return err })
	if err := g.Wait(); err != nil {
		return err
	}
	data := views.AdminToPackPage{Groups: store.GroupToPack(p.Items), Orders: len(p.Items), Warehouses: warehouseNames(ws),
		NextURL: paths.More(paths.AdminShipments, p.Next, "status", views.ToPackTab), CSRF: page.CSRFToken(c)}
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "admin.topack.title"), Page: page.Full(views.AdminToPackView, data)})
}

// chosenOrders are the orders a form or link names (order=…, each once, in
// its order), at most maxPackAtOnce.
func chosenOrders(values [][]byte) ([]string, error) {
	var ids []string
	for _, v := range values {
		if id := string(v); id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) > maxPackAtOnce {
		return nil, errTooMany
	}
	return ids, nil
}

var errTooMany = errors.New("too many orders at once")

// Pack makes the shipments of the order whose row's button was pressed
// (pack=id), or of every order selected (order=id…): each order its own
// conditional transaction (store.CreateShipments), so an order another
// staff member packed meanwhile is counted as packed already, not packed
// twice. It answers 303 to the queue with what was done.
func (h *AdminToPack) Pack(c *fiber.Ctx) error {
	ids, err := chosenOrders(c.Request().PostArgs().PeekMulti("order"))
	if one := page.Field(c, "pack"); one != "" {
		if page.IsHTMX(c) {
			return h.packInPlace(c, one)
		}
		ids, err = []string{one}, nil
	}
	if errors.Is(err, errTooMany) {
		return page.BadRequest(page.T(c, "admin.topack.err.too_many", "Max", maxPackAtOnce))
	}
	if len(ids) == 0 {
		page.Flash(c, views.FlashError, page.T(c, "admin.topack.err.none_chosen"))
		return page.Redirect(c, paths.AdminShipments)
	}
	var packed, shipments, already int
	var problems []string
	for _, id := range ids {
		shs, err := h.Store.CreateShipments(c.UserContext(), id, shippingTypes[0])
		switch {
		case err == nil:
			packed, shipments = packed+1, shipments+len(shs)
		case errors.Is(err, store.ErrShipmentsExist):
			already++
		case errors.Is(err, store.ErrRefundedWhileShipping), errors.Is(err, store.ErrNothingToShip),
			errors.Is(err, store.ErrNotPaid), errors.Is(err, store.ErrNotFound):
			problems = append(problems, id)
		default:
			if packed > 0 {
				page.Written(c, "packed orders", packed)
			}
			return err
		}
	}
	// One flash a visit: what was packed, what someone else had, what was
	// refused, in one message.
	kind, msgs := views.FlashSuccess, []string{}
	if packed > 0 {
		page.Written(c, "packed orders", packed)
		msgs = append(msgs, page.N(c, "admin.topack.packed", packed, "Shipments", shipments))
	}
	if already > 0 {
		kind, msgs = views.FlashInfo, append(msgs, page.N(c, "admin.topack.already", already))
	}
	if len(problems) > 0 {
		kind, msgs = views.FlashError, append(msgs, page.N(c, "admin.topack.err.not_packed", len(problems)))
	}
	page.Flash(c, kind, strings.Join(msgs, " "))
	return page.Redirect(c, paths.AdminShipments)
}

// packInPlace answers htmx's press of a row's Pack with the row as it
// now is: its shipments, packed already by someone else, or why it could
// not be packed (a 200 all the same: the row says it, in place). An order
// packed (by this press or before it) leaves each of its warehouses'
// groups: their counts come one less and its rows under the others say the
// same, out of band (toPackElsewhere).
func (h *AdminToPack) packInPlace(c *fiber.Ctx, id string) error {
	r := views.AdminToPackResult{OrderID: id, From: page.Field(c, "from")}
	shs, err := h.Store.CreateShipments(c.UserContext(), id, shippingTypes[0])
	switch {
	case err == nil:
		page.Written(c, "packed orders", 1)
		r.Shipments = shs
	case errors.Is(err, store.ErrShipmentsExist):
		r.Already = true
		// Its shipments say which warehouses' groups it leaves.
		d, err := h.Store.OrderDetails(c.UserContext(), id)
		if err != nil {
			return err
		}
		shs = d.Shipments
	case errors.Is(err, store.ErrRefundedWhileShipping), errors.Is(err, store.ErrNothingToShip),
		errors.Is(err, store.ErrNotPaid), errors.Is(err, store.ErrNotFound):
		r.Problem = true
	default:
		return err
	}
	r.Others, r.Counts = toPackElsewhere(c, r.From, shs)
	return page.Write(c, fiber.StatusOK, views.AdminToPackRowResult(r))
}

// toPackElsewhere is, for an order packed into shs, its warehouses other
// than the one whose row was pressed, and each warehouse's count one
// less: the count the page showed comes with the press (the heading's
// hidden field, left-<warehouse>), so no queue is read again. A warehouse
// whose count the form did not post is not on the page.
func toPackElsewhere(c *fiber.Ctx, from string, shs []store.Shipment) (others []string, counts []views.ToPackCount) {
	for _, sh := range shs {
		w := sh.WarehouseID
		if slices.ContainsFunc(counts, func(n views.ToPackCount) bool { return n.WarehouseID == w }) {
			continue
		}
		left, err := strconv.Atoi(page.Field(c, views.ToPackLeftField+w))
		if err != nil {
			continue
		}
		counts = append(counts, views.ToPackCount{WarehouseID: w, Left: max(left-1, 0)})
		if w != from {
			others = append(others, w)
		}
	}
	return others, counts
}

// Print is the pick list and packing slips of the orders chosen
// (order=…, a GET the queue's form sends to a new page): one Query per
// order in parallel, and one for the warehouses' names. The pick list sums
// each warehouse's products; each order's slip prints on a page of its
// own.
func (h *AdminToPack) Print(c *fiber.Ctx) error {
	ids, err := chosenOrders(c.Context().QueryArgs().PeekMulti("order"))
	if errors.Is(err, errTooMany) {
		return page.BadRequest(page.T(c, "admin.topack.err.too_many", "Max", maxPackAtOnce))
	}
	if len(ids) == 0 {
		return page.BadRequest(page.T(c, "admin.topack.err.none_chosen"))
	}
	orders := make([]store.OrderDetails, len(ids))
	var ws []store.Warehouse
	g, ctx := errgroup.WithContext(c.UserContext())
	g.SetLimit(8)
	g.Go(func() (err error) { ws, err = h.Store.Warehouses(ctx); return err })
	for i, id := range ids {
		g.Go(func() (err error) {
			orders[i], err = h.Store.OrderDetails(ctx, id)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return notFoundAs(err, "error.not_found.order")
	}
	data := views.NewPickSheet(orders, ws)
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "admin.topack.print_title"), Page: page.Full(views.AdminPickSheetView, data)})
}
