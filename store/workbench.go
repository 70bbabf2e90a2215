package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
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
	return ParseMoney(s, DefaultCurrency)
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
		return s.putItem(ctx, shipmentRecord{
			PK: pk, SK: sk, EntityType: entityShipment, WarehouseID: trimPrefix(w, prefixWarehouse),
			Type: it.str("Type"), Status: string(ShipmentShipped), Address: wbAddress(it["Address"]),
			Date: timestamp(at), ShippedAt: timestamp(at),
			GSI1PK: sk, GSI1SK: sk, GSI2PK: w, GSI2SK: sk,
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

func (im *importer) customer(ctx context.Context, it wbItem) error {
	s := im.s
	id := trimPrefix(it.str(attrPK), prefixCustomer)
	email := NormalizeEmail(it.str("Email"))
	if id == "" || email == "" {
		return skip("a customer needs an id and an email")
	}
	now := s.now()
	if err := s.putItem(ctx, customerRecord{
		PK: customerKey(id), SK: customerKey(id), EntityType: entityCustomer, Email: email, Name: it.str("Name"),
		Role: string(RoleCustomer), CreatedAt: timestamp(now),
		GSI1PK: partitionCustomers, GSI1SK: createdKey(now, id),
	}); err != nil {
		return err
	}
	// The email item, unless another customer has the address. It has no
	// password: an imported customer signs in after a password reset.
	item, err := attributevalue.MarshalMap(emailRecord{PK: emailKey(email), SK: emailKey(email), EntityType: entityEmail,
		CustomerID: id, Name: it.str("Name"), Role: string(RoleCustomer)})
	if err != nil {
		return err
	}
	cond, err := expression.NewBuilder().WithCondition(expression.Or(
		expression.AttributeNotExists(expression.Name(attrPK)),
		expression.Name("CustomerID").Equal(expression.Value(id)))).Build()
	if err != nil {
		return err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: item,
		ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(), ExpressionAttributeValues: cond.Values()})
	if isConditionFailed(err) {
		im.rep.Skipped = append(im.rep.Skipped, fmt.Sprintf("email %s: already belongs to another customer", email))
		return nil
	}
	return err
}

func (im *importer) order(ctx context.Context, it wbItem) error {
	pk := it.str(attrPK)
	at, err := wbTime(it.str("Date"))
	if err != nil {
		return skip("date: %v", err)
	}
	o := Order{ID: trimPrefix(pk, prefixOrder), CustomerID: trimPrefix(it.str(attrSK), prefixCustomer), PlacedAt: at, Status: OrderPlaced}
	total := Money{Currency: DefaultCurrency}
	for _, oi := range im.ofOrder(pk, entityOrderItem) {
		price, err1 := wbMoney(oi.str("Price"))
		q, err2 := wbNumber(oi.str("Quantity"))
		if err1 == nil && err2 == nil {
			total.Amount += price.Amount * int64(q)
			o.Lines++
		}
	}
	o.Subtotal, o.Total, o.Discount = total, total, Money{Currency: DefaultCurrency}
	// The model keeps the address on shipments only.
	var shipped []string
	for key, sh := range im.shipments {
		if sh.str(attrPK) == pk {
			shipped = append(shipped, key)
		}
	}
	if len(shipped) > 0 {
		sort.Strings(shipped)
		o.ShipTo = wbAddress(im.shipments[shipped[0]]["Address"])
		o.Status = OrderShipped
	}
	return im.s.putItem(ctx, newOrderRecord(o))
}

func (im *importer) orderItem(ctx context.Context, it wbItem) error {
	pk, sk := it.str(attrPK), it.str(attrSK)
	price, err := wbMoney(it.str("Price"))
	if err != nil {
		return skip("price: %v", err)
	}
	q, err := wbNumber(it.str("Quantity"))
	if err != nil {
		return skip("quantity: %v", err)
	}
	at, err := wbDate(it.str(attrGSI1SK))
	if err != nil {
		return skip("date: %v", err)
	}
	oi := OrderItem{OrderID: trimPrefix(pk, prefixOrder), CustomerID: trimPrefix(it.str(attrGSI2PK), prefixCustomer),
		ProductID: trimPrefix(sk, prefixProduct), ProductName: im.productName(sk), Price: price, Quantity: q, PlacedAt: at}
	// Allocations follow the shipments that carried the product.
	for _, si := range im.ofOrder(pk, entityShipmentItem) {
		if si.str(attrGSI1SK) != sk {
			continue
		}
		n, err := wbNumber(si.str("Quantity"))
		if err != nil {
			continue
		}
		w := trimPrefix(im.shipments[si.str(attrGSI1PK)].str(attrGSI2PK), prefixWarehouse)
		oi.Allocations = append(oi.Allocations, Allocation{WarehouseID: w, Quantity: n})
	}
	return im.s.putItem(ctx, newOrderItemRecord(oi))
}

func (im *importer) invoice(ctx context.Context, it wbItem) error {
	amount, err := wbMoney(it.str("Amount"))
	if err != nil {
		return skip("amount: %v", err)
	}
	at, err := wbTime(it.str("Date"))
	if err != nil {
		if at, err = wbDate(it.str(attrGSI2SK)); err != nil {
			return skip("date: %v", err)
		}
	}
	inv := Invoice{ID: trimPrefix(it.str(attrSK), prefixInvoice), OrderID: trimPrefix(it.str(attrPK), prefixOrder),
		CustomerID: trimPrefix(it.str(attrGSI2PK), prefixCustomer), Date: at, Amount: amount, Discount: Money{Currency: DefaultCurrency}}
	for _, p := range it["Detail"].M["Payments"].L {
		a, err := wbMoney(p.M["Amount"].str())
		if err != nil {
			return skip("payment amount: %v", err)
		}
		inv.Payments = append(inv.Payments, Payment{Type: p.M["Type"].str(), Amount: a, Reference: p.M["Data"].str()})
	}
	return im.s.putItem(ctx, newInvoiceRecord(inv))
}
