package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"shop/store/rules"
)

// ImportReport says what an import of NoSQL Workbench models wrote and what
// it could not take, and why.
type ImportReport struct {
	Written []string
	Skipped []string
}

// wbValue is an attribute in DynamoDB JSON, as Workbench exports it.
type wbValue struct {
	S *string            `json:"S"`
	N *string            `json:"N"`
	M map[string]wbValue `json:"M"`
	L []wbValue          `json:"L"`
}

type wbItem map[string]wbValue

func (it wbItem) str(name string) string {
	if v, ok := it[name]; ok {
		if v.S != nil {
			return *v.S
		}
		if v.N != nil {
			return *v.N
		}
	}
	return ""
}

func (v wbValue) str() string {
	if v.S != nil {
		return *v.S
	}
	if v.N != nil {
		return *v.N
	}
	return ""
}

type wbModel struct {
	ModelName string `json:"ModelName"`
	DataModel []struct {
		TableName string   `json:"TableName"`
		TableData []wbItem `json:"TableData"`
		// A model drawn as facets (the recurring-payments one) keeps its
		// samples per facet.
		TableFacets []struct {
			FacetName string   `json:"FacetName"`
			TableData []wbItem `json:"TableData"`
		} `json:"TableFacets"`
	} `json:"DataModel"`
}

// entity is an item's EntityType; the recurring-payments model has none,
// and its items are told apart by their keys, as its guide does.
func (it wbItem) entity() string {
	if e := it.str("EntityType"); e != "" {
		return e
	}
	pk, sk := it.str(attrPK), it.str(attrSK)
	switch {
	case !strings.HasPrefix(pk, prefixAccount):
		return ""
	case strings.HasPrefix(sk, prefixSubscription):
		return entitySubscription
	case strings.HasPrefix(sk, prefixReceipt):
		return entityReceipt
	}
	return ""
}

// wbNumber reads a count that Workbench may store as a string.
func wbNumber(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a count", s)
	}
	return n, nil
}

// wbMoney reads an amount in whole units ("100", "12.50") as minor units.
func wbMoney(s string) (Money, error) {
	return rules.ParseMoney(s, DefaultCurrency)
}

// wbTime reads a Workbench date; one without a zone is taken as UTC.
func wbTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date", s)
}

// wbDate takes the date out of a GSI sort key of either model variant:
// "p#2020-06-21T19:18:00" (13) or "2020-06-21T19:18:00" (14).
func wbDate(sk string) (time.Time, error) {
	if i := strings.IndexByte(sk, '#'); i >= 0 {
		sk = sk[i+1:]
	}
	return wbTime(sk)
}

func wbAddress(v wbValue) Address {
	return Address{Street: v.M["Street"].str(), Number: v.M["Number"].str(), ZipCode: v.M["ZipCode"].str(),
		City: v.M["City"].str(), County: v.M["County"].str(), Country: v.M["Country"].str()}
}

// ImportWorkbenchFiles imports each model file (ImportWorkbench) and writes
// what it wrote and what it could not take (import-workbench).
func (s *Store) ImportWorkbenchFiles(ctx context.Context, files []string, out io.Writer) error {
	failed := 0
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		rep, err := s.ImportWorkbench(ctx, f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Fprintf(out, "%s: wrote %d items, could not take %d\n", name, len(rep.Written), len(rep.Skipped))
		for _, w := range rep.Written {
			fmt.Fprintf(out, "  wrote    %s\n", w)
		}
		for _, s := range rep.Skipped {
			fmt.Fprintf(out, "  skipped  %s\n", s)
		}
		failed += len(rep.Skipped)
	}
	if failed > 0 {
		fmt.Fprintf(out, "%d items could not be taken (see above)\n", failed)
	}
	return nil
}

