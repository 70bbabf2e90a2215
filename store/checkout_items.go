package store

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// itemRole says what a transaction item guards, to explain a cancellation.
type itemRole struct {
	kind      string // "stock", "giftcard", "discount", "cart", "day-totals", or ""
	productID string
	name      string
	names     ProductNames
	wanted    int
}

// txItems gathers a transaction's items and what each guards (its role,
// to explain a cancellation), in order.
type txItems struct {
	s     *Store
	tx    []types.TransactWriteItem
	roles []itemRole
}

func (b *txItems) add(item types.TransactWriteItem, role itemRole) {
	b.tx, b.roles = append(b.tx, item), append(b.roles, role)
}

// put writes rec whole, on condition cond if it is not nil.
func (b *txItems) put(rec any, cond *expression.ConditionBuilder, role itemRole) error {
	item, err := attributevalue.MarshalMap(rec)
	if err != nil {
		return err
	}
	p := &types.Put{TableName: aws.String(b.s.table), Item: item}
	if cond != nil {
		expr, err := expression.NewBuilder().WithCondition(*cond).Build()
		if err != nil {
			return err
		}
		p.ConditionExpression, p.ExpressionAttributeNames, p.ExpressionAttributeValues = expr.Condition(), expr.Names(), expr.Values()
	}
	b.add(types.TransactWriteItem{Put: p}, role)
	return nil
}

// shopEvent adds the shop event typ if a staff endpoint wants it.
func (b *txItems) shopEvent(typ, customer string, now time.Time, data func() any) error {
	item, ok, err := b.s.txShopEvent(typ, customer, now, data)
	if ok {
		b.add(item, itemRole{kind: "webhook"})
	}
	return err
}

func (b *txItems) update(pk, sk string, upd expression.UpdateBuilder, cond expression.ConditionBuilder, role itemRole) error {
	w, err := b.s.txUpdate(pk, sk, upd, cond)
	if err != nil {
		return err
	}
	b.add(w, role)
	return nil
}

// checkoutItems builds the order's transaction; the checkout key's item
// comes first (its failure means "placed already, or settled meanwhile").
func (s *Store) checkoutItems(req CheckoutRequest, q Quote, order Order, inv Invoice, book bookNumber, now time.Time, listShards int) ([]types.TransactWriteItem, []itemRole, error) {
	b := &txItems{s: s}
	notExists := expression.AttributeNotExists(expression.Name(attrPK))
	placed := idempotencyRecord{
		PK: idempotencyKey(req.Key), SK: idempotencyKey(req.Key), EntityType: entityIdempotency, Status: checkoutPlaced,
		OrderID: order.ID, CustomerID: req.CustomerID, ExpiresAt: now.Add(idempotencyTTL).Unix(),
	}
	keyCond := newCheckoutKey()
	if err := b.put(placed, &keyCond, itemRole{}); err != nil {
		return nil, nil, err
	}
	orderRec := newOrderRecord(order, q.Items, listShards)
	orderRec.DayCounted = true // by the totals' update below
	if err := b.put(orderRec, &notExists, itemRole{}); err != nil {
		return nil, nil, err
	}
	totals, err := s.dayTotalsUpdate(order, listShards)
	if err != nil {
		return nil, nil, err
	}
	b.add(totals, itemRole{kind: "day-totals"})
	if err := b.put(newOrderNumberRecord(order), &notExists, itemRole{kind: "number"}); err != nil {
		return nil, nil, err
	}
	if err := b.put(newInvoiceRecord(inv), &notExists, itemRole{}); err != nil {
		return nil, nil, err
	}
	if req.Confirmation != nil {
		// Built per attempt: a retry may have drawn another order number.
		mail, err := s.mailPut(req.Confirmation(order, q.Items, inv))
		if err != nil {
			return nil, nil, err
		}
		b.add(mail, itemRole{})
	}
	if err := b.shopEvent(EventOrderPlaced, order.CustomerID, now, func() any { return eventOrder(order, q.Items) }); err != nil {
		return nil, nil, err
	}
	counter, err := s.bookCounterWrite(book)
	if err != nil {
		return nil, nil, err
	}
	b.add(counter, itemRole{kind: "books"})
	if err := s.checkoutTakes(b, req, q, order, now); err != nil {
		return nil, nil, err
	}
	if len(b.tx) > maxTransactItems {
		return nil, nil, ErrOrderTooLarge
	}
	return b.tx, b.roles, nil
}

