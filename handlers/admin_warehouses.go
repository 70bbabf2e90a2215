package handlers

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/sync/errgroup"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/web/paths"
)

// WarehouseStore is what the admin warehouse pages read and write.
type WarehouseStore interface {
	Warehouses(ctx context.Context) ([]store.Warehouse, error)
	Warehouse(ctx context.Context, id string) (store.Warehouse, error)
	WarehouseStock(ctx context.Context, warehouseID string, limit int, cursor string) (store.Page[store.StockLevel], error)
	WarehouseShipments(ctx context.Context, warehouseID string, limit int, cursor string) (store.Page[store.Shipment], error)
	StockAdjustments(ctx context.Context, warehouseID string, limit int, cursor string) (store.Page[store.StockAdjustment], error)
	Product(ctx context.Context, id string) (store.Product, error)
	ProductStock(ctx context.Context, productID string) ([]store.StockLevel, error)
	AdjustStock(ctx context.Context, p store.Product, w store.Warehouse, delta int, reason string, by store.Customer) (store.StockAdjustment, error)
	WarehouseInventory(ctx context.Context, warehouseID string, max int) ([]store.StockLevel, bool, error)
}

const (
	inventoryPageSize   = 25
	inventoryByNameMax  = 2000 // levels sorted by name at once; past it the page says so
	adminPageSize       = 25   // rows per page of the other admin lists
	recentAdjustments   = 5
	maxStockDelta       = 100_000
	maxStockReasonRunes = 200
)

// AdminWarehouses serves /admin/warehouses.
type AdminWarehouses struct {
	Store WarehouseStore
}

// List shows every warehouse.
func (h *AdminWarehouses) List(c *fiber.Ctx) error {
	ws, err := h.Store.Warehouses(c.UserContext())
	if err != nil {
		return err
	}
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "admin.warehouses.title"), Page: page.Full(views.WarehousesView, views.WarehouseList{Warehouses: ws})})
}

