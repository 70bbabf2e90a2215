package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// PaymentResult is a held order's payment as its provider reports it: by
// a signed event, or by the reconcile step reading the hosted page.
type PaymentResult struct {
	Provider string // "test", "stripe"
	// EventID is the provider's event: it is applied once (an item of its
	// own, event#<provider>#<id>, written with what it does). "" for the
	// reconcile step, which has no event: the order's status makes its
	// settling once.
	EventID    string
	PaymentRef string // the provider's payment (intent) id
	Brand      string // the card, as the invoice names it: "Visa"
	Last4      string
	Amount     Money // what was paid
	// Confirmation, if set, is the order's confirmation mail, written in
	// the transaction that places it.
	Confirmation ConfirmationMail
	// Refunded, if set, tells the customer that a payment which could not
	// place the order (it came after the hold was released, or did not
	// match it) is given back: written with the refund's record.
	Refunded func(Order, Refund) *Mail
}

// PaymentApplied is what a payment did.
type PaymentApplied struct {
	Order Order
	// Duplicate: the event, or this payment, was applied before; nothing
	// was written now.
	Duplicate bool
	// Refund is the payment's refund when it could not place the order
	// (ErrHoldReleased, ErrOrderPaid, ErrPaymentMismatch): recorded and
	// pending, on the card refunds list, for the caller to make at the
	// provider (RetryCardRefund) or the card refunds job.
	Refund *Refund
}

// PlaceHeldOrder applies the payment of a held order: one TransactWriteItems
// holding only what completion needs, on condition the order still awaits
// payment: the order placed (into its month's list and the to-ship list,
// its date the payment's), its lines into their product's and customer's
// order lines (held_items.go), its invoice with the gift card's and the card's
// payments (the card's with its provider and reference), the invoice's
// number from its series' counter, the day's totals, the confirmation mail
// and the event's item (attribute_not_exists). An event applied before,
// or a payment that placed the order already, answers Duplicate and no
// error; so a webhook twice, late, out of order or beside the reconcile
// step places the order once.
//
// A payment that cannot place the order is refunded, never kept: its
// refund is recorded (pending, keyed by the payment so that it is made
// once, with the customer's mail) in the transaction that records the
// event. The order expired meanwhile: ErrHoldReleased. Another payment
// placed it: ErrOrderPaid. The amount, currency or provider is not what
// the hold waits for: the hold is released in that same transaction, and
// ErrPaymentMismatch (logged for staff; the refund's reason says why).
//
// Cost: a consistent Query of the order's collection, the series' counter
// when this process does not know its last number (a GetItem), one
// TransactWriteItems.
func (s *Store) PlaceHeldOrder(ctx context.Context, orderID string, res PaymentResult) (PaymentApplied, error) {
	if err := res.check(); err != nil {
		return PaymentApplied{}, err
	}
	if !ValidID(orderID) {
		return PaymentApplied{}, fmt.Errorf("order %q: %w", orderID, ErrNotFound)
	}
	for range 5 {
		d, err := s.orderDetails(ctx, orderID, true)
		if err != nil {
			return PaymentApplied{}, err
		}
		applied, err := s.applyPayment(ctx, d, res)
		if !errors.Is(err, errOrderMoved) {
			return applied, err
		}
		// Placed, released or the event applied meanwhile: the next read
		// tells which.
	}
	return PaymentApplied{}, fmt.Errorf("place held order %s: it kept changing: %w", orderID, ErrConflict)
}

// applyPayment applies res to the held order d as read.
func (s *Store) applyPayment(ctx context.Context, d OrderDetails, res PaymentResult) (PaymentApplied, error) {
	o := d.Order
	switch {
	case o.Hold == nil:
		return PaymentApplied{Order: o}, ErrNotHeld
	case o.Status == OrderExpired:
		return s.refundPayment(ctx, d, res, ErrHoldReleased)
	case o.Status != OrderAwaitingPayment && o.Hold.PaymentRef == res.PaymentRef && ProviderOf(o.Hold.Provider) == ProviderOf(res.Provider):
		return PaymentApplied{Order: o, Duplicate: true}, nil
	case o.Status != OrderAwaitingPayment:
		return s.refundPayment(ctx, d, res, ErrOrderPaid)
	case res.Amount != o.Hold.Card || o.Hold.Provider != "" && o.Hold.Provider != res.Provider:
		slog.ErrorContext(ctx, "a payment does not match its held order: refunding it and releasing the order",
			"order", o.ID, "provider", res.Provider, "payment", res.PaymentRef, "paid", res.Amount.String(), "held", o.Hold.Card.String(), "held_provider", o.Hold.Provider)
		return s.refundPayment(ctx, d, res, ErrPaymentMismatch)
	}
	placed, err := s.placeHeld(ctx, d, res)
	if err != nil {
		return PaymentApplied{}, err
	}
	return PaymentApplied{Order: placed}, nil
}

// errOrderMoved says a held order's transaction found it no longer
// awaiting payment, or its event applied, and must read it again.
var errOrderMoved = fmt.Errorf("held order moved: %w", ErrConflict)

