package store

import (
	"context"
	"fmt"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// The online shop model's customers, orders, order items and invoices, as
// ImportWorkbench writes them (workbench_payments.go has the subscriptions).

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
	// Staff find the customer by name or email like any other.
	for _, f := range s.finderRecords(Customer{ID: id, Name: it.str("Name"), Email: email}) {
		if err := s.putItem(ctx, f); err != nil {
			return err
		}
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
	shards, err := im.s.lists.count(ctx, im.s)
	if err != nil {
		return err
	}
	return im.s.putItem(ctx, newOrderRecord(o, nil, shards))
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