// Show is one warehouse with a page of its inventory, each product with an
// adjustment form, and the latest adjustments; htmx asks for the next page's
// rows only.
func (h *AdminWarehouses) Show(c *fiber.Ctx) error {
	id, err := pathID(c, "id", "error.not_found.warehouse")
	if err != nil {
		return err
	}
	cursor := c.Query("after")
	// By name (or filtered by name): the whole inventory sorted in memory;
	// else access pattern 14's pages, by product id.
	find := views.InventoryFilter{Query: strings.TrimSpace(c.Query("q")), ByName: c.Query("sort") != "id"}
	if utf8.RuneCountInString(find.Query) > 100 {
		return page.BadRequest(page.T(c, "admin.warehouses.err.filter"))
	}
	if find.Query != "" {
		find.ByName = true
	}
	if cursor != "" {
		find.ByName = false // a page of the id order
	}
	var (
		w      store.Warehouse
		stock  store.Page[store.StockLevel]
		recent store.Page[store.StockAdjustment]
	)
	g, ctx := errgroup.WithContext(c.UserContext())
	g.Go(func() (err error) {
		w, err = h.Store.Warehouse(ctx, id)
		return notFoundAs(err, "error.not_found.warehouse")
	})
	g.Go(func() (err error) {
		if find.ByName {
			stock.Items, find.Cut, err = h.Store.WarehouseInventory(ctx, id, inventoryByNameMax)
			stock.Items = inventoryByName(stock.Items, find.Query)
			return err
		}
		stock, err = h.Store.WarehouseStock(ctx, id, inventoryPageSize, cursor)
		return err
	})
	if cursor == "" || !page.IsHTMX(c) {
		g.Go(func() (err error) {
			recent, err = h.Store.StockAdjustments(ctx, id, recentAdjustments, "")
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	data := views.AdminWarehouseInventory{
		WarehousePage: views.WarehousePage{Warehouse: w, Stock: stock.Items},
		CSRF:          page.CSRFToken(c),
		Recent:        recent.Items,
		Filter:        find,
	}
	data.NextURL = paths.More(paths.AdminWarehouse(id), stock.Next, "sort", "id")
	return page.List(c, w.Name, views.WarehouseView, views.InventoryRows, data)
}

// Shipments is the warehouse's shipments tab (access pattern 13), a page at
// a time; htmx asks for the next page's rows only.
func (h *AdminWarehouses) Shipments(c *fiber.Ctx) error {
	w, shipments, err := warehouseTab(c, h.Store, h.Store.WarehouseShipments)
	if err != nil {
		return err
	}
	data := views.AdminWarehouseShipments{Warehouse: w, Shipments: shipments.Items}
	data.NextURL = paths.More(paths.AdminWarehouseShipments(w.ID), shipments.Next)
	return page.List(c, page.T(c, "admin.warehouses.shipments")+" · "+w.Name, views.AdminWarehouseShipmentsView, views.AdminShipmentRows, data)
}

// Adjustments is the warehouse's stock adjustments tab, newest first.
func (h *AdminWarehouses) Adjustments(c *fiber.Ctx) error {
	w, adjs, err := warehouseTab(c, h.Store, h.Store.StockAdjustments)
	if err != nil {
		return err
	}
	data := views.AdminWarehouseAdjustments{Warehouse: w, Adjustments: adjs.Items}
	data.NextURL = paths.More(paths.AdminWarehouseAdjustments(w.ID), adjs.Next)
	return page.List(c, page.T(c, "admin.warehouses.adjustments")+" · "+w.Name, views.AdminWarehouseAdjustmentsView, views.AdminAdjustmentRows, data)
}

// warehouseTab reads the warehouse of the path and the page of one of its
// lists after ?after= at once.
func warehouseTab[T any](c *fiber.Ctx, st WarehouseStore, list func(ctx context.Context, id string, limit int, cursor string) (store.Page[T], error)) (store.Warehouse, store.Page[T], error) {
	var (
		w     store.Warehouse
		items store.Page[T]
	)
	id, err := pathID(c, "id", "error.not_found.warehouse")
	if err != nil {
		return w, items, err
	}
	g, ctx := errgroup.WithContext(c.UserContext())
	g.Go(func() (err error) {
		w, err = st.Warehouse(ctx, id)
		return notFoundAs(err, "error.not_found.warehouse")
	})
	g.Go(func() (err error) { items, err = list(ctx, id, adminPageSize, c.Query("after")); return err })
	return w, items, g.Wait()
}

// parseStockChange checks an adjustment as typed: a whole number other than
// zero, and a reason (given back cleaned).
func parseStockChange(c *fiber.Ctx, deltaS, rawReason string) (int, string, views.FieldErrors) {
	errs := views.FieldErrors{}
	reason := formTextIn(c.UserContext(), errs, "reason", rawReason, oneLine)
	delta, err := strconv.Atoi(strings.TrimSpace(deltaS))
	switch {
	case strings.TrimSpace(deltaS) == "":
		errs["delta"] = page.T(c, "admin.warehouses.err.delta_empty")
	case err != nil:
		errs["delta"] = page.T(c, "admin.warehouses.err.delta_whole")
	case delta == 0:
		errs["delta"] = page.T(c, "admin.warehouses.err.delta_zero")
	case delta > maxStockDelta || delta < -maxStockDelta:
		errs["delta"] = page.T(c, "admin.warehouses.err.delta_big", "Max", maxStockDelta)
	}
	switch n := utf8.RuneCountInString(reason); {
	case errs.Has("reason"):
	case n == 0:
		errs["reason"] = page.T(c, "admin.warehouses.err.reason")
	case n > maxStockReasonRunes:
		errs["reason"] = page.T(c, "admin.warehouses.err.reason_long", "Max", maxStockReasonRunes)
	}
	return delta, reason, errs
}

// Adjust changes a warehouse's stock of a product by a signed amount, with
// a reason. htmx gets the row back (the new quantity, or the error in the
// row with a 422); a plain form is sent back to its page, or gets the form
// alone with the error. Stock never goes below zero.
func (h *AdminWarehouses) Adjust(c *fiber.Ctx) error {
	wid, err := pathID(c, "id", "error.not_found.warehouse")
	if err != nil {
		return err
	}
	pid := page.Field(c, "product_id")
	if !store.ValidID(pid) {
		return page.BadRequest(page.T(c, "admin.warehouses.err.product"))
	}
	on := views.StockOnWarehouse
	if page.Field(c, "on") == string(views.StockOnProduct) {
		on = views.StockOnProduct
	}
	row := views.AdminStockRow{On: on, Delta: page.Field(c, "delta"), CSRF: page.CSRFToken(c)}
	delta, reason, errs := parseStockChange(c, row.Delta, page.Field(c, "reason"))
	row.Reason, row.Errors = reason, errs

	var (
		w store.Warehouse
		p store.Product
	)
	g, ctx := errgroup.WithContext(c.UserContext())
	g.Go(func() (err error) {
		w, err = h.Store.Warehouse(ctx, wid)
		return notFoundAs(err, "error.not_found.warehouse")
	})
	g.Go(func() (err error) {
		p, err = h.Store.Product(ctx, pid)
		return notFoundAs(err, "error.not_found.product")
	})
	if err := g.Wait(); err != nil {
		return err
	}

	if !row.Errors.Any() {
		by, ok := page.StaffMember(c) // the adjustment is recorded under their name
		if !ok {
			return page.Forbidden(page.T(c, "admin.warehouses.err.staff_only"))
		}
		_, err := h.Store.AdjustStock(c.UserContext(), p, w, delta, reason, by)
		var short *store.StockShortError
		switch {
		case errors.As(err, &short):
			row.Errors["delta"] = shortMessage(c, short.Available)
		case err != nil:
			return err
		}
	}

	// Read the level as it is now, after the change or beside the error.
	levels, err := h.Store.ProductStock(c.UserContext(), pid)
	if err != nil {
		return err
	}
	row.Level = store.StockLevel{ProductID: p.ID, ProductName: p.Name, WarehouseID: w.ID, WarehouseName: w.Name, City: w.Address.City}
	for _, l := range levels {
		if l.WarehouseID == w.ID {
			row.Level, row.Stocked = l, true
		}
	}

	back := paths.AdminWarehouse(w.ID)
	if on == views.StockOnProduct {
		back = paths.AdminProduct(p.ID)
	}
	if row.Errors.Any() {
		return page.Render(c, fiber.StatusUnprocessableEntity, page.View{
			Title:   page.T(c, "admin.warehouses.adjust_stock"),
			Page:    page.Full(views.AdminStockAdjustView, views.AdminStockAdjustPage{Warehouse: w, Product: p, Row: row, BackURL: back}),
			Partial: views.AdminStockRowView(row),
		})
	}
	if !page.IsHTMX(c) {
		page.Flash(c, views.FlashSuccess, page.T(c, "admin.warehouses.now", "Product", p.Name, "Warehouse", w.Name, "Quantity", row.Level.Quantity))
		return page.Redirect(c, back)
	}
	row.Saved = page.T(c, "admin.warehouses.saved", "Change", signedInt(delta), "Reason", reason, "Quantity", row.Level.Quantity)
	row.Delta, row.Reason = "", ""
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "admin.warehouses.adjust_stock"), Page: page.Full(views.AdminStockAdjustView, views.AdminStockAdjustPage{Warehouse: w, Product: p, Row: row, BackURL: back}), Partial: views.AdminStockRowView(row)})
}

func signedInt(n int) string {
	if n > 0 {
		return "+" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// shortMessage explains a decrease that would take stock below zero.
func shortMessage(c *fiber.Ctx, left int) string {
	if left <= 0 {
		return page.T(c, "admin.warehouses.err.none_left")
	}
	return page.T(c, "admin.warehouses.err.only_left", "Left", left)
}

// inventoryByName sorts stock levels by product name (case and accents
// ignored) and keeps those whose name holds the query.
func inventoryByName(levels []store.StockLevel, query string) []store.StockLevel {
	want := store.FoldText(query)
	out := levels[:0]
	for _, l := range levels {
		if strings.Contains(store.FoldText(l.ProductName), want) {
			out = append(out, l)
		}
	}
	slices.SortStableFunc(out, func(a, b store.StockLevel) int {
		return cmp.Or(strings.Compare(store.FoldText(a.ProductName), store.FoldText(b.ProductName)), strings.Compare(a.ProductID, b.ProductID))
	})
	return out
}
