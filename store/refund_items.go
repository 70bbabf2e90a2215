package store

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// stockBack is a stock level a refund put units back into.
type stockBack struct{ productID, warehouseID string }

// refundItems plans a refund of d and builds its transaction: the refund's
// record first (its failure: the key is taken), the order second (its
// failure on a cancel: no longer placed), the mail last.
func (s *Store) refundItems(ctx context.Context, d OrderDetails, req OrderRefundRequest, cancel bool) (plannedRefund, []types.TransactWriteItem, []stockBack, error) {
	o := d.Order
	now := s.now().UTC().Truncate(time.Millisecond)
	plan, err := planRefund(d, req, cancel, now)
	if err != nil {
		return plannedRefund{}, nil, nil, err
	}
	rf, inv, tend, takes, unitsLeft := plan.plannedRefund, plan.inv, plan.tend, plan.takes, plan.unitsLeft
	amount, gc, card, ship := rf.Amount.Amount, rf.GiftCard.Amount, rf.Card.Amount, rf.Shipping.Amount
	var warehouses map[string]Warehouse
	restock := rf.unshipped || rf.RestockWarehouse != ""
	if restock && len(takes) > 0 {
		list, err := s.Warehouses(ctx)
		if err != nil {
			return plannedRefund{}, nil, nil, err
		}
		warehouses = map[string]Warehouse{}
		for _, w := range list {
			warehouses[w.ID] = w
		}
		if !rf.unshipped {
			if _, ok := warehouses[req.RestockWarehouse]; !ok {
				return plannedRefund{}, nil, nil, fmt.Errorf("warehouse %s: %w", req.RestockWarehouse, ErrNotFound)
			}
		}
	}

	var tx []types.TransactWriteItem
	rec := refundRecord{
		PK: orderKey(o.ID), SK: refundKey(req.Key), EntityType: entityRefund, At: timestamp(now),
		Amount: amount, GiftCard: gc, Card: card, Shipping: ship, Currency: o.Total.Currency, Reason: rf.Reason, RestockWarehouse: rf.RestockWarehouse,
		BackWhereAllocated: rf.BackWhereAllocated, OrderLabel: o.Label(), ByID: rf.ByID, ByName: rf.ByName, Cancel: cancel, Status: string(rf.Status), ChargeID: rf.chargeID,
	}
	if card > 0 {
		rec.Provider = rf.Provider
	}
	for _, l := range rf.Lines {
		rec.Lines = append(rec.Lines, refundLineRecord{ProductID: l.ProductID, DropID: l.DropID, ProductName: l.ProductName, Names: l.Names, Quantity: l.Quantity, Amount: l.Amount.Amount})
	}
	rec.GSI1PK, rec.GSI1SK = s.refundListKeys(o.ID, req.Key, now)
	switch {
	case rf.Status == RefundCardPending:
		rec.AttentionListPK, rec.AttentionListSK = pendingRefundKeys(now, orderRefundListID(o.ID, req.Key))
	case takesCreditNote(Refund{ID: req.Key, Status: rf.Status}):
		rec.AttentionListPK, rec.AttentionListSK = creditNoteDueKeys(now, o.ID, req.Key) // until NumberCreditNote
	}
	item, err := attributevalue.MarshalMap(rec)
	if err != nil {
		return plannedRefund{}, nil, nil, err
	}
	isNew, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(attrPK))).Build()
	if err != nil {
		return plannedRefund{}, nil, nil, err
	}
	tx = append(tx, types.TransactWriteItem{Put: &types.Put{TableName: aws.String(s.table), Item: item,
		ConditionExpression: isNew.Condition(), ExpressionAttributeNames: isNew.Names()}})

	// The order's sums, each within what its tender paid: a refund racing
	// this one with another key fails here and reads again.
	within := func(attr string, paid, add int64) expression.ConditionBuilder {
		return expression.Or(expression.AttributeNotExists(expression.Name(attr)),
			expression.Name(attr).LessThanEqual(expression.Value(paid-add)))
	}
	plus := func(upd expression.UpdateBuilder, attr string, add int64) expression.UpdateBuilder {
		return upd.Set(expression.Name(attr), expression.Plus(expression.IfNotExists(expression.Name(attr), expression.Value(0)), expression.Value(add)))
	}
	upd := plus(expression.Set(expression.Name("LastRefundAt"), expression.Value(timestamp(now))), "Refunded", amount)
	cond := within("Refunded", o.Total.Amount, amount)
	if gc > 0 {
		upd, cond = plus(upd, "RefundedGiftCard", gc), cond.And(within("RefundedGiftCard", tend.giftCard, gc))
	}
	if card > 0 {
		upd, cond = plus(upd, "RefundedCard", card), cond.And(within("RefundedCard", tend.card, card))
	}
	upd, cond = refundedShipping(upd, cond, ship)
	// Units of an order not shipping yet go back into stock on condition
	// staff have not made its shipments meanwhile, and count a refund of
	// units, on which CreateShipments writes: a unit is restocked or
	// shipped, never both. Every unit given back leaves nothing to ship:
	// the order ends as a cancel does, off the to-ship list.
	if rf.unshipped || cancel {
		cond = cond.And(expression.Name("Status").Equal(expression.Value(string(OrderPlaced))))
	}
	if rf.unshipped {
		// What is left to pick: the conditions on UnitRefunds and the
		// lines' Refunded make it the lines as they then stand.
		more := map[string]int{}
		for _, t := range takes {
			more[orderItemSortKey(t.item.ProductID, t.item.DropID)] += t.n
		}
		upd = plus(upd, "UnitRefunds", 1).Set(expression.Name("Pick"), expression.Value(pickOf(itemsAfter(d.Items, more))))
	}
	if cancel || rf.unshipped && unitsLeft == 0 {
		upd = offPackingQueue(upd.Set(expression.Name("Status"), expression.Value(string(OrderCancelled))).
			Remove(expression.Name(attrAttnPK)).Remove(expression.Name(attrAttnSK)))
	}
	orderUpd, err := s.txUpdate(orderKey(o.ID), customerKey(o.CustomerID), upd, cond)
	if err != nil {
		return plannedRefund{}, nil, nil, err
	}
	tx = append(tx, orderUpd)

	// The invoice's negative payments, one per tender given back.
	var back []paymentRecord
	if gc > 0 {
		back = append(back, paymentRecord{Type: "GiftCard", Amount: -gc, Reference: "refund " + req.Key + " · " + tend.giftCardRef})
	}
	if card > 0 {
		back = append(back, paymentRecord{Type: tend.cardType, Amount: -card, Reference: "refund " + req.Key + " · " + tend.cardRef})
	}
	if len(back) > 0 {
		invUpd, err := s.txUpdate(orderKey(o.ID), invoiceKey(inv.ID),
			expression.Set(expression.Name("Detail.Payments"), expression.ListAppend(expression.Name("Detail.Payments"), expression.Value(back))),
			expression.AttributeExists(expression.Name(attrPK)))
		if err != nil {
			return plannedRefund{}, nil, nil, err
		}
		tx = append(tx, invUpd)
	}
	if gc > 0 {
		gcUpd, err := s.txUpdate(giftCardKey(tend.giftCardCode), giftCardKey(tend.giftCardCode),
			expression.Set(expression.Name("Balance"), expression.Name("Balance").Plus(expression.Value(gc))),
			expression.AttributeExists(expression.Name(attrPK)))
		if err != nil {
			return plannedRefund{}, nil, nil, err
		}
		tx = append(tx, gcUpd)
	}

	// The lines: refunded units counted within what was bought, and put
	// back into stock with a line in the warehouse's adjustment log.
	var restocked []stockBack
	for _, t := range takes {
		lineCond := within("Refunded", int64(t.item.Quantity), int64(t.n))
		if rf.unshipped {
			// Which warehouse a unit goes back to follows the units refunded
			// before: on condition they are still those read.
			lineCond = expression.Name("Refunded").Equal(expression.Value(t.item.Refunded))
			if t.item.Refunded == 0 {
				lineCond = expression.AttributeNotExists(expression.Name("Refunded")).Or(lineCond)
			}
		}
		lineUpd, err := s.txUpdate(orderKey(o.ID), orderItemSortKey(t.item.ProductID, t.item.DropID),
			plus(expression.Set(expression.Name("LastRefundAt"), expression.Value(timestamp(now))), "Refunded", int64(t.n)),
			lineCond)
		if err != nil {
			return plannedRefund{}, nil, nil, err
		}
		tx = append(tx, lineUpd)
		if !restock {
			continue
		}
		into := []Allocation{{WarehouseID: rf.RestockWarehouse, Quantity: t.n}}
		if rf.unshipped {
			into = backWhereAllocated(t.item, t.n)
		}
		for _, a := range into {
			w, ok := warehouses[a.WarehouseID]
			if !ok || a.Quantity <= 0 {
				continue // a warehouse closed since: staff count it by hand
			}
			items, err := s.restockItems(t.item, w, a.Quantity, fmt.Sprintf("%s, order %s: %s", refundWord(cancel), o.Label(), req.Reason), req.By, now)
			if err != nil {
				return plannedRefund{}, nil, nil, err
			}
			tx = append(tx, items...)
			restocked = append(restocked, stockBack{t.item.ProductID, w.ID})
		}
	}
	if cancel && inv.DiscountCode != "" {
		// The code's use back (codes are never deleted; Used counts this
		// order's use, so it is above zero).
		dcUpd, err := s.txUpdate(discountKey(inv.DiscountCode), discountKey(inv.DiscountCode),
			expression.Add(expression.Name("Used"), expression.Value(-1)),
			expression.Name("Used").GreaterThan(expression.Value(0)))
		if err != nil {
			return plannedRefund{}, nil, nil, err
		}
		tx = append(tx, dcUpd)
	}
	// The money given back counts on today's totals, in this transaction
	// so the dashboard's refunds are the refund records'.
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return plannedRefund{}, nil, nil, err
	}
	totals, err := s.dayTotalsRefund(o.ID, now, rf.Amount, shards)
	if err != nil {
		return plannedRefund{}, nil, nil, err
	}
	tx = append(tx, totals)
	if req.Mail != nil {
		if m := req.Mail(rf.Refund, o); m != nil {
			put, err := s.mailPut(*m)
			if err != nil {
				return plannedRefund{}, nil, nil, err
			}
			tx, rf.mailed = append(tx, put), true
		}
	}
	left := refundedOrder(o, rf, cancel || rf.unshipped && unitsLeft == 0)
	if tx, err = s.withShopEvent(tx, EventOrderRefunded, o.CustomerID, now, func() any { return eventRefund(rf.Refund, left) }); err != nil {
		return plannedRefund{}, nil, nil, err
	}
	if len(tx) > maxTransactItems {
		return plannedRefund{}, nil, nil, fmt.Errorf("this refund needs more writes than one transaction takes; refund fewer lines at a time: %w", ErrBadRefund)
	}
	return rf, tx, restocked, nil
}

// refundedOrder is o as refund rf leaves it (cancelled: nothing left of it).
func refundedOrder(o Order, rf plannedRefund, cancelled bool) Order {
	o.Refunded.Amount += rf.Amount.Amount
	o.Refunded.Currency = o.Total.Currency
	if cancelled {
		o.Status = OrderCancelled
	}
	return o
}
