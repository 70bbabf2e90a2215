package store

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
)

// A held order's lines are not sales until its payment places it: the hold
// writes them in no index (not among their product's order lines, GSI1
// p#product, nor their customer's, GSI2 c#customer p#), and the placing
// transaction lists them there, dated as the order then is (its payment's
// time). An expired order's lines never were in those lists.

// unsold is a line of an order awaiting payment: in no list.
func (r orderItemRecord) unsold() orderItemRecord {
	r.GSI1PK, r.GSI1SK, r.GSI2PK, r.GSI2SK = "", "", "", ""
	return r
}

// soldLines adds to b, per line of the held order o being placed at now,
// its keys into its product's and its customer's order lines.
func soldLines(b *txItems, o Order, items []OrderItem, now time.Time) error {
	at := timestamp(now)
	exists := expression.AttributeExists(expression.Name(attrPK))
	for _, it := range items {
		upd := expression.Set(expression.Name("Date"), expression.Value(at)).
			Set(expression.Name(attrGSI1PK), expression.Value(productKey(it.ProductID))).
			Set(expression.Name(attrGSI1SK), expression.Value(at)).
			Set(expression.Name(attrGSI2PK), expression.Value(customerKey(o.CustomerID))).
			Set(expression.Name(attrGSI2SK), expression.Value(datedKey(prefixProduct, now)))
		if err := b.update(orderKey(o.ID), orderItemSortKey(it.ProductID, it.DropID), upd, exists, itemRole{}); err != nil {
			return err
		}
	}
	return nil
}
