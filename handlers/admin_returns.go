package handlers

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/sync/errgroup"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/views/lang"
	"shop/views/mail"
	"shop/web/paths"
)

// AdminReturnStore is what the staff return pages read and write.
type AdminReturnStore interface {
	ReturnsByStatus(ctx context.Context, status store.ReturnStatus, limit int, cursor string) (store.Page[store.Return], error)
	OrderReturn(ctx context.Context, orderID, returnID string) (store.Return, error)
	ReturnByNumber(ctx context.Context, number string) (store.Return, error)
	OrderDetails(ctx context.Context, orderID string) (store.OrderDetails, error)
	Warehouses(ctx context.Context) ([]store.Warehouse, error)
	Customer(ctx context.Context, id string) (store.Customer, error)
	ReceiveReturn(ctx context.Context, orderID, returnID string, version int, by store.Customer, mail func(store.Return) store.Mail) (store.Return, error)
	InspectReturn(ctx context.Context, orderID, returnID string, version int, by store.Customer, in store.Inspection) (store.Return, error)
	RefundReturn(ctx context.Context, orderID, returnID string, version int, how store.ReturnRefund, by store.Customer, refunder store.Refunder, mail func(store.Refund, store.Order) *store.Mail) (store.Return, error)
	PreviewReturnRefund(ctx context.Context, orderID, returnID string, version int, how store.ReturnRefund) (store.Refund, store.OrderDetails, error)
}

// AdminReturns serves /admin/returns and each return's page under its order.
type AdminReturns struct {
	Store   AdminReturnStore
	Refunds CardRefunds // a return's card part, through the provider that took it
}

// List is the returns in one status (?status=, requested by default).
// ?number= goes to the return of that number, as typed from a parcel.
func (h *AdminReturns) List(c *fiber.Ctx) error {
	data, status := views.AdminReturnList{}, fiber.StatusOK
	if c.Context().QueryArgs().Has("number") {
		data.Number = strings.ToUpper(strings.TrimSpace(c.Query("number")))
		r, err := h.Store.ReturnByNumber(c.UserContext(), data.Number)
		switch {
		case err == nil:
			return page.Redirect(c, paths.AdminReturn(r.OrderID, r.ID))
		case !errors.Is(err, store.ErrNotFound):
			return err
		case data.Number == "":
			status, data.NumberError = fiber.StatusUnprocessableEntity, page.T(c, "admin.returns.err.number_empty")
		default:
			status, data.NumberError = fiber.StatusNotFound, page.T(c, "admin.returns.err.number_unknown", "Number", data.Number)
		}
	}
	st := store.ReturnStatus(c.Query("status", string(store.ReturnRequested)))
	known := false
	for _, s := range store.ReturnStatuses {
		known = known || s == st
	}
	if !known {
		return page.BadRequest(page.T(c, "admin.returns.err.status"))
	}
	list, err := h.Store.ReturnsByStatus(c.UserContext(), st, adminPageSize, c.Query("after"))
	if err != nil {
		return err
	}
	data.Status, data.Returns = st, list.Items
	data.NextURL = paths.More(paths.AdminReturns, list.Next, "status", string(st))
	return page.Render(c, status, page.View{
		Title: page.T(c, "admin.returns.title"), Page: page.Full(views.AdminReturnsView, data), Partial: views.AdminReturnRows(data),
	})
}

// ids are the order's and the return's ids of the path.
func returnIDs(c *fiber.Ctx) (orderID, returnID string, err error) {
	if orderID, err = pathID(c, "id", "error.not_found.return"); err != nil {
		return "", "", err
	}
	returnID, err = pathID(c, "rid", "error.not_found.return")
	return orderID, returnID, err
}

// render shows the return as it is now, with why the last step was refused.
func (h *AdminReturns) render(c *fiber.Ctx, status int, problem string, errs views.FieldErrors) error {
	orderID, returnID, err := returnIDs(c)
	if err != nil {
		return err
	}
	var (
		r  store.Return
		d  store.OrderDetails
		ws []store.Warehouse
	)
	g, ctx := errgroup.WithContext(c.UserContext())
	g.Go(func() (err error) {
		r, err = h.Store.OrderReturn(ctx, orderID, returnID)
		return notFoundAs(err, "error.not_found.return")
	})
	g.Go(func() (err error) {
		d, err = h.Store.OrderDetails(ctx, orderID)
		return notFoundAs(err, "error.not_found.return")
	})
	g.Go(func() (err error) { ws, err = h.Store.Warehouses(ctx); return err })
	if err := g.Wait(); err != nil {
		return err
	}
	for _, numbered := range d.Returns {
		if numbered.ID == r.ID {
			r.Number = numbered.Number // numbered by its place if it is older than numbers
		}
	}
	data := views.AdminReturnPage{Return: r, Order: d.Order, Warehouses: ws, Error: problem, Errors: errs, CSRF: page.CSRFToken(c)}
	// The refund offers first the warehouse the parcel was sent to, or for
	// a return from before that, the one the first returned line left from.
	data.Restock = r.SendTo.ID
	for _, it := range d.Items {
		if data.Restock == "" && len(r.Lines) > 0 && it.ProductID == r.Lines[0].ProductID && len(it.Allocations) > 0 {
			data.Restock = it.Allocations[0].WarehouseID
		}
	}
	return page.Render(c, status, page.View{Title: page.T(c, "admin.returns.of_order", "Order", d.Order.Label()), Page: page.Full(views.AdminReturnView, data)})
}