// placeHeld writes the placing transaction of d's held order, numbered.
func (s *Store) placeHeld(ctx context.Context, d OrderDetails, res PaymentResult) (Order, error) {
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return Order{}, err
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	o := d.Order
	hold := *o.Hold
	hold.Provider, hold.PaymentRef, hold.PaidAt = res.Provider, res.PaymentRef, now
	o.Status, o.PlacedAt, o.Hold = OrderPlaced, now, &hold
	inv := newInvoice(o, d.Items, o.heldTender(), hold.discountCode, hold.giftCardCode, "", now)
	card := cardPayment(Card{Brand: cmp.Or(res.Brand, "Card"), Last4: res.Last4}, res.Amount, res.PaymentRef)
	card.Provider = res.Provider
	inv.Payments = append(inv.Payments, card)
	err = s.numbered(ctx, bookInvoices, o.ID, now, 1, func(book bookNumber) error {
		inv.ID = book.String()
		tx, roles, err := s.placeItems(o, d.Items, inv, book, res, now, shards)
		if err != nil {
			return err
		}
		err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx})
		reasons := cancellationReasons(err)
		switch {
		case reasons == nil:
			return err
		case moved(reasons, roles):
			return errOrderMoved
		case bookNumberTaken(err, slices.IndexFunc(roles, func(r itemRole) bool { return r.kind == "books" })):
			return errBookNumberTaken
		}
		return fmt.Errorf("place held order %s: %w", o.ID, err)
	})
	return o, err
}

// placeItems builds the placing transaction: the order first (its
// failure: no longer awaiting payment), the event second (its failure:
// applied already), then the invoice, its number's counter, the day's
// totals, the mail and the lines into their product's and customer's
// order lines (held_items.go).
func (s *Store) placeItems(o Order, items []OrderItem, inv Invoice, book bookNumber, res PaymentResult, now time.Time, listShards int) ([]types.TransactWriteItem, []itemRole, error) {
	b := &txItems{s: s}
	shard := shardOf(o.ID, listShards)
	// Into its month's list and the to-ship list, dated as its invoice:
	// the books' month of an order is its invoice's.
	upd := expression.Set(expression.Name("Status"), expression.Value(string(OrderPlaced))).
		Set(expression.Name("Date"), expression.Value(timestamp(now))).
		Set(expression.Name("DayCounted"), expression.Value(true)).
		Set(expression.Name("Hold.Provider"), expression.Value(res.Provider)).
		Set(expression.Name("Hold.PaymentRef"), expression.Value(res.PaymentRef)).
		Set(expression.Name("Hold.PaidAt"), expression.Value(timestamp(now))).
		Set(expression.Name(attrGSI1PK), expression.Value(shardKey(ordersMonthKey(now), shard))).
		Set(expression.Name(attrGSI1SK), expression.Value(createdKey(now, o.ID))).
		Set(expression.Name(attrGSI2SK), expression.Value(datedKey(prefixOrder, now))).
		Set(expression.Name(attrAttnPK), expression.Value(toShipKey(shard))).
		Set(expression.Name(attrAttnSK), expression.Value(createdKey(now, o.ID)))
	placed := o
	placed.PlacedAt = now
	upd = onPackingQueue(upd, placed, items, listShards)
	if err := b.update(orderKey(o.ID), customerKey(o.CustomerID), upd, awaitingPayment(), itemRole{}); err != nil {
		return nil, nil, err
	}
	if err := s.eventItem(b, res.Provider, res.EventID, o.ID, eventPlaced, now); err != nil {
		return nil, nil, err
	}
	notExists := expression.AttributeNotExists(expression.Name(attrPK))
	if err := b.put(newInvoiceRecord(inv), &notExists, itemRole{}); err != nil {
		return nil, nil, err
	}
	counter, err := s.bookCounterWrite(book)
	if err != nil {
		return nil, nil, err
	}
	b.add(counter, itemRole{kind: "books"})
	totals, err := s.dayTotalsUpdate(o, listShards)
	if err != nil {
		return nil, nil, err
	}
	b.add(totals, itemRole{kind: "day-totals"})
	if res.Confirmation != nil {
		mail, err := s.mailPut(res.Confirmation(o, items, inv))
		if err != nil {
			return nil, nil, err
		}
		b.add(mail, itemRole{})
	}
	if err := b.shopEvent(EventOrderPlaced, o.CustomerID, now, func() any { return eventOrder(o, items) }); err != nil {
		return nil, nil, err
	}
	if err := soldLines(b, o, items, now); err != nil {
		return nil, nil, err
	}
	return b.tx, b.roles, nil
}

// placeWrites counts the items of the placing transaction: the order, the
// event, the invoice, its number's counter, the day's totals, the mail and
// each of its lines, and the order.placed event when an endpoint wants
// it. At most 7 + 15 = 22.
func (s *Store) placeWrites(res PaymentResult, lines int) int {
	n := 5 + lines
	if res.Confirmation != nil {
		n++
	}
	if len(s.shopEndpoints(EventOrderPlaced)) > 0 {
		n++
	}
	return n
}

// moved says a held order's transaction was cancelled because the order
// (its first item) no longer awaits payment, or its event was applied.
func moved(reasons []string, roles []itemRole) bool {
	for i, r := range reasons {
		if r == reasonConditionFailed && (i == 0 || i < len(roles) && roles[i].kind == "event") {
			return true
		}
	}
	return false
}

// awaitingPayment is the condition of every write that settles a hold.
func awaitingPayment() expression.ConditionBuilder {
	return expression.Name("Status").Equal(expression.Value(string(OrderAwaitingPayment)))
}

func (res PaymentResult) check() error {
	switch {
	case res.Provider == "" || !ValidID(res.Provider):
		return fmt.Errorf("a payment names its provider: %w", errBadPayment)
	case res.PaymentRef == "" || len(res.PaymentRef) > 255:
		return fmt.Errorf("a payment names the provider's payment: %w", errBadPayment)
	case res.EventID != "" && !validEventID(res.EventID):
		return fmt.Errorf("event id %q: %w", res.EventID, errBadPayment)
	case res.Amount.Amount <= 0:
		return fmt.Errorf("a payment of %s: %w", res.Amount, errBadPayment)
	}
	return nil
}
