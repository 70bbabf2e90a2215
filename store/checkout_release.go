package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// ReleaseHeldOrder gives back everything a held order took, once its
// payment will not come: only an expiry releases (the provider expired the
// hosted page, or the shop expired it because the customer cancelled or
// the deadline passed; a declined card does not, the customer may try
// another on the same page). The caller expires the page first: a page the
// provider says is complete is settled as paid (PlaceHeldOrder), not
// released.
//
// One TransactWriteItems, on condition the order still awaits payment:
// the stock back into each warehouse it was taken from, the discount
// code's use and the gift card's part back, the ticket valid again, the
// order and its items expired and out of every list (the order off the
// awaiting-payment list, out of its customer's orders; the items out of
// their product's and customer's), the lines back in the cart (those not
// there again already, within the cart's 15), and the event's item when an
// event (provider, eventID) released it. An order released already answers
// itself and no error (an event twice, or late); one placed meanwhile
// answers ErrOrderPaid.
//
// Cost: a consistent Query of the order's collection, a consistent Query
// of the cart, one TransactWriteItems, then each stock level's low-stock
// check.
func (s *Store) ReleaseHeldOrder(ctx context.Context, orderID string, reason HoldReleaseReason, provider, eventID string) (Order, error) {
	if !ValidID(orderID) {
		return Order{}, fmt.Errorf("order %q: %w", orderID, ErrNotFound)
	}
	if eventID != "" && (!validEventID(eventID) || !ValidID(provider)) {
		return Order{}, fmt.Errorf("event %q of %q: %w", eventID, provider, errBadPayment)
	}
	for range 5 {
		d, err := s.orderDetails(ctx, orderID, true)
		if err != nil {
			return Order{}, err
		}
		switch {
		case d.Order.Hold == nil:
			return d.Order, ErrNotHeld
		case d.Order.Status == OrderExpired:
			return d.Order, nil
		case d.Order.Status != OrderAwaitingPayment:
			return d.Order, ErrOrderPaid
		}
		o, err := s.release(ctx, d, reason, provider, eventID, nil)
		if errors.Is(err, errOrderMoved) {
			continue
		}
		return o, err
	}
	return Order{}, fmt.Errorf("release held order %s: it kept changing: %w", orderID, ErrConflict)
}

// release writes the release of d's held order (see ReleaseHeldOrder);
// extra adds to its transaction (a mismatched payment's refund). It reads
// the cart, and again when the cart changed meanwhile; errOrderMoved: the
// order no longer awaits payment, or the event was applied.
func (s *Store) release(ctx context.Context, d OrderDetails, reason HoldReleaseReason, provider, eventID string, extra func(b *txItems, now time.Time) error) (Order, error) {
	o := d.Order
	giveTickets := true
	for range 4 {
		var cart *cartRecord
		if owner := o.Hold.cartOwner; owner != "" {
			rec, found, err := s.loadCart(ctx, owner, true)
			if err != nil {
				return Order{}, err
			}
			if !found {
				rec = s.newCart(owner)
				rec.Version = 0 // no cart item: made on condition there is none
			}
			cart = &rec
		}
		now := s.now().UTC().Truncate(time.Millisecond)
		b := &txItems{s: s}
		restocked, err := s.releaseItems(b, d, reason, cart, giveTickets, now)
		if err != nil {
			return Order{}, err
		}
		if err := s.eventItem(b, provider, eventID, o.ID, eventReleased, now); err != nil {
			return Order{}, err
		}
		if extra != nil {
			if err := extra(b, now); err != nil {
				return Order{}, err
			}
		}
		if len(b.tx) > maxTransactItems {
			return Order{}, fmt.Errorf("release order %s: %d writes: %w", o.ID, len(b.tx), ErrOrderTooLarge)
		}
		err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: b.tx})
		if err == nil {
			s.afterRestock(ctx, restocked)
			hold := *o.Hold
			hold.ReleasedAt, hold.Reason = now, reason
			o.Status, o.Hold = OrderExpired, &hold
			return o, nil
		}
		reasons := cancellationReasons(err)
		switch {
		case reasons == nil:
			return Order{}, fmt.Errorf("release order %s: %w", o.ID, err)
		case moved(reasons, b.roles):
			return Order{}, errOrderMoved
		case failedAt(reasons, b.roles, "ticket"):
			// Voided meanwhile (its drop was cancelled): no longer the
			// order's to give back.
			giveTickets = false
		case failedAt(reasons, b.roles, "cart"):
			// The cart changed meanwhile: read it again.
		default:
			return Order{}, fmt.Errorf("release order %s: %v: %w", o.ID, reasons, ErrConflict)
		}
	}
	return Order{}, fmt.Errorf("release order %s: the cart kept changing: %w", o.ID, ErrConflict)
}