// Show is one return.
func (h *AdminReturns) Show(c *fiber.Ctx) error { return h.render(c, fiber.StatusOK, "", nil) }

// step reads what every step's form carries: the staff member and the
// version of the return they saw.
func (h *AdminReturns) step(c *fiber.Ctx) (by store.Customer, orderID, returnID string, version int, err error) {
	by, ok := page.StaffMember(c)
	if !ok {
		return by, "", "", 0, page.Forbidden(page.T(c, "admin.returns.err.staff_only"))
	}
	if orderID, returnID, err = returnIDs(c); err != nil {
		return by, "", "", 0, err
	}
	version, err = strconv.Atoi(page.Field(c, "version"))
	if err != nil || version < 1 {
		return by, "", "", 0, page.BadRequest(page.T(c, "admin.returns.err.version"))
	}
	return by, orderID, returnID, version, nil
}

// refused maps a step the store refused to the page as it is now: 409 when
// someone else moved the return first, 422 for what was sent.
func (h *AdminReturns) refused(c *fiber.Ctx, err error, errs views.FieldErrors) error {
	switch {
	case errors.Is(err, store.ErrConflict), errors.Is(err, store.ErrReturnStep):
		return h.render(c, fiber.StatusConflict, page.T(c, "admin.returns.err.conflict"), nil)
	case errors.Is(err, store.ErrBadReturn):
		return h.render(c, fiber.StatusUnprocessableEntity, page.T(c, "admin.returns.err.verdicts"), errs)
	}
	return notFoundAs(err, "error.not_found.return")
}

// Receive marks a requested return received and mails the customer so.
func (h *AdminReturns) Receive(c *fiber.Ctx) error {
	by, orderID, returnID, version, err := h.step(c)
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	r, err := h.Store.OrderReturn(ctx, orderID, returnID)
	if err != nil {
		return notFoundAs(err, "error.not_found.return")
	}
	to := r.Buyer.Email
	if to == "" {
		cust, err := h.Store.Customer(ctx, r.CustomerID)
		if err != nil {
			return err
		}
		to = cust.Email
	}
	if _, err := h.Store.ReceiveReturn(ctx, orderID, returnID, version, by, func(r store.Return) store.Mail { return mail.ReturnReceived(r, to) }); err != nil {
		return h.refused(c, err, nil)
	}
	page.Written(c, "order", orderID, "return", returnID)
	page.Flash(c, views.FlashSuccess, page.T(c, "admin.returns.received"))
	return page.Redirect(c, paths.AdminReturn(orderID, returnID))
}

// Inspect records a verdict and a note on each line.
func (h *AdminReturns) Inspect(c *fiber.Ctx) error {
	by, orderID, returnID, version, err := h.step(c)
	if err != nil {
		return err
	}
	r, err := h.Store.OrderReturn(c.UserContext(), orderID, returnID)
	if err != nil {
		return notFoundAs(err, "error.not_found.return")
	}
	in := store.Inspection{}
	errs := views.FieldErrors{}
	for i := range r.Lines {
		v := store.ReturnVerdict(page.Field(c, "verdict-"+strconv.Itoa(i)))
		if v != store.VerdictAccepted && v != store.VerdictRejected {
			errs[""] = page.T(c, "admin.returns.err.verdict")
		}
		in.Verdicts = append(in.Verdicts, v)
		note := formTextIn(c.UserContext(), errs, "note", page.Field(c, "note-"+strconv.Itoa(i)), oneLine)
		in.Notes = append(in.Notes, note)
	}
	if msg, ok := errs["note"]; ok {
		errs[""] = page.T(c, "admin.returns.err.note", "Problem", msg)
	}
	if len(errs) > 0 {
		return h.render(c, fiber.StatusUnprocessableEntity, page.T(c, "admin.returns.err.plain"), errs)
	}
	r, err = h.Store.InspectReturn(c.UserContext(), orderID, returnID, version, by, in)
	if err != nil {
		return h.refused(c, err, views.FieldErrors{"": page.T(c, "admin.returns.err.verdicts")})
	}
	page.Written(c, "order", orderID, "return", returnID)
	msg := page.T(c, "admin.returns.inspected_none")
	if r.Status == store.ReturnInspected {
		msg = page.T(c, "admin.returns.inspected", "Amount", lang.Money(c.UserContext(), r.Accepted()))
	}
	page.Flash(c, views.FlashSuccess, msg)
	return page.Redirect(c, paths.AdminReturn(orderID, returnID))
}

