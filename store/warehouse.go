package store

import (
	"context"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
)

// Address is a postal address, shaped as in the AWS model.
type Address struct {
	Name    string `dynamodbav:"Name,omitempty"` // the recipient, on a shipping address
	Street  string `dynamodbav:"Street"`
	Number  string `dynamodbav:"Number"`
	ZipCode string `dynamodbav:"ZipCode"`
	City    string `dynamodbav:"City"`
	County  string `dynamodbav:"County,omitempty"`
	Country string `dynamodbav:"Country"`
}

// Warehouse holds stock that ships to customers.
type Warehouse struct {
	ID      string
	Name    string
	Address Address
}

// StockLevel is how many of one product one warehouse holds (a warehouseItem).
// The product and warehouse names are copied onto it so that both inventory
// views are answered by one Query.
type StockLevel struct {
	ProductID     string
	ProductName   string
	WarehouseID   string
	WarehouseName string
	City          string
	Quantity      int
	// LowAt is the level under which this stock counts as low (0: the
	// default, DefaultLowStockAt).
	LowAt int
}

// LowStockAt is the level under which the stock counts as low.
func (l StockLevel) LowStockAt() int {
	if l.LowAt > 0 {
		return l.LowAt
	}
	return DefaultLowStockAt
}

// Low says whether the stock is under its threshold.
func (l StockLevel) Low() bool { return l.Quantity < l.LowStockAt() }

// TotalStock is how many of a product its stock levels hold together (a
// level below zero, which the conditional writes never leave, counts none).
func TotalStock(levels []StockLevel) int {
	n := 0
	for _, l := range levels {
		n += max(l.Quantity, 0)
	}
	return n
}

type warehouseRecord struct {
	PK         string  `dynamodbav:"PK"`
	SK         string  `dynamodbav:"SK"`
	EntityType string  `dynamodbav:"EntityType"`
	Name       string  `dynamodbav:"Name"`
	Address    Address `dynamodbav:"Address"`
	// GSI1 lists the warehouses.
	GSI1PK string `dynamodbav:"GSI1-PK"`
	GSI1SK string `dynamodbav:"GSI1-SK"`
}

func (r warehouseRecord) warehouse() Warehouse {
	return Warehouse{ID: trimPrefix(r.PK, prefixWarehouse), Name: r.Name, Address: r.Address}
}

type warehouseItemRecord struct {
	PK            string `dynamodbav:"PK"` // p#product
	SK            string `dynamodbav:"SK"` // w#warehouse
	EntityType    string `dynamodbav:"EntityType"`
	Quantity      int    `dynamodbav:"Quantity"`
	ProductName   string `dynamodbav:"ProductName"`
	WarehouseName string `dynamodbav:"WarehouseName"`
	City          string `dynamodbav:"City"`
	LowAt         int    `dynamodbav:"LowAt,omitempty"`
	AttnPK        string `dynamodbav:"ATTN-PK,omitempty"` // low-stock, while under LowAt
	AttnSK        string `dynamodbav:"ATTN-SK,omitempty"` // p#product w#warehouse
	GSI2PK        string `dynamodbav:"GSI2-PK"`           // w#warehouse
	GSI2SK        string `dynamodbav:"GSI2-SK"`           // p#product
}

func (r warehouseItemRecord) stockLevel() StockLevel {
	return StockLevel{
		ProductID: trimPrefix(r.PK, prefixProduct), ProductName: r.ProductName,
		WarehouseID: trimPrefix(r.SK, prefixWarehouse), WarehouseName: r.WarehouseName, City: r.City,
		Quantity: r.Quantity, LowAt: r.LowAt,
	}
}

// PutWarehouse writes a warehouse whole.
func (s *Store) PutWarehouse(ctx context.Context, w Warehouse) error {
	err := s.putItem(ctx, warehouseRecord{
		PK: warehouseKey(w.ID), SK: warehouseKey(w.ID), EntityType: entityWarehouse,
		Name: w.Name, Address: w.Address,
		GSI1PK: partitionWarehouses, GSI1SK: warehouseKey(w.ID),
	})
	if err != nil {
		return fmt.Errorf("put warehouse %s: %w", w.ID, err)
	}
	return nil
}

