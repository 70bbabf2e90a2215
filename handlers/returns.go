package handlers

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/views/mail"
	"shop/web/paths"
)

// ReturnStore is what the customer's return form needs beside the order.
type ReturnStore interface {
	Now() time.Time
	ReturnClosesAt(d store.OrderDetails) time.Time
	RequestReturn(ctx context.Context, orderID, customerID string, req store.ReturnRequest) ([]store.Return, error)
	// The order's page prints the seller on its invoice.
	SellerReader
}

// SellerReader reads who sells, as documents print it.
type SellerReader interface {
	Seller(ctx context.Context) (store.Seller, error)
}

// maxReturnUnits bounds a quantity typed on the return form (an order line
// holds at most 99).
const maxReturnUnits = 99

// maxReturnFormLines bounds the lines a return form carries (an order has
// far fewer).
const maxReturnFormLines = 100

// errReturnForm is a return form that does not parse.
var errReturnForm = errors.New("the return form is malformed")

// parseReturnLines reads the form's order lines ("product" or "product
// drop") and the quantities typed beside them; an empty quantity is 0.
func parseReturnLines(lines, qtys []string) ([]store.ReturnAsk, error) {
	if len(lines) != len(qtys) || len(lines) > maxReturnFormLines {
		return nil, errReturnForm
	}
	asks := make([]store.ReturnAsk, 0, len(lines))
	for i, l := range lines {
		product, drop, hasDrop := strings.Cut(l, " ")
		if !store.ValidID(product) || (hasDrop && !store.ValidID(drop)) {
			return nil, errReturnForm
		}
		q := strings.TrimSpace(qtys[i])
		n := 0
		if q != "" {
			var err error
			if n, err = strconv.Atoi(q); err != nil || n < 0 || n > maxReturnUnits {
				return nil, errReturnForm
			}
		}
		asks = append(asks, store.ReturnAsk{ProductID: product, DropID: drop, Quantity: n})
	}
	return asks, nil
}

// returnsPart is the returns part of the order page, the form filled with
// what was typed (nil: a fresh form).
func returnsPart(c *fiber.Ctx, st ReturnStore, d store.OrderDetails, typed map[string]string) views.OrderReturns {
	r := views.OrderReturns{ClosesAt: st.ReturnClosesAt(d), Reasons: store.ReturnReasons, CSRF: page.CSRFToken(c)}
	if r.ClosesAt.IsZero() {
		return r
	}
	r.Closed = !st.Now().Before(r.ClosesAt)
	for _, it := range d.Items {
		left := store.ReturnableOf(d, it)
		if left <= 0 {
			continue
		}
		line := it.ProductID
		if it.DropID != "" {
			line += " " + it.DropID
		}
		r.Lines = append(r.Lines, views.ReturnFormLine{Line: line, Name: it.NameIn(string(page.Lang(c))), Left: left, Typed: typed[line]})
	}
	r.Open = !r.Closed && len(r.Lines) > 0
	return r
}

