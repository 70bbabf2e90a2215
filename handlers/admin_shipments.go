package handlers

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/sync/errgroup"

	"shop/handlers/page"
	"shop/store"
	"shop/store/carrier"
	"shop/views"
	"shop/web/paths"
)

// AdminShipmentStore is what the staff shipment pages read and write.
type AdminShipmentStore interface {
	Now() time.Time
	Shipment(ctx context.Context, shipmentID string) (store.Shipment, error)
	OrderDetails(ctx context.Context, orderID string) (store.OrderDetails, error)
	Warehouse(ctx context.Context, id string) (store.Warehouse, error)
	Warehouses(ctx context.Context) ([]store.Warehouse, error)
	ShipmentsByStatus(ctx context.Context, status store.ShipmentStatus, limit int, cursor string) (store.Page[store.Shipment], error)
	ChangeShipment(ctx context.Context, orderID, shipmentID string, step store.ShipmentStep, by store.Customer) (store.ShipmentChange, error)
	UndoShipmentChange(ctx context.Context, orderID, shipmentID, changeID string, by store.Customer) (store.ShipmentChange, error)
}

// AdminShipments serves /admin/shipments and the changes of an order's
// shipments: ship with a carrier and tracking number, deliver, step back,
// each confirmed first and undoable for a few minutes; and the packing slip.
type AdminShipments struct {
	Store AdminShipmentStore
	// Mail is the customer's mail of a step forward (shipped, delivered),
	// written with the change (nil: none).
	Mail func(store.Order, store.Shipment) *store.Mail
	// Queue is the packing queue, the list's first tab.
	Queue *AdminToPack
}

// List is every warehouse's shipments in one status (?status=), a page at
// a time: one Query per list shard, and one for the warehouses' names.
// Without a status (or ?status=to-pack) it is the packing queue, where
// shipments are made.
func (h *AdminShipments) List(c *fiber.Ctx) error {
	if st := c.Query("status", views.ToPackTab); st == views.ToPackTab {
		return h.Queue.List(c)
	}
	status := store.ShipmentStatus(c.Query("status"))
	known := false
	for _, s := range views.ShipmentStatuses {
		known = known || s == status
	}
	if !known {
		return page.BadRequest(page.T(c, "admin.shipments.err.status"))
	}
	var (
		p  store.Page[store.Shipment]
		ws []store.Warehouse
	)
	g, ctx := errgroup.WithContext(c.UserContext())
	g.Go(func() (err error) {
		p, err = h.Store.ShipmentsByStatus(ctx, status, adminPageSize, c.Query("after"))
		return err
	})
	g.Go(func() (err error) { ws, err = h.Store.Warehouses(ctx); return err })
	if err := g.Wait(); err != nil {
		return err
	}
	data := views.AdminShipmentList{Status: status, Shipments: p.Items, Warehouses: warehouseNames(ws),
		NextURL: paths.More(paths.AdminShipments, p.Next, "status", string(status))}
	return page.List(c, page.T(c, "admin.shipments.title"), views.AdminShipmentListView, views.AdminShipmentListRows, data)
}

func warehouseNames(ws []store.Warehouse) map[string]string {
	names := make(map[string]string, len(ws))
	for _, w := range ws {
		names[w.ID] = w.Name
	}
	return names
}

// Show is one shipment with its items (access pattern 12, which carries
// its changes too), the warehouse it leaves from, what staff can do next
// and its history.
func (h *AdminShipments) Show(c *fiber.Ctx) error {
	id, err := pathID(c, "id", "error.not_found.shipment")
	if err != nil {
		return err
	}
	return h.render(c, id, fiber.StatusOK, "", views.ShipForm{})
}

