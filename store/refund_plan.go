package store

import (
	"fmt"
	"slices"
	"time"
)

type plannedRefund struct {
	Refund
	mailed    bool
	unshipped bool // units of a placed order, back where allocated
}

// lineTake is n units of an order's line a refund takes back.
type lineTake struct {
	item OrderItem
	n    int
}

// refundPlan is a refund worked out from the order as read, before any
// write: what it gives back and to which tender, and what it needs to
// write (the invoice, the tenders, the lines it takes).
type refundPlan struct {
	plannedRefund
	inv       Invoice
	tend      tenders
	takes     []lineTake
	unitsLeft int // units of the order not refunded after this one
}

// planRefund works out a refund of d: its lines at what they cost after
// the discount, delivery if given back, and the amount split gift card
// first, then card. Pure: the preview staff confirm and the transaction
// that makes the refund are the same plan.
func planRefund(d OrderDetails, req OrderRefundRequest, cancel bool, now time.Time) (refundPlan, error) {
	o := d.Order
	inv, ok := d.Invoice()
	if !ok {
		return refundPlan{}, fmt.Errorf("order %s has no invoice: %w", o.ID, ErrBadRefund)
	}
	if cancel && o.Status != OrderPlaced {
		if o.Status == OrderCancelled {
			return refundPlan{}, fmt.Errorf("order %s is cancelled already: %w", o.ID, ErrNotCancelable)
		}
		return refundPlan{}, ErrNotCancelable
	}
	p := refundPlan{inv: inv, plannedRefund: plannedRefund{Refund: Refund{
		ID: req.Key, OrderID: o.ID, At: now, Reason: req.Reason, RestockWarehouse: req.RestockWarehouse,
		ByID: req.By.ID, ByName: req.By.Buyer().Label(req.By.ID), Cancel: cancel, Status: RefundDone,
	}}}
	takes, err := refundTakes(d, req, cancel)
	if err != nil {
		return refundPlan{}, err
	}
	linesValue := p.takeLines(d, takes)
	amount, ship, err := refundAmount(o, req, cancel, len(p.takes), linesValue, len(p.takes) > 0 && p.unitsLeft == 0)
	if err != nil {
		return refundPlan{}, err
	}
	p.Shipping = Money{Amount: ship, Currency: o.Total.Currency}
	if err := p.payBack(o, amount); err != nil {
		return refundPlan{}, err
	}

	// Where the units go back: units of an order not shipping yet never
	// left their warehouses, so they go back there (cancel implies placed).
	p.unshipped = len(p.takes) > 0 && o.Status == OrderPlaced
	if p.unshipped {
		p.RestockWarehouse, p.BackWhereAllocated = "", true
	}
	return p, nil
}

// refundTakes is which units go back: a cancellation takes every unit
// left, a refund by lines the units it names, a refund of an amount none.
func refundTakes(d OrderDetails, req OrderRefundRequest, cancel bool) ([]lineTake, error) {
	var takes []lineTake
	switch {
	case cancel:
		for _, it := range d.Items {
			if n := it.Quantity - it.Refunded; n > 0 {
				takes = append(takes, lineTake{it, n})
			}
		}
	case len(req.Lines) > 0:
		if req.Amount.Amount != 0 {
			return nil, fmt.Errorf("refund by lines or by amount, not both: %w", ErrBadRefund)
		}
		seen := map[string]bool{}
		for _, l := range req.Lines {
			key := orderItemSortKey(l.ProductID, l.DropID)
			if seen[key] {
				return nil, fmt.Errorf("line %s twice: %w", l.ProductID, ErrBadRefund)
			}
			seen[key] = true
			t, err := takeOfLine(d, l)
			if err != nil {
				return nil, err
			}
			takes = append(takes, t)
		}
	}
	return takes, nil
}

// takeOfLine is the units a refund's line names, within what the order's
// line has left to refund.
func takeOfLine(d OrderDetails, l RefundLine) (lineTake, error) {
	i := slices.IndexFunc(d.Items, func(it OrderItem) bool { return it.ProductID == l.ProductID && it.DropID == l.DropID })
	if i < 0 {
		return lineTake{}, fmt.Errorf("product %s is not on order %s: %w", l.ProductID, d.Order.ID, ErrRefundLines)
	}
	if l.Quantity < 1 || l.Quantity > d.Items[i].Quantity-d.Items[i].Refunded {
		return lineTake{}, fmt.Errorf("%s: %w", d.Items[i].ProductName, ErrRefundLines)
	}
	return lineTake{d.Items[i], l.Quantity}, nil
}

// takeLines makes the refund's lines of the units taken, at what they
// cost after the discount, counts the units the order has left after
// them, and is what the lines give back.
func (p *refundPlan) takeLines(d OrderDetails, takes []lineTake) int64 {
	o := d.Order
	p.takes = takes
	var amount int64
	for _, it := range d.Items {
		p.unitsLeft += it.Quantity - it.Refunded
	}
	for _, t := range p.takes {
		v := lineValue(o, t.item, t.n)
		p.Lines = append(p.Lines, RefundLine{ProductID: t.item.ProductID, DropID: t.item.DropID, ProductName: t.item.ProductName, Names: t.item.Names, Quantity: t.n, Amount: Money{Amount: v, Currency: o.Total.Currency}})
		amount += v
		p.unitsLeft -= t.n
	}
	return amount
}

// payBack splits amount between the tenders that paid, gift card first,
// then card; a card part leaves the refund pending until the provider
// has given it back.
func (p *refundPlan) payBack(o Order, amount int64) error {
	cur := o.Total.Currency
	p.tend = tendersOf(o, p.inv)
	gc, card, err := p.tend.split(amount)
	if err != nil {
		return err
	}
	if gc > 0 && p.tend.giftCardCode == "" {
		return fmt.Errorf("this order's gift card is not on its invoice (an order from before refunds): %w", ErrBadRefund)
	}
	if card > 0 && p.tend.chargeID == "" {
		return fmt.Errorf("this order's card charge is not on its invoice: %w", ErrBadRefund)
	}
	p.Amount, p.GiftCard, p.Card, p.chargeID = Money{Amount: amount, Currency: cur}, Money{Amount: gc, Currency: cur}, Money{Amount: card, Currency: cur}, p.tend.chargeID
	if card > 0 {
		p.Status = RefundCardPending
		p.Provider = p.tend.provider
	}
	return nil
}

// restocks is whether the refund puts units back into stock: those of an
// order not shipping yet always, others when staff name a warehouse.
func (p refundPlan) restocks() bool { return p.unshipped || p.RestockWarehouse != "" }

// endsOrder is whether the refund leaves nothing of the order to ship: a
// cancellation, or every unit left of an order not shipping yet.
func (p refundPlan) endsOrder() bool { return p.Cancel || p.unshipped && p.unitsLeft == 0 }
