package views

import (
	"shop/store"
)

// AdminShipmentPage is one shipment and its items.
type AdminShipmentPage struct {
	Shipment  store.Shipment
	Warehouse store.Warehouse
}
