package views

import (
	"context"
	"time"

	"github.com/a-h/templ"

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
func shipmentListName(ctx context.Context, s store.ShipmentStatus) string {
	switch s {
	case store.ShipmentPending:
		return t(ctx, "admin.shipments.tab.pending") // packed: the queue before them is "to pack"
	case store.ShipmentShipped:
		return t(ctx, "admin.shipments.status.shipped")
	case store.ShipmentDelivered:
		return t(ctx, "admin.shipments.status.delivered")
	}
	return string(s)
}

// AdminShipmentWord is a status in running text ("is shipped",
// "becomes delivered").
func AdminShipmentWord(ctx context.Context, s store.ShipmentStatus) string {
	switch s {
	case store.ShipmentPending:
		return t(ctx, "admin.shipments.word.pending")
	case store.ShipmentShipped:
		return t(ctx, "admin.shipments.word.shipped")
	case store.ShipmentDelivered:
		return t(ctx, "admin.shipments.word.delivered")
	}
	return string(s)
}

// stepLabel says what a change does, on its button.
func stepLabel(ctx context.Context, from, to store.ShipmentStatus) string {
	switch {
	case to == store.ShipmentShipped && from == store.ShipmentPending:
		return t(ctx, "admin.shipments.mark_shipped")
	case to == store.ShipmentDelivered:
		return t(ctx, "admin.shipments.mark_delivered")
	case to == store.ShipmentShipped:
		return t(ctx, "admin.shipments.back_to_shipped")
	case to == store.ShipmentPending:
		return t(ctx, "admin.shipments.back_to_packing")
	}
	return t(ctx, "admin.shipments.change_to", "Status", AdminShipmentWord(ctx, to))
}

// adminConfirmStep asks whether to take a step, as the confirm page's title
// and button say it.
func adminConfirmStep(ctx context.Context, from, to store.ShipmentStatus) (title, yes string) {
	switch {
	case to == store.ShipmentShipped && from == store.ShipmentPending:
		return t(ctx, "admin.shipments.confirm.ship"), t(ctx, "admin.shipments.yes.ship")
	case to == store.ShipmentDelivered:
		return t(ctx, "admin.shipments.confirm.deliver"), t(ctx, "admin.shipments.yes.deliver")
	case to == store.ShipmentShipped:
		return t(ctx, "admin.shipments.confirm.back_to_shipped"), t(ctx, "admin.shipments.yes.back_to_shipped")
	case to == store.ShipmentPending:
		return t(ctx, "admin.shipments.confirm.back_to_packing"), t(ctx, "admin.shipments.yes.back_to_packing")
	}
	label := stepLabel(ctx, from, to)
	return label + "?", label
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
func changeText(ctx context.Context, ch store.ShipmentChange) string {
	to, from := AdminShipmentWord(ctx, ch.To), AdminShipmentWord(ctx, ch.From)
	switch {
	case ch.Undoes != "":
		return t(ctx, "admin.shipments.change.undid", "From", from, "To", to)
	case ch.To == store.ShipmentPending || (ch.To == store.ShipmentShipped && ch.From == store.ShipmentDelivered):
		return t(ctx, "admin.shipments.change.back", "To", to)
	case ch.To == store.ShipmentShipped && ch.From == store.ShipmentPending && ch.Tracking != "":
		return t(ctx, "admin.shipments.change.shipped_with", "Carrier", carrier.Name(ch.Carrier), "Tracking", ch.Tracking)
	}
	return t(ctx, "admin.shipments.change.marked", "To", to)
}

// carrierName is the carrier's name for its id.
func carrierName(id string) string { return carrier.Name(id) }

// trackingURL is the carrier's tracking page for the shipment, "" for none.
func trackingURL(sh store.Shipment) string { return carrier.TrackingURL(sh.Carrier, sh.Tracking) }

// undoMinutes is the undo window in words.
func undoMinutes() string { return itoa(int(store.UndoWindow / time.Minute)) }

// warehouseName is a warehouse's name, its id when it is gone.
func warehouseName(names map[string]string, id string) string {
	if n, ok := names[id]; ok {
		return n
	}
	return id
}

// adminConfirmWhat is the confirm page's sentence: what the change does, with the carrier and
// tracking number when it ships, and how long it can be undone.
func adminConfirmWhat(ctx context.Context, p AdminShipmentConfirm) templ.Component {
	args := []any{"Shipment", ShipmentName(ctx, p.Shipment, ""), "From", AdminShipmentWord(ctx, p.Shipment.Status),
		"To", AdminShipmentWord(ctx, p.Step.To), "Minutes", undoMinutes()}
	if p.Step.Tracking == "" {
		return tMarked(ctx, "admin.shipments.confirm_what", args...)
	}
	args = append(args, "Carrier", carrierName(p.Step.Carrier), "Tracking", Mark("code", "confirm-tracking", p.Step.Tracking))
	return tMarked(ctx, "admin.shipments.confirm_what_tracking", args...)
}

// adminConfirmTitle is the confirm page's question.
func adminConfirmTitle(ctx context.Context, p AdminShipmentConfirm) string {
	title, _ := adminConfirmStep(ctx, p.Shipment.Status, p.Step.To)
	return title
}

// adminConfirmYes is the confirm page's button.
func adminConfirmYes(ctx context.Context, p AdminShipmentConfirm) string {
	_, yes := adminConfirmStep(ctx, p.Shipment.Status, p.Step.To)
	return yes
}

// adminShipmentsEmpty says a status's list is empty.
func adminShipmentsEmpty(ctx context.Context, s store.ShipmentStatus) string {
	switch s {
	case store.ShipmentPending:
		return t(ctx, "admin.shipments.none.pending")
	case store.ShipmentShipped:
		return t(ctx, "admin.shipments.none.shipped")
	case store.ShipmentDelivered:
		return t(ctx, "admin.shipments.none.delivered")
	}
	return t(ctx, "admin.shipments.none.other", "Status", string(s))
}
