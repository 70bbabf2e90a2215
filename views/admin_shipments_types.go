package views

import (
	"strings"
	"time"

	"shop/store"
	"shop/store/carrier"
)

// AdminShipmentPage is one shipment: its items, what staff can do next and
// its history.
type AdminShipmentPage struct {
	Shipment  store.Shipment
	Warehouse store.Warehouse
	OrderID   string
	Now       time.Time // the shop's clock: is the last change still undoable
	Error     string    // why the last action was refused
	Ship      ShipForm
	CSRF      string
}

// ShipForm is the carrier and tracking number staff typed to ship, with
// what is wrong with them.
type ShipForm struct {
	Carrier, Tracking string
	Errors            FieldErrors
}

// ShipmentStepForm is one change staff ask of a shipment: where it goes
// and, to ship, with which carrier and number; Version is what they saw.
// Back says where to return: "order" for the order page, else the
// shipment's.
type ShipmentStepForm struct {
	OrderID, ShipmentID string
	To                  store.ShipmentStatus
	Carrier, Tracking   string
	Version             int
	Back                string
}

// AdminShipmentConfirm asks before a shipment changes.
type AdminShipmentConfirm struct {
	Shipment store.Shipment
	Step     ShipmentStepForm
	CSRF     string
}

// AdminShipmentList is a page of every warehouse's shipments in a status.
type AdminShipmentList struct {
	Status     store.ShipmentStatus
	Shipments  []store.Shipment
	Warehouses map[string]string // id -> name
	NextURL    string
}

// AdminPackingSlip is what goes in the parcel: the order's number, the
// items and where it goes.
type AdminPackingSlip struct {
	Order     store.Order
	Shipment  store.Shipment
	Warehouse store.Warehouse
}

// ShipmentStatuses are the statuses in their order, for the list's tabs.
var ShipmentStatuses = []store.ShipmentStatus{store.ShipmentPending, store.ShipmentShipped, store.ShipmentDelivered}

// shipmentListName is a status's tab: what staff do with those shipments.
func shipmentListName(s store.ShipmentStatus) string {
	switch s {
	case store.ShipmentPending:
		return "To pack"
	case store.ShipmentShipped:
		return "Shipped"
	case store.ShipmentDelivered:
		return "Delivered"
	}
	return string(s)
}

// stepLabel says what a change does, on its button.
func stepLabel(from, to store.ShipmentStatus) string {
	switch {
	case to == store.ShipmentShipped && from == store.ShipmentPending:
		return "Mark shipped"
	case to == store.ShipmentDelivered:
		return "Mark delivered"
	case to == store.ShipmentShipped:
		return "Back to shipped (not delivered)"
	case to == store.ShipmentPending:
		return "Back to packing (not shipped)"
	}
	return "Change to " + string(to)
}

// stepsFrom are the changes a shipment in status s can take: forward
// first, then back.
func stepsFrom(s store.ShipmentStatus) []store.ShipmentStatus {
	switch s {
	case store.ShipmentPending:
		return []store.ShipmentStatus{store.ShipmentShipped}
	case store.ShipmentShipped:
		return []store.ShipmentStatus{store.ShipmentDelivered, store.ShipmentPending}
	case store.ShipmentDelivered:
		return []store.ShipmentStatus{store.ShipmentShipped}
	}
	return nil
}

// changeText is a history line: what a change did.
func changeText(ch store.ShipmentChange) string {
	what := "Marked " + string(ch.To)
	switch {
	case ch.Undoes != "":
		what = "Undid the change to " + string(ch.From) + ": back to " + string(ch.To)
	case ch.To == store.ShipmentPending || (ch.To == store.ShipmentShipped && ch.From == store.ShipmentDelivered):
		what = "Moved back to " + string(ch.To)
	}
	if ch.To == store.ShipmentShipped && ch.From == store.ShipmentPending && ch.Tracking != "" {
		what += " with " + carrier.Name(ch.Carrier) + " " + ch.Tracking
	}
	return what
}

// carrierName is the carrier's name for its id.
func carrierName(id string) string { return carrier.Name(id) }

// trackingURL is the carrier's tracking page for the shipment, "" for none.
func trackingURL(sh store.Shipment) string { return carrier.TrackingURL(sh.Carrier, sh.Tracking) }

// undoMinutes is the undo window in words.
func undoMinutes() string { return itoa(int(store.UndoWindow / time.Minute)) }

// lower is a label in running text ("Yes, mark shipped").
func lower(s string) string { return strings.ToLower(s[:1]) + s[1:] }

// warehouseName is a warehouse's name, its id when it is gone.
func warehouseName(names map[string]string, id string) string {
	if n, ok := names[id]; ok {
		return n
	}
	return id
}

// confirmLead says what a change will do, for the page that asks.
func confirmLead(p AdminShipmentConfirm) string {
	return "Shipment " + p.Shipment.ID + " is " + string(p.Shipment.Status) + " and becomes " + string(p.Step.To)
}

func undoNote() string { return "You can undo it for " + undoMinutes() + " minutes afterwards." }
