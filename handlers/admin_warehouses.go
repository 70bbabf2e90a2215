package handlers

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/sync/errgroup"

	"shop/store"
	"shop/views"
	"shop/web/page"
)

// WarehouseStore is what the admin warehouse pages read.
type WarehouseStore interface {
	Warehouses(ctx context.Context) ([]store.Warehouse, error)
	Warehouse(ctx context.Context, id string) (store.Warehouse, error)
	WarehouseStock(ctx context.Context, warehouseID string, limit int, cursor string) (store.Page[store.StockLevel], error)
}

const inventoryPageSize = 25

// AdminWarehouses serves /admin/warehouses.
type AdminWarehouses struct {
	Store WarehouseStore
}

// Home is the staff console's front page.
func (h *AdminWarehouses) Home(c *fiber.Ctx) error {
	return page.Render(c, fiber.StatusOK, page.View{Title: "Staff console", Page: views.AdminHome})
}

// List shows every warehouse.
func (h *AdminWarehouses) List(c *fiber.Ctx) error {
	ws, err := h.Store.Warehouses(c.UserContext())
	if err != nil {
		return err
	}
	return page.Render(c, fiber.StatusOK, page.View{Title: "Warehouses", Page: page.Full(views.WarehousesView, views.WarehouseList{Warehouses: ws})})
}

// Show is one warehouse with a page of its inventory; htmx asks for the next
// page's rows only.
func (h *AdminWarehouses) Show(c *fiber.Ctx) error {
	id, err := pathID(c, "id", "That warehouse")
	if err != nil {
		return err
	}
	cursor := c.Query("after")
	var (
		w     store.Warehouse
		stock store.Page[store.StockLevel]
	)
	g, ctx := errgroup.WithContext(c.UserContext())
	g.Go(func() (err error) { w, err = h.Store.Warehouse(ctx, id); return notFoundAs(err, "That warehouse") })
	g.Go(func() (err error) {
		stock, err = h.Store.WarehouseStock(ctx, id, inventoryPageSize, cursor)
		return err
	})
	if err := g.Wait(); err != nil {
		return err
	}
	data := views.WarehousePage{Warehouse: w, Stock: stock.Items}
	if stock.Next != "" {
		data.NextURL = withQuery("/admin/warehouses/"+id, "after", stock.Next)
	}
	return page.Render(c, fiber.StatusOK, page.View{Title: w.Name, Page: page.Full(views.WarehouseView, data), Partial: views.InventoryRows(data)})
}
