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
// failure on a cancel: no longer placed), the mail last. Each kind of
// item is built by a function of its own from the plan; the order of the
// items is what refund reads the cancellation reasons by.
func (s *Store) refundItems(ctx context.Context, d OrderDetails, req OrderRefundRequest, cancel bool) (plannedRefund, []types.TransactWriteItem, []stockBack, error) {
	o := d.Order
	now := s.now().UTC().Truncate(time.Millisecond)
	plan, err := planRefund(d, req, cancel, now)
	if err != nil {
		return plannedRefund{}, nil, nil, err
	}
	var warehouses map[string]Warehouse
	if plan.restocks() && len(plan.takes) > 0 {
		if warehouses, err = s.restockWarehouses(ctx, plan, req); err != nil {
			return plannedRefund{}, nil, nil, err
		}
	}
	record, err := s.refundRecordPut(o, plan, now)
	if err != nil {
		return plannedRefund{}, nil, nil, err
	}
	order, err := s.refundOrderUpdate(d, plan, now)
	if err != nil {
		return plannedRefund{}, nil, nil, err
	}
	tenders, err := s.refundTenderItems(o, plan)
	if err != nil {
		return plannedRefund{}, nil, nil, err
	}
	tx := append([]types.TransactWriteItem{record, order}, tenders...)
	lines, restocked, err := s.refundLineItems(o, plan, req, warehouses, now)
	if err != nil {
		return plannedRefund{}, nil, nil, err
	}
	tx = append(tx, lines...)
	if cancel && plan.inv.DiscountCode != "" {
		back, err := s.discountUseBack(plan.inv.DiscountCode)
		if err != nil {
			return plannedRefund{}, nil, nil, err
		}
		tx = append(tx, back)
	}
	// The money given back counts on today's totals, in this transaction
	// so the dashboard's refunds are the refund records'.
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return plannedRefund{}, nil, nil, err
	}
	totals, err := s.dayTotalsRefund(o.ID, now, plan.Amount, shards)
	if err != nil {
		return plannedRefund{}, nil, nil, err
	}
	tx = append(tx, totals)
	rf := plan.plannedRefund
	if tx, rf.mailed, err = s.refundMail(tx, req, rf.Refund, o); err != nil {
		return plannedRefund{}, nil, nil, err
	}
	left := refundedOrder(o, rf, plan.endsOrder())
	if tx, err = s.withShopEvent(tx, EventOrderRefunded, o.CustomerID, now, func() any { return eventRefund(rf.Refund, left) }); err != nil {
		return plannedRefund{}, nil, nil, err
	}
	if len(tx) > maxTransactItems {
		return plannedRefund{}, nil, nil, fmt.Errorf("this refund needs more writes than one transaction takes; refund fewer lines at a time: %w", ErrBadRefund)
	}
	return rf, tx, restocked, nil
}

// restockWarehouses are the shop's warehouses by id, for a refund that
// puts units back into stock; the one staff named must be among them.
func (s *Store) restockWarehouses(ctx context.Context, p refundPlan, req OrderRefundRequest) (map[string]Warehouse, error) {
	list, err := s.Warehouses(ctx)
	if err != nil {
		return nil, err
	}
	warehouses := map[string]Warehouse{}
	for _, w := range list {
		warehouses[w.ID] = w
	}
	if !p.unshipped {
		if _, ok := warehouses[req.RestockWarehouse]; !ok {
			return nil, fmt.Errorf("warehouse %s: %w", req.RestockWarehouse, ErrNotFound)
		}
	}
	return warehouses, nil
}

// refundRecordPut is the refund's record, on condition its key is new,
// listed for staff while its card part is pending or its credit note due.
func (s *Store) refundRecordPut(o Order, p refundPlan, now time.Time) (types.TransactWriteItem, error) {
	rf := p.plannedRefund
	rec := refundRecord{
		PK: orderKey(o.ID), SK: refundKey(rf.ID), EntityType: entityRefund, At: timestamp(now),
		Amount: rf.Amount.Amount, GiftCard: rf.GiftCard.Amount, Card: rf.Card.Amount, Shipping: rf.Shipping.Amount, Currency: o.Total.Currency, Reason: rf.Reason, RestockWarehouse: rf.RestockWarehouse,
		BackWhereAllocated: rf.BackWhereAllocated, OrderLabel: o.Label(), ByID: rf.ByID, ByName: rf.ByName, Cancel: rf.Cancel, Status: string(rf.Status), ChargeID: rf.chargeID,
	}
	if rf.Card.Amount > 0 {
		rec.Provider = rf.Provider
	}
	for _, l := range rf.Lines {
		rec.Lines = append(rec.Lines, refundLineRecord{ProductID: l.ProductID, DropID: l.DropID, ProductName: l.ProductName, Names: l.Names, Quantity: l.Quantity, Amount: l.Amount.Amount})
	}
	rec.GSI1PK, rec.GSI1SK = s.refundListKeys(o.ID, rf.ID, now)
	switch {
	case rf.Status == RefundCardPending:
		rec.AttentionListPK, rec.AttentionListSK = pendingRefundKeys(now, orderRefundListID(o.ID, rf.ID))
	case takesCreditNote(Refund{ID: rf.ID, Status: rf.Status}):
		rec.AttentionListPK, rec.AttentionListSK = creditNoteDueKeys(now, o.ID, rf.ID) // until numberCreditNote
	}
	item, err := attributevalue.MarshalMap(rec)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	isNew, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(attrPK))).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Put: &types.Put{TableName: aws.String(s.table), Item: item,
		ConditionExpression: isNew.Condition(), ExpressionAttributeNames: isNew.Names()}}, nil
}

