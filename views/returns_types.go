package views

import (
	"context"
	"strconv"
	"strings"
	"time"

	"shop/store"
	"shop/views/lang"
)

// OrderReturns is the returns part of a customer's order page: the returns
// asked so far and, while the window is open, the form to ask another.
type OrderReturns struct {
	// ClosesAt is when the window closes; zero while the order has not
	// shipped.
	ClosesAt time.Time
	// Closed: the window has passed. Open: it has not, and some units are
	// left to ask back.
	Closed, Open bool
	Lines        []ReturnFormLine
	Reasons      []string
	Reason       string
	Comment      string
	Errors       FieldErrors
	CSRF         string
}

// ReturnFormLine is one order line on the return form.
type ReturnFormLine struct {
	Line  string // the order line: product id, and drop id after a space
	Name  string
	Left  int    // units that may still be asked back
	Typed string // what was typed, after a refused form
}

// AdminReturnList is the returns in one status.
type AdminReturnList struct {
	Status  store.ReturnStatus
	Returns []store.Return
	NextURL string
	// Number is what was typed in "find a return by its number", and
	// NumberError why it found none.
	Number, NumberError string
}

// returnListLabel names a return in staff's lists: its number, or for a
// return from before numbers (listed without its order) its order's.
func returnListLabel(r store.Return) string {
	if r.Number != "" {
		return r.Number
	}
	return r.OrderLabel()
}

// AdminReturnPage is one return with what staff can do next.
type AdminReturnPage struct {
	Return     store.Return
	Order      store.Order
	Warehouses []store.Warehouse
	// Restock is the warehouse the refund form offers first: the one the
	// first line left from.
	Restock string
	Error   string
	Errors  FieldErrors
	CSRF    string
}

// WarehouseName is a warehouse's name, its id if unknown.
func (p AdminReturnPage) WarehouseName(id string) string {
	for _, w := range p.Warehouses {
		if w.ID == id {
			return w.Name
		}
	}
	return id
}

// returnDay is a step's day as the customer reads it, in the shop's zone,
// without the year: "22 Nov", "11월 22일".
func returnDay(ctx context.Context, t time.Time) string {
	t = InZone(t, Zone(ctx))
	if lang.From(ctx) == lang.Korean {
		return t.Format("1월 2일")
	}
	return strings.TrimSuffix(lang.Date(ctx, t), " "+strconv.Itoa(t.Year()))
}

var returnStatusIDs = map[store.ReturnStatus]string{
	store.ReturnRequested: "returns.status.requested",
	store.ReturnReceived:  "returns.status.received",
	store.ReturnInspected: "returns.status.inspected",
	store.ReturnRejected:  "returns.status.rejected",
	store.ReturnRefunded:  "returns.status.refunded",
}

func returnStatusLabel(ctx context.Context, s store.ReturnStatus) string {
	if id, ok := returnStatusIDs[s]; ok {
		return lang.T(ctx, id)
	}
	return string(s)
}

// The reasons are kept in English (store.ReturnReasons); the form shows
// each in the customer's language, the console in the staff member's.
var returnReasonIDs = map[string]string{
	"Changed my mind":  "returns.reason.changed_mind",
	"Arrived damaged":  "returns.reason.damaged",
	"Not as described": "returns.reason.not_as_described",
	"Wrong item sent":  "returns.reason.wrong_item",
	"Other":            "returns.reason.other",
}

func returnReasonLabel(ctx context.Context, r string) string {
	if id, ok := returnReasonIDs[r]; ok {
		return lang.T(ctx, id)
	}
	return r
}

// returnBadge is a return's status as staff read it, in the language of
// ctx.
func returnBadgeIn(ctx context.Context, s store.ReturnStatus) statusBadge {
	switch s {
	case store.ReturnRequested:
		return statusBadge{lang.T(ctx, "admin.returnsx.badge.requested"), "mark"}
	case store.ReturnReceived:
		return statusBadge{lang.T(ctx, "admin.returnsx.badge.received"), "mark"}
	case store.ReturnInspected:
		return statusBadge{lang.T(ctx, "admin.returnsx.badge.inspected"), "mark"}
	case store.ReturnRefunded:
		return statusBadge{lang.T(ctx, "admin.returnsx.badge.refunded"), "ins"}
	case store.ReturnRejected:
		return statusBadge{lang.T(ctx, "admin.returnsx.badge.rejected"), "del"}
	}
	return statusBadge{string(s), ""}
}

// returnStatusTitles name the statuses of the returns list's tabs.
var returnStatusTitles = map[store.ReturnStatus]string{
	store.ReturnRequested: "admin.returnsx.title.requested",
	store.ReturnReceived:  "admin.returnsx.title.received",
	store.ReturnInspected: "admin.returnsx.title.inspected",
	store.ReturnRefunded:  "admin.returnsx.title.refunded",
	store.ReturnRejected:  "admin.returnsx.title.rejected",
}

func returnStatusTitleIn(ctx context.Context, s store.ReturnStatus) string {
	if id, ok := returnStatusTitles[s]; ok {
		return lang.T(ctx, id)
	}
	return string(s)
}

func verdictLabelIn(ctx context.Context, v store.ReturnVerdict) string {
	switch v {
	case store.VerdictAccepted:
		return lang.T(ctx, "admin.returnsx.verdict.accepted")
	case store.VerdictRejected:
		return lang.T(ctx, "admin.returnsx.verdict.rejected")
	}
	return lang.T(ctx, "admin.returnsx.verdict.none")
}

func lineMoney(l store.ReturnLine, currency string) store.Money {
	return store.Money{Amount: l.Price * int64(l.Quantity), Currency: currency}
}

// verdictWords is what staff found of a line, for its customer: " —
// Accepted: unopened"; "" before the inspection. The note is staff's, as
// they typed it.
func verdictWords(ctx context.Context, l store.ReturnLine) string {
	if l.Verdict == "" {
		return ""
	}
	w := " — " + lang.T(ctx, "returns.verdict.rejected")
	if l.Verdict == store.VerdictAccepted {
		w = " — " + lang.T(ctx, "returns.verdict.accepted")
	}
	if l.Note != "" {
		w += ": " + l.Note
	}
	return w
}

// ReturnSlip is the slip that goes in a return's parcel.
type ReturnSlip struct {
	Return store.Return
	Order  store.Order
}

// From is who sends the parcel: the order's address, named for the buyer
// when it names nobody.
func (p ReturnSlip) From() store.Address {
	a := p.Order.ShipTo
	if a.Name == "" {
		a.Name = p.Return.Buyer.Name
	}
	return a
}

// returnTo is the warehouse's address as a parcel is addressed to it.
func returnTo(w store.Warehouse) store.Address {
	a := w.Address
	a.Name = ShopName + ", " + w.Name
	return a
}