// ImportWorkbench reads NoSQL Workbench model files (the AWS online-shop
// models, variants 13 and 14, and the recurring-payments model) and writes
// their sample items in the shop's own representation: string numbers become
// numbers, prices and amounts minor units, dates without a zone UTC, and the
// sample's warehouseItem that lacks its GSI2 keys gets them. Subscriptions
// and receipts are converted as workbench_payments.go says. Items are
// written whole, so importing again changes nothing.
func (s *Store) ImportWorkbench(ctx context.Context, r io.Reader) (ImportReport, error) {
	var m wbModel
	if err := json.NewDecoder(r).Decode(&m); err != nil {
		return ImportReport{}, fmt.Errorf("not a NoSQL Workbench model: %w", err)
	}
	var items []wbItem
	for _, t := range m.DataModel {
		items = append(items, t.TableData...)
		for _, f := range t.TableFacets {
			items = append(items, f.TableData...)
		}
	}
	var rep ImportReport
	if len(items) == 0 {
		rep.Skipped = append(rep.Skipped, fmt.Sprintf("model %q holds no sample items", m.ModelName))
		return rep, nil
	}
	im := &importer{s: s, rep: &rep, products: map[string]wbItem{}, warehouses: map[string]wbItem{}, shipments: map[string]wbItem{},
		subscriptions: map[string]Subscription{}}
	byOrder := map[string][]wbItem{}
	for _, it := range items {
		switch it.entity() {
		case entityProduct:
			im.products[it.str(attrPK)] = it
		case entityWarehouse:
			im.warehouses[it.str(attrPK)] = it
		case entityShipment:
			im.shipments[it.str(attrSK)] = it
		}
		if strings.HasPrefix(it.str(attrPK), prefixOrder) {
			byOrder[it.str(attrPK)] = append(byOrder[it.str(attrPK)], it)
		}
	}
	im.ofOrder = func(order, entity string) []wbItem {
		var out []wbItem
		for _, it := range byOrder[order] {
			if it.str("EntityType") == entity {
				out = append(out, it)
			}
		}
		return out
	}
	if len(im.products) > 0 {
		if err := s.PutCategory(ctx, Category{Slug: importedCategory, Name: "Imported", Description: "Products imported from NoSQL Workbench models."}); err != nil {
			return rep, err
		}
	}
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		if err := im.importItem(ctx, it); err != nil {
			var skip skipError
			if errors.As(err, &skip) {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s %s/%s: %s", it.entity(), it.str(attrPK), it.str(attrSK), skip.why))
				continue
			}
			return rep, err
		}
		rep.Written = append(rep.Written, fmt.Sprintf("%s %s/%s", it.entity(), it.str(attrPK), it.str(attrSK)))
	}
	if len(im.subscriptions) > 0 {
		// Written whole, without their totals: counted again (a recount,
		// so importing again changes nothing here either).
		if _, err := s.RecountSubscriptionTotals(ctx); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

const importedCategory = "imported"

type skipError struct{ why string }

func (e skipError) Error() string { return e.why }

func skip(format string, a ...any) error { return skipError{why: fmt.Sprintf(format, a...)} }

type importer struct {
	s          *Store
	rep        *ImportReport
	products   map[string]wbItem
	warehouses map[string]wbItem
	shipments  map[string]wbItem                   // by sh# key
	ofOrder    func(order, entity string) []wbItem // an order's items of one entity type
	// subscriptions imported so far, by account and product (a receipt of
	// the model names only those).
	subscriptions map[string]Subscription
}

func (im *importer) productName(pk string) string {
	if p, ok := im.products[pk]; ok {
		if n := p["Detail"].M["Name"].str(); n != "" {
			return n
		}
	}
	return "Product " + trimPrefix(pk, prefixProduct)
}

func (im *importer) warehouse(pk string) (name, city string) {
	a := wbAddress(im.warehouses[pk]["Address"])
	if a.City == "" {
		return "Warehouse " + trimPrefix(pk, prefixWarehouse), ""
	}
	return a.City + " warehouse", a.City
}

func (im *importer) importItem(ctx context.Context, it wbItem) error {
	s := im.s
	pk, sk := it.str(attrPK), it.str(attrSK)
	switch it.entity() {
	case entityCustomer:
		return im.customer(ctx, it)
	case entitySubscription:
		return im.subscription(ctx, it)
	case entityReceipt:
		return im.receipt(ctx, it)
	case entityProduct:
		price, err := wbMoney(it.str("Price"))
		if err != nil {
			return skip("price: %v", err)
		}
		return s.PutProduct(ctx, Product{ID: trimPrefix(pk, prefixProduct), Name: im.productName(pk),
			Description: it["Detail"].M["Description"].str(), Category: importedCategory, Price: price})
	case entityWarehouse:
		name, _ := im.warehouse(pk)
		return s.PutWarehouse(ctx, Warehouse{ID: trimPrefix(pk, prefixWarehouse), Name: name, Address: wbAddress(it["Address"])})
	case entityWarehouseItem:
		q, err := wbNumber(it.str("Quantity"))
		if err != nil {
			return skip("quantity: %v", err)
		}
		name, city := im.warehouse(sk)
		// Written with its GSI2 keys whether or not the sample had them.
		return s.PutStockLevel(ctx, StockLevel{ProductID: trimPrefix(pk, prefixProduct), ProductName: im.productName(pk),
			WarehouseID: trimPrefix(sk, prefixWarehouse), WarehouseName: name, City: city, Quantity: q})
	case entityOrder:
		return im.order(ctx, it)
	case entityOrderItem:
		return im.orderItem(ctx, it)
	case entityInvoice:
		return im.invoice(ctx, it)
	case entityShipment:
		at, err := wbTime(it.str("Date"))
		if err != nil {
			return skip("date: %v", err)
		}
		w := it.str(attrGSI2PK)
		shards, err := s.lists.count(ctx, s)
		if err != nil {
			return err
		}
		id := trimPrefix(sk, prefixShipment)
		return s.putItem(ctx, shipmentRecord{
			PK: pk, SK: sk, EntityType: entityShipment, WarehouseID: trimPrefix(w, prefixWarehouse),
			Type: it.str("Type"), Status: string(ShipmentShipped), Address: wbAddress(it["Address"]),
			Date: timestamp(at), ShippedAt: timestamp(at),
			GSI1PK: sk, GSI1SK: sk, GSI2PK: w, GSI2SK: sk,
			ShsPK: shipmentsInKey(ShipmentShipped, shardOf(id, shards)), ShsSK: createdKey(at, id),
		})
	case entityShipmentItem:
		q, err := wbNumber(it.str("Quantity"))
		if err != nil {
			return skip("quantity: %v", err)
		}
		return s.putItem(ctx, shipmentItemRecord{
			PK: pk, SK: sk, EntityType: entityShipmentItem, Quantity: q,
			ProductName: im.productName(it.str(attrGSI1SK)), GSI1PK: it.str(attrGSI1PK), GSI1SK: it.str(attrGSI1SK),
		})
	case "":
		return skip("no EntityType")
	default:
		return skip("this shop has no entity %q", it.str("EntityType"))
	}
}