// PutStockLevel sets a warehouse's stock of a product outright (seed data,
// imports); sales and adjustments change it conditionally instead.
func (s *Store) PutStockLevel(ctx context.Context, l StockLevel) error {
	rec := warehouseItemRecord{
		PK: productKey(l.ProductID), SK: warehouseKey(l.WarehouseID), EntityType: entityWarehouseItem,
		Quantity: l.Quantity, ProductName: l.ProductName, WarehouseName: l.WarehouseName, City: l.City, LowAt: l.LowAt,
		GSI2PK: warehouseKey(l.WarehouseID), GSI2SK: productKey(l.ProductID),
	}
	if l.Low() {
		rec.AttnPK, rec.AttnSK = lowStockList, lowStockSortKey(l.ProductID, l.WarehouseID)
	}
	err := s.putItem(ctx, rec)
	if err != nil {
		return fmt.Errorf("put stock of %s in %s: %w", l.ProductID, l.WarehouseID, err)
	}
	return nil
}

// Warehouse reads a warehouse by id (access pattern 3).
func (s *Store) Warehouse(ctx context.Context, id string) (Warehouse, error) {
	return getItem(ctx, s, warehouseKey(id), warehouseKey(id), "warehouse "+id, warehouseRecord.warehouse)
}

// Warehouses lists every warehouse (GSI1 "warehouses"), one Query.
func (s *Store) Warehouses(ctx context.Context) ([]Warehouse, error) {
	return queryAll(ctx, s, querySpec{key: onGSI1.pkEquals(partitionWarehouses)}, warehouseRecord.warehouse)
}

// ProductStock is the inventory of one product in every warehouse (access
// pattern 4): Query PK=p#id, SK begins_with w#.
func (s *Store) ProductStock(ctx context.Context, productID string) ([]StockLevel, error) {
	q := querySpec{key: onTable.pkAndSKPrefix(productKey(productID), prefixWarehouse)}
	return queryAll(ctx, s, q, warehouseItemRecord.stockLevel)
}

// ProductWithStock reads a product and its stock in every warehouse with one
// Query of its item collection (PK=p#id): the product item sorts before its
// w# items.
func (s *Store) ProductWithStock(ctx context.Context, productID string) (Product, []StockLevel, error) {
	v, err := s.productCollection(ctx, productID)
	return v.product, v.stock, err
}

// productCollection is that Query's product, stock and scheduled price
// change (its pricechange item is in the same collection, so the shop
// window's product page knows it at no extra read).
func (s *Store) productCollection(ctx context.Context, productID string) (productWithStock, error) {
	items, err := s.query(ctx, querySpec{key: onTable.pkEquals(productKey(productID))})
	if err != nil {
		return productWithStock{}, err
	}
	var (
		products []Product
		stock    []StockLevel
		changes  []PriceChange
	)
	for _, item := range items {
		var head struct{ EntityType string }
		if err := attributevalue.UnmarshalMap(item, &head); err != nil {
			return productWithStock{}, err
		}
		switch head.EntityType {
		case entityProduct:
			err = appendItem(&products, item, productRecord.product)
		case entityWarehouseItem:
			err = appendItem(&stock, item, warehouseItemRecord.stockLevel)
		case entityPriceChange:
			err = appendItem(&changes, item, priceChangeRecord.change)
		}
		if err != nil {
			return productWithStock{}, err
		}
	}
	if len(products) == 0 {
		return productWithStock{}, fmt.Errorf("product %s: %w", productID, ErrNotFound)
	}
	slices.SortFunc(stock, func(a, b StockLevel) int { return b.Quantity - a.Quantity })
	v := productWithStock{product: products[0], stock: stock}
	if len(changes) > 0 {
		v.change = &changes[0]
	}
	return v, nil
}

// WarehouseInventory is the whole inventory of one warehouse, every page of
// access pattern 14 (a Query per 1 MB: some thousands of products), for
// staff to sort by name and filter; at most max levels, and whether there
// were more.
func (s *Store) WarehouseInventory(ctx context.Context, warehouseID string, max int) ([]StockLevel, bool, error) {
	var out []StockLevel
	cursor := ""
	for {
		p, err := s.WarehouseStock(ctx, warehouseID, 1000, cursor)
		if err != nil {
			return nil, false, err
		}
		out = append(out, p.Items...)
		if len(out) >= max {
			return out[:max], true, nil
		}
		if cursor = p.Next; cursor == "" {
			return out, false, nil
		}
	}
}

// WarehouseStock is the inventory of one warehouse (access pattern 14), one
// page per Query: GSI2 PK=w#id, SK begins_with p#.
func (s *Store) WarehouseStock(ctx context.Context, warehouseID string, limit int, cursor string) (Page[StockLevel], error) {
	q := querySpec{key: onGSI2.pkAndSKPrefix(warehouseKey(warehouseID), prefixProduct)}
	return pagedQuery(ctx, s, q, limit, cursor, warehouseItemRecord.stockLevel)
}