// RequestReturn takes the order page's return form. What cannot be asked
// (nothing chosen, no reason, more than is left, the window closed) comes
// back to the order page with a 422 or 409 and what was typed; nothing is
// written.
func (h *Orders) RequestReturn(c *fiber.Ctx) error {
	v := page.Viewer(c)
	if !v.SignedIn() {
		return page.Redirect(c, paths.LoginThen(paths.Orders))
	}
	id, err := pathID(c, "id", "orders.not_found")
	if err != nil {
		return err
	}
	// The form's lines are line-0, qty-0, line-1, qty-1 and so on.
	args := c.Request().PostArgs()
	var lines, qtys []string
	for i := 0; i <= maxReturnFormLines && args.Has("line-"+strconv.Itoa(i)); i++ {
		lines = append(lines, string(args.Peek("line-"+strconv.Itoa(i))))
		qtys = append(qtys, string(args.Peek("qty-"+strconv.Itoa(i))))
	}
	asks, perr := parseReturnLines(lines, qtys)
	errs := views.FieldErrors{}
	req := store.ReturnRequest{Lines: asks, Reason: strings.TrimSpace(page.Field(c, "reason")), Comment: formTextIn(c.UserContext(), errs, "comment", page.Field(c, "comment"), multiLine),
		Mail: mail.ReturnRequested(c.BaseURL())}
	total := 0
	for _, a := range asks {
		total += a.Quantity
	}
	switch {
	case perr != nil:
		return page.BadRequest(page.T(c, "returns.form_bad"))
	case len(errs) > 0:
	case total == 0:
		errs[""] = page.T(c, "returns.choose_items")
	case req.Reason == "":
		errs["reason"] = page.T(c, "returns.choose_reason")
	case len(req.Comment) > 500:
		errs["comment"] = page.T(c, "returns.comment_long")
	}
	status := fiber.StatusUnprocessableEntity
	if len(errs) == 0 {
		rs, err := h.Store.RequestReturn(c.UserContext(), id, v.ID, req)
		switch {
		case err == nil:
			return returnRequested(c, id, rs)
		case errors.Is(err, store.ErrReturnWindowClosed):
			errs[""] = page.T(c, "returns.window_closed")
		case errors.Is(err, store.ErrReturnTooMany):
			status, errs[""] = fiber.StatusConflict, page.T(c, "returns.too_many")
		case errors.Is(err, store.ErrConflict):
			status, errs[""] = fiber.StatusConflict, page.T(c, "returns.conflict")
		case errors.Is(err, store.ErrNotReturnable):
			errs[""] = page.T(c, "returns.not_shipped")
		case errors.Is(err, store.ErrBadReturn):
			errs[""] = page.T(c, "returns.bad")
		default:
			return notFoundAs(err, "orders.not_found")
		}
	}
	d, err := h.Store.OrderDetails(c.UserContext(), id)
	if err != nil {
		return notFoundAs(err, "orders.not_found")
	}
	if d.Order.CustomerID != v.ID {
		return page.NotFound("orders.not_found")
	}
	typed := map[string]string{}
	for i := range lines {
		typed[lines[i]] = qtys[i]
	}
	part := returnsPart(c, h.Store, d, typed)
	part.Reason, part.Comment, part.Errors = req.Reason, req.Comment, errs
	sel, err := h.Store.Seller(c.UserContext())
	if err != nil {
		return err
	}
	return page.Render(c, status, page.View{Title: page.T(c, "orders.order", "Number", d.Order.Label()), Page: page.Full(views.OrderView, views.OrderPage{Details: d, Loc: h.Store.Location(), Returns: part, Seller: sel})})
}

// returnRequested says which returns an ask became and goes to the first:
// one, or one for each warehouse the units go back to.
func returnRequested(c *fiber.Ctx, orderID string, rs []store.Return) error {
	numbers, written := make([]string, len(rs)), []any{"order", orderID}
	for i, r := range rs {
		numbers[i], written = r.Number, append(written, "return", r.ID)
	}
	page.Written(c, written...)
	msg := page.T(c, "returns.requested", "Number", rs[0].Number)
	if len(rs) > 1 {
		msg = page.T(c, "returns.requested_parts", "Numbers", strings.Join(numbers, ", "), "Parts", len(rs))
	}
	page.Flash(c, views.FlashSuccess, msg)
	return page.Redirect(c, paths.Order(orderID)+"#return-"+rs[0].ID)
}

// ReturnSlip is the printable slip of one of the customer's returns: its
// number, the address to send it to, what goes in the parcel.
func (h *Orders) ReturnSlip(c *fiber.Ctx) error {
	v, err := signedInFor(c, c.OriginalURL())
	if err != nil || !v.SignedIn() {
		return err
	}
	d, err := h.ownOrder(c, v)
	if err != nil {
		return err
	}
	rid, err := pathID(c, "rid", "returns.not_found")
	if err != nil {
		return err
	}
	i := slices.IndexFunc(d.Returns, func(r store.Return) bool { return r.ID == rid })
	if i < 0 {
		return page.NotFound("returns.not_found")
	}
	r := d.Returns[i]
	return page.Render(c, fiber.StatusOK, page.View{
		Title: page.T(c, "returns.slip.title", "Number", r.Number),
		Page:  page.Full(views.ReturnSlipView, views.ReturnSlip{Return: r, Order: d.Order}),
	})
}