// newCheckoutKey is the condition of a checkout key's item written with
// its order (placed at once, or held for a hosted page): a new key. (A
// key an older version left with a card charge under way stays its own
// until its TTL: the form answers a conflict and is sent afresh.)
func newCheckoutKey() expression.ConditionBuilder {
	return expression.AttributeNotExists(expression.Name(attrPK))
}

func newOrderNumberRecord(o Order) orderNumberRecord {
	return orderNumberRecord{PK: orderNumberKey(o.Number), SK: orderNumberKey(o.Number), EntityType: entityOrderNumber, OrderID: o.ID}
}

// checkoutTakes adds to b what an order takes, the same whether it is
// placed at once or held for its payment: its items, per line the ticket's
// redemption or the stock of each warehouse allocated (on condition of
// enough), the ordered lines out of the cart (on condition each is still as
// ordered), the gift card's part (on condition of the balance) and the
// discount code's use (within its limit and time).
func (s *Store) checkoutTakes(b *txItems, req CheckoutRequest, q Quote, order Order, now time.Time) error {
	for _, it := range q.Items {
		it.OrderID, it.PlacedAt, it.Buyer = order.ID, order.PlacedAt, order.Buyer
		rec := newOrderItemRecord(it)
		if order.Status == OrderAwaitingPayment {
			rec = rec.unsold() // a sale once paid (held_items.go)
		}
		if err := b.put(rec, nil, itemRole{}); err != nil {
			return err
		}
		if it.DropID != "" {
			// The ticket is redeemed by this order: on condition it is
			// valid and within its time (claimed after now - RedeemWithin).
			err := b.update(ticketPartition(it.DropID), ticketSortKey(req.CustomerID),
				expression.Set(expression.Name("Status"), expression.Value(string(TicketRedeemed))).
					Set(expression.Name("OrderID"), expression.Value(order.ID)).
					Set(expression.Name("RedeemedAt"), expression.Value(timestamp(now))),
				expression.Name("Status").Equal(expression.Value(string(TicketValid))).
					And(expression.Name("CreatedAt").GreaterThan(expression.Value(timestamp(now.Add(-it.redeemWithin))))),
				itemRole{kind: "ticket", productID: it.ProductID, name: it.ProductName, wanted: 1})
			if err != nil {
				return err
			}
		}
		for _, a := range it.Allocations {
			if it.DropID != "" {
				break // a ticket's unit was set aside when its drop was made
			}
			err := b.update(productKey(it.ProductID), warehouseKey(a.WarehouseID),
				expression.Set(expression.Name("Quantity"), expression.Name("Quantity").Minus(expression.Value(a.Quantity))),
				expression.Name("Quantity").GreaterThanEqual(expression.Value(a.Quantity)),
				itemRole{kind: "stock", productID: it.ProductID, name: it.ProductName, names: it.Names, wanted: it.Quantity})
			if err != nil {
				return err
			}
		}
	}
	if req.CartOwner != "" && len(q.Items) > 0 {
		// One write takes the ordered lines out of the cart item, on
		// condition each still has the quantity ordered: a line changed in
		// another tab meanwhile cancels the order instead of vanishing; a
		// line added meanwhile stays in the cart.
		upd := expression.Add(expression.Name("Version"), expression.Value(1))
		var cond expression.ConditionBuilder
		for i, it := range q.Items {
			path := cartLinePath(cartLineKey(it.ProductID, it.DropID))
			upd = upd.Remove(expression.Name(path))
			c := expression.Name(path + ".Quantity").Equal(expression.Value(it.Quantity))
			if i == 0 {
				cond = c
			} else {
				cond = cond.And(c)
			}
		}
		if err := b.update(cartKey(req.CartOwner), sortKeyCart, upd, cond, itemRole{kind: "cart"}); err != nil {
			return err
		}
	}
	if amt := q.Tender.GiftCard.Amount; amt > 0 {
		err := b.update(giftCardKey(q.GiftCard.Code), giftCardKey(q.GiftCard.Code),
			expression.Set(expression.Name("Balance"), expression.Name("Balance").Minus(expression.Value(amt))),
			expression.Name("Balance").GreaterThanEqual(expression.Value(amt)), itemRole{kind: "giftcard"})
		if err != nil {
			return err
		}
	}
	if d := q.Discount; d != nil {
		err := b.update(discountKey(d.Code), discountKey(d.Code),
			expression.Add(expression.Name("Used"), expression.Value(1)),
			expression.Name("Used").LessThan(expression.Name("UsageLimit")).
				And(expression.Name("ExpiresOn").GreaterThan(expression.Value(timestamp(now)))),
			itemRole{kind: "discount"})
		if err != nil {
			return err
		}
	}
	return nil
}