func (h *AdminShipments) render(c *fiber.Ctx, id string, status int, problem string, form views.ShipForm) error {
	sh, err := h.Store.Shipment(c.UserContext(), id)
	if err != nil {
		return notFoundAs(err, "error.not_found.shipment")
	}
	w, err := h.Store.Warehouse(c.UserContext(), sh.WarehouseID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		w = store.Warehouse{ID: sh.WarehouseID, Name: sh.WarehouseID} // since closed: show the id
	case err != nil:
		return err
	}
	if sh.OrderNumber == "" {
		// A shipment from before numbers keeps no order number: its
		// order's read names it (one Query, for those only).
		d, err := h.Store.OrderDetails(c.UserContext(), sh.OrderID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		sh.OrderNumber = d.Order.Number
	}
	if form.Carrier == "" {
		form.Carrier = sh.Carrier
	}
	data := views.AdminShipmentPage{Shipment: sh, Warehouse: w, OrderID: sh.OrderID, Now: h.Store.Now(),
		Error: problem, Ship: form, CSRF: page.CSRFToken(c)}
	return page.Render(c, status, page.View{Title: views.ShipmentName(c.UserContext(), sh, w.Name), Page: page.Full(views.AdminShipmentView, data)})
}

// stepForm reads a change from its form.
func stepForm(c *fiber.Ctx, orderID, shipmentID string) (views.ShipmentStepForm, error) {
	f := views.ShipmentStepForm{OrderID: orderID, ShipmentID: shipmentID, To: store.ShipmentStatus(page.Field(c, "status")),
		Carrier: page.Field(c, "carrier"), Tracking: page.Field(c, "tracking"), Back: page.Field(c, "back")}
	v, err := strconv.Atoi(page.Field(c, "version"))
	if err != nil || v < 0 {
		return f, page.BadRequest(page.T(c, "admin.shipments.err.version"))
	}
	f.Version = v
	if f.Back != "order" {
		f.Back = ""
	}
	return f, nil
}

// Change moves a shipment one step, in two steps itself: the form (on the
// shipment's page, or a button on the order's) comes to a page that asks
// to confirm, with what was typed checked; the confirmed form makes the
// change on the version the staff member saw. A step out of order or a
// tracking number the carrier does not issue is a 422; someone else's
// change in between is a 409 saying who; both show the shipment as it is.
func (h *AdminShipments) Change(c *fiber.Ctx) error {
	by, ok := page.StaffMember(c)
	if !ok {
		return page.Forbidden(page.T(c, "admin.shipments.err.staff_only"))
	}
	orderID, err := pathID(c, "id", "error.not_found.order")
	if err != nil {
		return err
	}
	sid, err := pathID(c, "sid", "error.not_found.shipment")
	if err != nil {
		return err
	}
	f, err := stepForm(c, orderID, sid)
	if err != nil {
		return err
	}
	sh, err := h.Store.Shipment(c.UserContext(), sid)
	if err != nil || sh.OrderID != orderID {
		return notFoundAs(orErrNotFound(err), "error.not_found.shipment")
	}
	if sh.Version != f.Version {
		return h.render(c, sid, fiber.StatusConflict, changedBy(c, sh), views.ShipForm{})
	}
	forward := f.To == store.ShipmentShipped && sh.Status == store.ShipmentPending
	if !oneStep(sh.Status, f.To) {
		return h.render(c, sid, fiber.StatusUnprocessableEntity,
			page.T(c, "admin.shipments.err.one_step", "From", views.AdminShipmentWord(c.UserContext(), sh.Status), "To", views.AdminShipmentWord(c.UserContext(), f.To)), views.ShipForm{})
	}
	if forward {
		n, err := carrier.Check(f.Carrier, f.Tracking)
		if err != nil {
			return h.render(c, sid, fiber.StatusUnprocessableEntity, page.T(c, "admin.shipments.err.check"), shipFormErrors(c, f, err))
		}
		f.Tracking = n
	} else {
		f.Carrier, f.Tracking = "", ""
	}
	if page.Field(c, "confirm") != "yes" {
		data := views.AdminShipmentConfirm{Shipment: sh, Step: f, CSRF: page.CSRFToken(c)}
		return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "admin.shipments.confirm_title", "Shipment", views.ShipmentName(c.UserContext(), sh, "")), Page: page.Full(views.AdminShipmentConfirmView, data)})
	}
	_, err = h.Store.ChangeShipment(c.UserContext(), orderID, sid, store.ShipmentStep{To: f.To, Carrier: f.Carrier, Tracking: f.Tracking, Version: f.Version, Mail: h.Mail}, by)
	switch {
	case errors.Is(err, store.ErrBadTracking):
		return h.render(c, sid, fiber.StatusUnprocessableEntity, page.T(c, "admin.shipments.err.check"), shipFormErrors(c, f, errors.Unwrap(err)))
	case errors.Is(err, store.ErrBadTransition):
		return h.render(c, sid, fiber.StatusUnprocessableEntity, page.T(c, "admin.shipments.err.step"), views.ShipForm{})
	case errors.Is(err, store.ErrConflict):
		return h.conflict(c, sid)
	case err != nil:
		return notFoundAs(err, "error.not_found.shipment")
	}
	minutes := int(store.UndoWindow / time.Minute)
	name := views.ShipmentName(c.UserContext(), sh, "")
	msg := page.T(c, "admin.shipments.marked", "Shipment", name, "To", views.AdminShipmentWord(c.UserContext(), f.To), "Minutes", minutes)
	if forward {
		msg = page.T(c, "admin.shipments.marked_with", "Shipment", name, "To", views.AdminShipmentWord(c.UserContext(), f.To), "Minutes", minutes,
			"Carrier", carrier.Name(f.Carrier), "Tracking", f.Tracking)
	}
	page.Flash(c, views.FlashSuccess, msg)
	if f.Back == "order" {
		return page.Redirect(c, paths.AdminOrder(orderID))
	}
	return page.Redirect(c, paths.AdminShipment(sid))
}

// conflict is the 409 of a change that lost to another: the shipment as
// it is now, and who changed it.
func (h *AdminShipments) conflict(c *fiber.Ctx, sid string) error {
	sh, err := h.Store.Shipment(c.UserContext(), sid)
	if err != nil {
		return notFoundAs(err, "error.not_found.shipment")
	}
	return h.render(c, sid, fiber.StatusConflict, changedBy(c, sh), views.ShipForm{})
}