// failedAt says whether an item of the kind failed its condition.
func failedAt(reasons []string, roles []itemRole, kind string) bool {
	for i, r := range reasons {
		if r == reasonConditionFailed && i < len(roles) && roles[i].kind == kind {
			return true
		}
	}
	return false
}

// releaseItems adds to b the release of d's held order (the order first:
// its failure means it no longer awaits payment) and returns the stock
// levels it puts units back into. cart is the cart as read (Version 0:
// there is none), nil for an order that emptied no cart.
func (s *Store) releaseItems(b *txItems, d OrderDetails, reason HoldReleaseReason, cart *cartRecord, giveTickets bool, now time.Time) ([]stockBack, error) {
	o := d.Order
	upd := expression.Set(expression.Name("Status"), expression.Value(string(OrderExpired))).
		Set(expression.Name("Hold.ReleasedAt"), expression.Value(timestamp(now))).
		Set(expression.Name("Hold.Reason"), expression.Value(string(reason))).
		Set(expression.Name(attrGSI2SK), expression.Value(expiredOrderKey(o.PlacedAt))).
		Remove(expression.Name(attrGSI1PK)).Remove(expression.Name(attrGSI1SK))
	if err := b.update(orderKey(o.ID), customerKey(o.CustomerID), upd, awaitingPayment(), itemRole{}); err != nil {
		return nil, err
	}
	var restocked []stockBack
	var back []OrderItem // the lines to put back in the cart
	for _, it := range d.Items {
		levels, inCart, err := releaseLine(b, o, it, giveTickets)
		if err != nil {
			return nil, err
		}
		restocked = append(restocked, levels...)
		if inCart {
			back = append(back, it)
		}
	}
	if cart != nil {
		if put, ok := cartWithLinesBack(*cart, back, now); ok {
			w, err := s.cartPut(put, cart.Version > 0, cart.Version)
			if err != nil {
				return nil, err
			}
			b.add(w, itemRole{kind: "cart"})
		}
	}
	if err := releaseCodes(b, o); err != nil {
		return nil, err
	}
	return restocked, nil
}

