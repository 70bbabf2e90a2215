package views

import (
	"context"
	"time"

	"shop/store"
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

// returnDay is a step's day as the customer reads it, in the shop's zone:
// "22 Nov".
func returnDay(ctx context.Context, t time.Time) string {
	return InZone(t, Zone(ctx)).Format("2 Jan")
}

func returnStatusLabel(s store.ReturnStatus) string {
	switch s {
	case store.ReturnRequested:
		return "Return requested"
	case store.ReturnReceived:
		return "Received"
	case store.ReturnInspected:
		return "Inspected, refund on its way"
	case store.ReturnRejected:
		return "Not accepted"
	case store.ReturnRefunded:
		return "Refunded"
	}
	return string(s)
}

func returnBadge(s store.ReturnStatus) statusBadge {
	switch s {
	case store.ReturnRequested:
		return statusBadge{"Requested", "mark"}
	case store.ReturnReceived:
		return statusBadge{"Received, to inspect", "mark"}
	case store.ReturnInspected:
		return statusBadge{"Inspected, to refund", "mark"}
	case store.ReturnRefunded:
		return statusBadge{"Refunded", "ins"}
	case store.ReturnRejected:
		return statusBadge{"Rejected", "del"}
	}
	return statusBadge{string(s), ""}
}

func returnStatusTitle(s store.ReturnStatus) string {
	switch s {
	case store.ReturnRequested:
		return "Requested"
	case store.ReturnReceived:
		return "Received"
	case store.ReturnInspected:
		return "Inspected"
	case store.ReturnRefunded:
		return "Refunded"
	case store.ReturnRejected:
		return "Rejected"
	}
	return string(s)
}

func verdictLabel(v store.ReturnVerdict) string {
	switch v {
	case store.VerdictAccepted:
		return "Accepted"
	case store.VerdictRejected:
		return "Not accepted"
	}
	return "Not inspected yet"
}

func lineMoney(l store.ReturnLine, currency string) store.Money {
	return store.Money{Amount: l.Price * int64(l.Quantity), Currency: currency}
}

// orderLabelOf names a return's order as staff read it: its number, or its
// id for an order from before numbers.
func orderLabelOf(r store.Return) string {
	if r.OrderNumber != "" {
		return r.OrderNumber
	}
	return r.OrderID
}

// verdictWords is what staff found of a line, for its customer: " —
// Accepted: unopened"; "" before the inspection.
func verdictWords(l store.ReturnLine) string {
	if l.Verdict == "" {
		return ""
	}
	w := " — " + verdictLabel(l.Verdict)
	if l.Note != "" {
		w += ": " + l.Note
	}
	return w
}