// withinPaid is the condition that attr, plus add, stays within paid (an
// attr not set yet counts as nothing).
func withinPaid(attr string, paid, add int64) expression.ConditionBuilder {
	return expression.Or(expression.AttributeNotExists(expression.Name(attr)),
		expression.Name(attr).LessThanEqual(expression.Value(paid-add)))
}

// plusOn adds add to attr (an attr not set yet counts as nothing).
func plusOn(upd expression.UpdateBuilder, attr string, add int64) expression.UpdateBuilder {
	return upd.Set(expression.Name(attr), expression.Plus(expression.IfNotExists(expression.Name(attr), expression.Value(0)), expression.Value(add)))
}

// refundOrderUpdate adds the refund to the order's sums, each within what
// its tender paid: a refund racing this one with another key fails here
// and reads again.
func (s *Store) refundOrderUpdate(d OrderDetails, p refundPlan, now time.Time) (types.TransactWriteItem, error) {
	o := d.Order
	amount, gc, card := p.Amount.Amount, p.GiftCard.Amount, p.Card.Amount
	upd := plusOn(expression.Set(expression.Name("LastRefundAt"), expression.Value(timestamp(now))), "Refunded", amount)
	cond := withinPaid("Refunded", o.Total.Amount, amount)
	if gc > 0 {
		upd, cond = plusOn(upd, "RefundedGiftCard", gc), cond.And(withinPaid("RefundedGiftCard", p.tend.giftCard, gc))
	}
	if card > 0 {
		upd, cond = plusOn(upd, "RefundedCard", card), cond.And(withinPaid("RefundedCard", p.tend.card, card))
	}
	upd, cond = refundedShipping(upd, cond, p.Shipping.Amount)
	// Units of an order not shipping yet go back into stock on condition
	// staff have not made its shipments meanwhile, and count a refund of
	// units, on which CreateShipments writes: a unit is restocked or
	// shipped, never both. Every unit given back leaves nothing to ship:
	// the order ends as a cancel does, off the to-ship list.
	if p.unshipped || p.Cancel {
		cond = cond.And(expression.Name("Status").Equal(expression.Value(string(OrderPlaced))))
	}
	if p.unshipped {
		// What is left to pick: the conditions on UnitRefunds and the
		// lines' Refunded make it the lines as they then stand.
		more := map[string]int{}
		for _, t := range p.takes {
			more[orderItemSortKey(t.item.ProductID, t.item.DropID)] += t.n
		}
		upd = plusOn(upd, "UnitRefunds", 1).Set(expression.Name("Pick"), expression.Value(pickOf(itemsAfter(d.Items, more))))
	}
	if p.endsOrder() {
		upd = offPackingQueue(upd.Set(expression.Name("Status"), expression.Value(string(OrderCancelled))).
			Remove(expression.Name(attrAttnPK)).Remove(expression.Name(attrAttnSK)))
	}
	return s.txUpdate(orderKey(o.ID), customerKey(o.CustomerID), upd, cond)
}

