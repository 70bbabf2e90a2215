package handlers

import (
	"context"
	"errors"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
)

// AdminShipmentStore is what the staff shipment page reads.
type AdminShipmentStore interface {
	Shipment(ctx context.Context, shipmentID string) (store.Shipment, error)
	Warehouse(ctx context.Context, id string) (store.Warehouse, error)
}

// AdminShipments serves /admin/shipments.
type AdminShipments struct {
	Store AdminShipmentStore
}

// Show is one shipment with its items (access pattern 12) and the
// warehouse it leaves from.
func (h *AdminShipments) Show(c *fiber.Ctx) error {
	id, err := pathID(c, "id", "That shipment")
	if err != nil {
		return err
	}
	sh, err := h.Store.Shipment(c.UserContext(), id)
	if err != nil {
		return notFoundAs(err, "That shipment")
	}
	w, err := h.Store.Warehouse(c.UserContext(), sh.WarehouseID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		w = store.Warehouse{ID: sh.WarehouseID, Name: sh.WarehouseID} // since closed: show the id
	case err != nil:
		return err
	}
	return page.Render(c, fiber.StatusOK, page.View{Title: "Shipment " + id, Page: page.Full(views.AdminShipmentView, views.AdminShipmentPage{Shipment: sh, Warehouse: w})})
}