// releaseLine adds to b the release of one line of held order o: the line
// expired, and what it took back where it came from, a ticket (valid
// again, if giveTickets) or stock (restocked: the levels). inCart says
// whether the line goes back into the cart: a ticket kept redeemed does
// not.
func releaseLine(b *txItems, o Order, it OrderItem, giveTickets bool) (restocked []stockBack, inCart bool, err error) {
	exists := expression.AttributeExists(expression.Name(attrPK))
	err = b.update(orderKey(o.ID), orderItemSortKey(it.ProductID, it.DropID),
		expression.Set(expression.Name("Status"), expression.Value(string(OrderExpired))).
			Remove(expression.Name(attrGSI1PK)).Remove(expression.Name(attrGSI1SK)).
			Remove(expression.Name(attrGSI2PK)).Remove(expression.Name(attrGSI2SK)),
		exists, itemRole{})
	if err != nil {
		return nil, false, err
	}
	if it.DropID != "" {
		if !giveTickets {
			return nil, false, nil
		}
		// Valid again, on condition it is still this order's.
		err := b.update(ticketPartition(it.DropID), ticketSortKey(o.CustomerID),
			expression.Set(expression.Name("Status"), expression.Value(string(TicketValid))).
				Remove(expression.Name("OrderID")).Remove(expression.Name("RedeemedAt")),
			expression.Name("Status").Equal(expression.Value(string(TicketRedeemed))).
				And(expression.Name("OrderID").Equal(expression.Value(o.ID))),
			itemRole{kind: "ticket", productID: it.ProductID, name: it.ProductName})
		if err != nil {
			return nil, false, err
		}
		return nil, true, nil
	}
	for _, a := range it.Allocations {
		// Back where it was taken from (stock levels are never
		// deleted, so the level is there).
		err := b.update(productKey(it.ProductID), warehouseKey(a.WarehouseID),
			expression.Add(expression.Name("Quantity"), expression.Value(a.Quantity)), exists,
			itemRole{kind: "stock", productID: it.ProductID, name: it.ProductName, wanted: a.Quantity})
		if err != nil {
			return nil, false, err
		}
		restocked = append(restocked, stockBack{it.ProductID, a.WarehouseID})
	}
	return restocked, true, nil
}

// releaseCodes adds to b what held order o took of its codes, given back:
// the gift card's balance, and the discount code's use.
func releaseCodes(b *txItems, o Order) error {
	if gc := o.Hold.giftCard; gc.Amount > 0 {
		err := b.update(giftCardKey(o.Hold.giftCardCode), giftCardKey(o.Hold.giftCardCode),
			expression.Set(expression.Name("Balance"), expression.Name("Balance").Plus(expression.Value(gc.Amount))),
			expression.AttributeExists(expression.Name(attrPK)), itemRole{kind: "giftcard"})
		if err != nil {
			return err
		}
	}
	if code := o.Hold.discountCode; code != "" {
		// Its use back: the order never happened (codes are never
		// deleted, and Used counts this order's use).
		err := b.update(discountKey(code), discountKey(code),
			expression.Add(expression.Name("Used"), expression.Value(-1)),
			expression.Name("Used").GreaterThan(expression.Value(0)), itemRole{kind: "discount"})
		if err != nil {
			return err
		}
	}
	return nil
}

// cartWithLinesBack is cart with the order's lines back in it, at their
// order's prices: a line the customer has put in the cart again is left as
// it is, and the cart keeps to its MaxCartLines. ok: it changed.
func cartWithLinesBack(cart cartRecord, items []OrderItem, now time.Time) (cartRecord, bool) {
	lines := maps.Clone(cart.Lines)
	if lines == nil {
		lines = map[string]cartLineDoc{}
	}
	changed := false
	for _, it := range items {
		key := cartLineKey(it.ProductID, it.DropID)
		if _, there := lines[key]; there || len(lines) >= MaxCartLines {
			continue
		}
		doc := cartLineDoc{ProductName: it.ProductName, Names: it.Names, UnitPrice: it.Price.Amount, Currency: it.Price.Currency, Quantity: it.Quantity, AddedAt: timestamp(now)}
		if it.DropID != "" {
			doc.ProductID, doc.DropID = it.ProductID, it.DropID
		}
		lines[key], changed = doc, true
	}
	cart.Lines = lines
	cart.Version++
	return cart, changed
}

// releaseWrites counts the items of a release's transaction: the order,
// per line its item and its stock (or its ticket), the cart, the gift card,
// the discount code and the event. At most 1 + 15 × (1 + 4) + 4 = 80.
func releaseWrites(o Order, items []OrderItem, eventID string) int {
	n := 1
	for _, it := range items {
		n++
		if it.DropID != "" {
			n++
		} else {
			n += len(it.Allocations)
		}
	}
	if o.Hold.cartOwner != "" {
		n++
	}
	if o.Hold.giftCard.Amount > 0 {
		n++
	}
	if o.Hold.discountCode != "" {
		n++
	}
	if eventID != "" {
		n++
	}
	return n
}