// refundTenderItems give the money back on the invoice, one negative
// payment per tender, and onto the gift card's balance.
func (s *Store) refundTenderItems(o Order, p refundPlan) ([]types.TransactWriteItem, error) {
	gc, card, tend := p.GiftCard.Amount, p.Card.Amount, p.tend
	var back []paymentRecord
	if gc > 0 {
		back = append(back, paymentRecord{Type: "GiftCard", Amount: -gc, Reference: "refund " + p.ID + " · " + tend.giftCardRef})
	}
	if card > 0 {
		back = append(back, paymentRecord{Type: tend.cardType, Amount: -card, Reference: "refund " + p.ID + " · " + tend.cardRef})
	}
	var tx []types.TransactWriteItem
	if len(back) > 0 {
		invUpd, err := s.txUpdate(orderKey(o.ID), invoiceKey(p.inv.ID),
			expression.Set(expression.Name("Detail.Payments"), expression.ListAppend(expression.Name("Detail.Payments"), expression.Value(back))),
			expression.AttributeExists(expression.Name(attrPK)))
		if err != nil {
			return nil, err
		}
		tx = append(tx, invUpd)
	}
	if gc > 0 {
		gcUpd, err := s.txUpdate(giftCardKey(tend.giftCardCode), giftCardKey(tend.giftCardCode),
			expression.Set(expression.Name("Balance"), expression.Name("Balance").Plus(expression.Value(gc))),
			expression.AttributeExists(expression.Name(attrPK)))
		if err != nil {
			return nil, err
		}
		tx = append(tx, gcUpd)
	}
	return tx, nil
}

// refundLineItems count the refunded units on their lines, within what
// was bought, and put them back into stock with a line in the
// warehouse's adjustment log; restocked are the levels they went into.
func (s *Store) refundLineItems(o Order, p refundPlan, req OrderRefundRequest, warehouses map[string]Warehouse, now time.Time) (tx []types.TransactWriteItem, restocked []stockBack, err error) {
	for _, t := range p.takes {
		lineCond := withinPaid("Refunded", int64(t.item.Quantity), int64(t.n))
		if p.unshipped {
			// Which warehouse a unit goes back to follows the units refunded
			// before: on condition they are still those read.
			lineCond = expression.Name("Refunded").Equal(expression.Value(t.item.Refunded))
			if t.item.Refunded == 0 {
				lineCond = expression.AttributeNotExists(expression.Name("Refunded")).Or(lineCond)
			}
		}
		lineUpd, err := s.txUpdate(orderKey(o.ID), orderItemSortKey(t.item.ProductID, t.item.DropID),
			plusOn(expression.Set(expression.Name("LastRefundAt"), expression.Value(timestamp(now))), "Refunded", int64(t.n)),
			lineCond)
		if err != nil {
			return nil, nil, err
		}
		tx = append(tx, lineUpd)
		if !p.restocks() {
			continue
		}
		items, levels, err := s.restockTake(o, p, req, t, warehouses, now)
		if err != nil {
			return nil, nil, err
		}
		tx, restocked = append(tx, items...), append(restocked, levels...)
	}
	return tx, restocked, nil
}

// restockTake puts the units of t back: into the warehouse staff named,
// or, for an order not shipping yet, where they were allocated.
func (s *Store) restockTake(o Order, p refundPlan, req OrderRefundRequest, t lineTake, warehouses map[string]Warehouse, now time.Time) (tx []types.TransactWriteItem, restocked []stockBack, err error) {
	into := []Allocation{{WarehouseID: p.RestockWarehouse, Quantity: t.n}}
	if p.unshipped {
		into = backWhereAllocated(t.item, t.n)
	}
	for _, a := range into {
		w, ok := warehouses[a.WarehouseID]
		if !ok || a.Quantity <= 0 {
			continue // a warehouse closed since: staff count it by hand
		}
		items, err := s.restockItems(t.item, w, a.Quantity, fmt.Sprintf("%s, order %s: %s", refundWord(p.Cancel), o.Label(), req.Reason), req.By, now)
		if err != nil {
			return nil, nil, err
		}
		tx = append(tx, items...)
		restocked = append(restocked, stockBack{t.item.ProductID, w.ID})
	}
	return tx, restocked, nil
}

// discountUseBack gives a cancelled order's discount code its use back
// (codes are never deleted; Used counts this order's use, so it is above
// zero).
func (s *Store) discountUseBack(code string) (types.TransactWriteItem, error) {
	return s.txUpdate(discountKey(code), discountKey(code),
		expression.Add(expression.Name("Used"), expression.Value(-1)),
		expression.Name("Used").GreaterThan(expression.Value(0)))
}

// refundMail adds the mail req asks for about rf, if any, to tx; mailed
// says it did.
func (s *Store) refundMail(tx []types.TransactWriteItem, req OrderRefundRequest, rf Refund, o Order) ([]types.TransactWriteItem, bool, error) {
	if req.Mail == nil {
		return tx, false, nil
	}
	m := req.Mail(rf, o)
	if m == nil {
		return tx, false, nil
	}
	put, err := s.mailPut(*m)
	if err != nil {
		return nil, false, err
	}
	return append(tx, put), true, nil
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