// Refund refunds the accepted lines and restocks them at the warehouse
// chosen, with delivery when staff tick "Refund delivery too" (a return
// does not give it back otherwise).
func (h *AdminReturns) Refund(c *fiber.Ctx) error {
	by, orderID, returnID, version, err := h.step(c)
	if err != nil {
		return err
	}
	w := page.Field(c, "warehouse")
	if !store.ValidID(w) {
		return h.render(c, fiber.StatusUnprocessableEntity, page.T(c, "admin.returns.err.warehouse"), views.FieldErrors{"warehouse": page.T(c, "admin.returns.err.choose_warehouse")})
	}
	how := store.ReturnRefund{Warehouse: w, Shipping: page.Field(c, "shipping") == "1"}
	if page.Field(c, "confirm") != "yes" {
		preview, d, err := h.Store.PreviewReturnRefund(c.UserContext(), orderID, returnID, version, how)
		if err != nil {
			return h.returnRefundRefused(c, orderID, returnID, err)
		}
		return h.confirmRefund(c, d, returnID, version, how, preview)
	}
	r, err := h.Store.RefundReturn(c.UserContext(), orderID, returnID, version, how, by, h.Refunds, mail.ReturnRefunded)
	if err != nil {
		return h.returnRefundRefused(c, orderID, returnID, err)
	}
	page.Written(c, "order", orderID, "return", returnID)
	page.Flash(c, views.FlashSuccess, page.T(c, "admin.returns.refunded", "Amount", lang.Money(c.UserContext(), r.Refunded)))
	return page.Redirect(c, paths.AdminReturn(orderID, returnID))
}

// confirmRefund asks staff to confirm a return's refund: what it gives
// back, to which tender, and where the units go; a warehouse not in the
// list is refused at its field, as the refund itself would be.
func (h *AdminReturns) confirmRefund(c *fiber.Ctx, d store.OrderDetails, returnID string, version int, how store.ReturnRefund, preview store.Refund) error {
	orderID := d.Order.ID
	ws, err := h.Store.Warehouses(c.UserContext())
	if err != nil {
		return err
	}
	inv, _ := d.Invoice()
	data := views.AdminRefundConfirm{Order: d.Order, Refund: preview, Payments: inv.Payments,
		Action: paths.AdminReturnRefund(orderID, returnID), Back: paths.AdminReturn(orderID, returnID), CSRF: page.CSRFToken(c),
		Fields: []views.FormField{{Name: "version", Value: strconv.Itoa(version)}, {Name: "warehouse", Value: how.Warehouse}}}
	if how.Shipping {
		data.Fields = append(data.Fields, views.FormField{Name: "shipping", Value: "1"})
	}
	for _, w := range ws {
		if w.ID == how.Warehouse {
			data.RestockName = w.Name
		}
	}
	if data.RestockName == "" {
		return h.render(c, fiber.StatusUnprocessableEntity, page.T(c, "admin.returns.err.warehouse"), views.FieldErrors{"warehouse": page.T(c, "admin.returns.err.no_warehouse")})
	}
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "admin.refunds.confirm_page", "Order", d.Order.Label()), Page: page.Full(views.AdminRefundConfirmView, data)})
}

// returnRefundRefused answers a return's refund the store would not plan
// or make, on the return's page as it is now.
func (h *AdminReturns) returnRefundRefused(c *fiber.Ctx, orderID, returnID string, err error) error {
	switch {
	case errors.Is(err, store.ErrShippingRefunded), errors.Is(err, store.ErrNoShipping):
		return h.render(c, fiber.StatusConflict, page.T(c, "admin.refunds.err.shipping_refunded"), nil)
	case errors.Is(err, store.ErrNotFound):
		// A missing return is a 404; a return that is there means the
		// warehouse was unknown.
		if _, rerr := h.Store.OrderReturn(c.UserContext(), orderID, returnID); rerr != nil {
			return notFoundAs(rerr, "error.not_found.return")
		}
		return h.render(c, fiber.StatusUnprocessableEntity, page.T(c, "admin.returns.err.warehouse"), views.FieldErrors{"warehouse": page.T(c, "admin.returns.err.no_warehouse")})
	case errors.Is(err, store.ErrRefundCard):
		return h.render(c, fiber.StatusBadGateway, page.T(c, "admin.returns.err.card"), nil)
	case errors.Is(err, store.ErrRefundLines), errors.Is(err, store.ErrRefundExceedsCharge):
		return h.render(c, fiber.StatusConflict, page.T(c, "admin.returns.err.refunded_otherwise"), nil)
	}
	return h.refused(c, err, nil)
}