// changedBy says who changed a shipment since the staff member looked.
func changedBy(c *fiber.Ctx, sh store.Shipment) string {
	if n := len(sh.Changes); n > 0 {
		last := sh.Changes[n-1]
		return page.T(c, "admin.shipments.err.changed_by", "Name", last.ByName,
			"From", views.AdminShipmentWord(c.UserContext(), last.From), "To", views.AdminShipmentWord(c.UserContext(), last.To))
	}
	return page.T(c, "admin.shipments.err.changed")
}

func oneStep(from, to store.ShipmentStatus) bool {
	steps := views.ShipmentStatuses
	i, j := -1, -1
	for k, s := range steps {
		if s == from {
			i = k
		}
		if s == to {
			j = k
		}
	}
	return i >= 0 && j >= 0 && (j == i+1 || j == i-1)
}

// shipFormErrors puts a refused carrier or number beside its field.
func shipFormErrors(c *fiber.Ctx, f views.ShipmentStepForm, err error) views.ShipForm {
	form := views.ShipForm{Carrier: f.Carrier, Tracking: f.Tracking, Errors: views.FieldErrors{}}
	switch {
	case errors.Is(err, carrier.ErrNoCarrier):
		form.Errors["carrier"] = page.T(c, "admin.shipments.err.no_carrier")
	case errors.Is(err, carrier.ErrNoNumber):
		form.Errors["tracking"] = page.T(c, "admin.shipments.err.no_number")
	case errors.Is(err, carrier.ErrWrongFormat):
		form.Errors["tracking"] = page.T(c, "admin.shipments.err.wrong_format", "Carrier", carrier.Name(f.Carrier))
	case errors.Is(err, carrier.ErrCheckDigit):
		form.Errors["tracking"] = page.T(c, "admin.shipments.err.check_digit")
	default: // the one other refusal: a number of a carrier with no formats
		form.Errors["tracking"] = page.T(c, "admin.shipments.err.any_number")
	}
	return form
}

func orErrNotFound(err error) error {
	if err == nil {
		return store.ErrNotFound
	}
	return err
}

// Undo takes back a shipment's last change within store.UndoWindow, on
// the version that change made: after a later change, or too late, it is a
// 409 with the shipment as it is.
func (h *AdminShipments) Undo(c *fiber.Ctx) error {
	by, ok := page.StaffMember(c)
	if !ok {
		return page.Forbidden(page.T(c, "admin.shipments.err.staff_only"))
	}
	orderID, err := pathID(c, "id", "error.not_found.order")
	if err != nil {
		return err
	}
	sid, err := pathID(c, "sid", "error.not_found.shipment")
	if err != nil {
		return err
	}
	change := page.Field(c, "change")
	if change == "" {
		return page.BadRequest(page.T(c, "admin.shipments.err.which_undo"))
	}
	ch, err := h.Store.UndoShipmentChange(c.UserContext(), orderID, sid, change, by)
	switch {
	case errors.Is(err, store.ErrUndoExpired):
		return h.render(c, sid, fiber.StatusConflict, page.T(c, "admin.shipments.err.undo_late", "Minutes", int(store.UndoWindow/time.Minute)), views.ShipForm{})
	case errors.Is(err, store.ErrNotUndoable):
		return h.render(c, sid, fiber.StatusConflict, page.T(c, "admin.shipments.err.undone"), views.ShipForm{})
	case errors.Is(err, store.ErrConflict):
		return h.conflict(c, sid)
	case errors.Is(err, store.ErrNotFound):
		return page.NotFound("error.not_found.shipment_change")
	case err != nil:
		return err
	}
	page.Flash(c, views.FlashSuccess, page.T(c, "admin.shipments.undone_flash", "To", views.AdminShipmentWord(c.UserContext(), ch.To)))
	return page.Redirect(c, paths.AdminShipment(sid))
}

// Slip is a shipment's packing slip: the order's number, the items and
// the address, for the printer (one Query of the order, one GetItem of
// the warehouse).
func (h *AdminShipments) Slip(c *fiber.Ctx) error {
	orderID, err := pathID(c, "id", "error.not_found.order")
	if err != nil {
		return err
	}
	sid, err := pathID(c, "sid", "error.not_found.shipment")
	if err != nil {
		return err
	}
	d, err := h.Store.OrderDetails(c.UserContext(), orderID)
	if err != nil {
		return notFoundAs(err, "error.not_found.order")
	}
	var sh store.Shipment
	found := false
	for _, s := range d.Shipments {
		if s.ID == sid {
			sh, found = s, true
		}
	}
	if !found {
		return page.NotFound("error.not_found.shipment")
	}
	w, err := h.Store.Warehouse(c.UserContext(), sh.WarehouseID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		w = store.Warehouse{ID: sh.WarehouseID, Name: sh.WarehouseID}
	case err != nil:
		return err
	}
	data := views.AdminPackingSlip{Order: d.Order, Shipment: sh, Warehouse: w}
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "admin.shipments.slip_title", "Order", d.Order.Label()), Page: page.Full(views.AdminPackingSlipView, data)})
}
