package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Money back for orders: staff refund an order in full or in part (by line
// or by amount), and a customer cancels an order that has not shipped.
//
// The split: a refund goes back to the gift card first, then to the card.
// A partial refund thus never turns gift-card value into money on a card
// (a gift card may have been a present or a goodwill credit), the card's
// part, which costs a gateway call and can fail at the bank, is only
// touched for what the gift card did not pay, and a full refund gives each
// tender back all it paid either way.
//
// Exactly once: the refund's record (o#order / rf#key, the key made when
// the form rendered) is written on condition it is new, in one transaction
// with everything the refund moves in the table: the order's refunded sums
// (on condition they stay within what each tender paid), the refunded
// lines (within their quantities), the invoice's negative payments, the
// gift card's balance, the stock put back with its adjustment log, and the
// customer's mail in the outbox. Only then is the card refunded, at the
// provider that took the payment (card_refund.go), under a key made from
// the refund's, and the record marked done: a card refund that failed or
// was lost is finished by the same form sent again (or RetryCardRefund),
// and the provider answers a repeat with its first refund. Money never
// leaves before the table holds the refund.

// RefundLine is how many units of one order line a refund takes back.
type RefundLine struct {
	ProductID   string
	DropID      string       // the line bought with a drop's ticket, else ""
	ProductName string       // filled in by the refund
	Names       ProductNames // as its order line's
	Quantity    int
	Amount      Money // what these units give back, filled in by the refund
}

// NameIn is the product's name as sold, in lang where staff gave one.
func (l RefundLine) NameIn(lang string) string { return l.Names.In(lang, l.ProductName) }

// OrderRefundRequest is one press of "Refund" on an order's staff page (or
// of "Cancel order" on the customer's order page, see CancelOrder).
type OrderRefundRequest struct {
	OrderID string
	Key     string // idempotency key, made when the form rendered
	// Lines refunds these units at what they cost after the order's
	// discount; or, without lines, Amount is refunded.
	Lines  []RefundLine
	Amount Money
	// Shipping refunds what delivery cost too, once per order (alone, or
	// beside lines or an amount): ErrShippingRefunded if a refund gave it
	// back already. A cancellation, and a refund taking every unit left
	// that is not a return's, give it back whatever this says
	// (refund_shipping.go).
	Shipping bool
	// fromReturn: a return's refund, which gives delivery back only when
	// Shipping asks, even for the order's last units.
	fromReturn bool
	Reason     string
	// RestockWarehouse takes the refunded lines back into this warehouse's
	// stock; "" puts nothing back (a broken or kept item). Units of an order
	// not shipping yet never left their warehouse: they go back there,
	// whatever this says.
	RestockWarehouse string
	By               Customer // the staff member
	// SawPlaced: the form was made while the order was placed, saying its
	// units go back where allocated. If it is shipping by now, a refund of
	// units is ErrShippingStarted rather than one staff did not see.
	SawPlaced bool
	// Mail, if set, is the customer's mail of the refund, queued in the
	// outbox in the refund's own transaction.
	Mail func(Refund, Order) *Mail
}

// RefundStatus is where a refund is: its card part may still be on its way.
type RefundStatus string

const (
	RefundCardPending RefundStatus = "card-pending" // written; the card's part not yet confirmed by the gateway
	RefundDone        RefundStatus = "done"
)

// Refund is money given back on an order.
type Refund struct {
	ID       string // the form's idempotency key
	OrderID  string
	At       time.Time
	Amount   Money // all it gives back
	GiftCard Money // of which back to the gift card
	Card     Money // and back to the card
	Shipping Money // of Amount, what delivery cost (zero: delivery not refunded)
	Lines    []RefundLine
	Reason   string
	// RestockWarehouse is where the lines went back into stock ("": nowhere,
	// or where allocated, see BackWhereAllocated).
	RestockWarehouse string
	ByID, ByName     string
	Cancel           bool // the customer's cancellation of an unshipped order
	Status           RefundStatus
	GatewayRefundID  string // the card's refund, once done
	// Provider is the card payment provider its card part goes back
	// through: the one that took the payment ("" before records named
	// theirs: the test provider, see ProviderOf).
	Provider string
	// CardTries are the failed tries of its card part (refund_retry.go).
	CardTries CardRefundTries
	// CreditNote is its number in the books ("CN2026-000001",
	// credit_note.go), given when it is done: at once for one without a
	// card part, when the provider confirms the card's part else; "" until
	// then, and on a refund from before credit notes.
	CreditNote   string
	CreditNoteAt time.Time

	// BackWhereAllocated: the order was not shipping yet, so its units went
	// back into the warehouses they were allocated from (as a cancellation's
	// did before this was recorded).
	BackWhereAllocated bool

	chargeID  string // the card's charge its card part refunds
	cardRound int    // the card part's round: a new one after the provider reported a failure
}

var (
	errRefundReason  = errors.New("say why the order is refunded")
	errRefundNothing = errors.New("choose lines to refund, an amount above zero or delivery")
	ErrRefundLines   = errors.New("a line can give back at most the units not refunded yet")
	errRefundKey     = errors.New("refund key must be an id of at most 36 characters")
	ErrNotCancelable = errors.New("this order can no longer be cancelled: it is being shipped")
	// ErrShippingStarted: units of a placed order were to go back where they
	// were allocated, but its shipments were made first.
	ErrShippingStarted = errors.New("the order started shipping meanwhile; look at it again")
	// ErrRefundCard: the refund is in the books, but the card's part could
	// not be made yet; the same refund sent again finishes it.
	ErrRefundCard = errors.New("the refund is recorded but the card refund did not go through yet; send it again")
)

type refundRecord struct {
	PK               string             `dynamodbav:"PK"` // o#order
	SK               string             `dynamodbav:"SK"` // rf#key
	EntityType       string             `dynamodbav:"EntityType"`
	At               string             `dynamodbav:"At"`
	Amount           int64              `dynamodbav:"Amount"`
	GiftCard         int64              `dynamodbav:"GiftCard"`
	Card             int64              `dynamodbav:"Card"`
	Shipping         int64              `dynamodbav:"Shipping,omitempty"` // of Amount, delivery's
	Currency         string             `dynamodbav:"Currency"`
	Lines            []refundLineRecord `dynamodbav:"Lines,omitempty"`
	Reason           string             `dynamodbav:"Reason"`
	RestockWarehouse string             `dynamodbav:"RestockWarehouse,omitempty"`
	ByID             string             `dynamodbav:"ByID"`
	ByName           string             `dynamodbav:"ByName,omitempty"`
	Cancel           bool               `dynamodbav:"Cancel,omitempty"`
	Status           string             `dynamodbav:"Status"`
	GatewayRefundID  string             `dynamodbav:"GatewayRefundID,omitempty"`
	ChargeID         string             `dynamodbav:"ChargeID,omitempty"`  // the card charge its card part refunds
	Provider         string             `dynamodbav:"Provider,omitempty"`  // the provider of that charge
	CardRound        int                `dynamodbav:"CardRound,omitempty"` // card_refund.go's round
	GSI1PK           string             `dynamodbav:"GSI1-PK,omitempty"`   // refunds#YYYY-MM#shard: the month's list (archive.go)
	GSI1SK           string             `dynamodbav:"GSI1-SK,omitempty"`   // <at>#order#key
	cardTriesRecord                     // while the card part waits: its tries, and listed (refund_retry.go)
	// OrderLabel is the order's number, so the list of waiting card
	// refunds names the order as staff know it without reading it.
	OrderLabel string `dynamodbav:"OrderLabel,omitempty"`

	BackWhereAllocated bool `dynamodbav:"BackWhereAllocated,omitempty"`

	CreditNote   string `dynamodbav:"CreditNote,omitempty"`   // its number in the books, once done
	CreditNoteAt string `dynamodbav:"CreditNoteAt,omitempty"` // when that number was given
}

type refundLineRecord struct {
	ProductID   string       `dynamodbav:"ProductID"`
	DropID      string       `dynamodbav:"DropID,omitempty"`
	ProductName string       `dynamodbav:"ProductName"`
	Names       ProductNames `dynamodbav:"Names,omitempty"`
	Quantity    int          `dynamodbav:"Quantity"`
	Amount      int64        `dynamodbav:"Amount"`
}

func (r refundRecord) refund() Refund {
	c := r.Currency
	rf := Refund{
		ID: trimPrefix(r.SK, prefixRefund), OrderID: trimPrefix(r.PK, prefixOrder), At: parseTime(r.At),
		Amount: Money{Amount: r.Amount, Currency: c}, GiftCard: Money{Amount: r.GiftCard, Currency: c}, Card: Money{Amount: r.Card, Currency: c}, Shipping: Money{Amount: r.Shipping, Currency: c},
		Reason: r.Reason, RestockWarehouse: r.RestockWarehouse, BackWhereAllocated: r.BackWhereAllocated || r.Cancel, ByID: r.ByID, ByName: r.ByName, Cancel: r.Cancel,
		Status: RefundStatus(r.Status), GatewayRefundID: r.GatewayRefundID, chargeID: r.ChargeID, CardTries: r.tries(), Provider: r.Provider,
		cardRound: r.CardRound, CreditNote: r.CreditNote, CreditNoteAt: parseTime(r.CreditNoteAt),
	}
	for _, l := range r.Lines {
		rf.Lines = append(rf.Lines, RefundLine{ProductID: l.ProductID, DropID: l.DropID, ProductName: l.ProductName, Names: l.Names, Quantity: l.Quantity, Amount: Money{Amount: l.Amount, Currency: c}})
	}
	return rf
}

// refundGatewayKey is the gateway's idempotency key of a refund's card part.
func refundGatewayKey(orderID, key string) string { return "refund-" + orderID + "-" + key }

// tenders is what an invoice's gift card and card paid, less what was
// refunded to each, and the card's charge.
type tenders struct {
	giftCard, card         int64 // paid
	giftCardLeft, cardLeft int64 // paid minus refunded
	giftCardCode           string
	giftCardRef, cardRef   string // the payments' references, for the refund's lines
	cardType, chargeID     string
	provider               string // the card payment's
}

func tendersOf(o Order, inv Invoice) tenders {
	var t tenders
	for _, p := range inv.Payments {
		switch {
		case p.Amount.Amount < 0:
			// A refund: its lines are counted by the order's sums.
		case p.Type == "GiftCard":
			t.giftCard += p.Amount.Amount
			t.giftCardRef = p.Reference
		default:
			t.card += p.Amount.Amount
			t.cardType, t.cardRef, t.provider = p.Type, p.Reference, p.Provider
			t.chargeID, _, _ = strings.Cut(p.Reference, " · ")
		}
	}
	t.giftCardCode = inv.giftCardCode
	t.giftCardLeft = t.giftCard - o.RefundedGiftCard.Amount
	t.cardLeft = t.card - o.RefundedCard.Amount
	return t
}

// split is how amount goes back: gift card first, then card (see above).
func (t tenders) split(amount int64) (giftCard, card int64, err error) {
	if amount > t.giftCardLeft+t.cardLeft {
		return 0, 0, ErrRefundExceedsCharge
	}
	giftCard = min(amount, t.giftCardLeft)
	return giftCard, amount - giftCard, nil
}

// refundable is what is left to refund on an order.
func refundable(o Order) Money {
	return Money{Amount: o.Total.Amount - o.Refunded.Amount, Currency: o.Total.Currency}
}

// lineValue is what n units of a line gave: their price less their share of
// the order's discount, rounded down (the last units of an order refunded
// give the rest, so a refund of everything is the total to the cent).
func lineValue(o Order, it OrderItem, n int) int64 {
	gross := it.Price.Amount * int64(n)
	goods := o.Total.Amount - o.Shipping.Amount
	if o.Subtotal.Amount <= 0 || goods == o.Subtotal.Amount {
		return gross
	}
	return gross * goods / o.Subtotal.Amount
}

// RefundOrder gives money back on an order, exactly once per req.Key: by
// lines (their units at what they cost after the discount; the lines'
// stock back into RestockWarehouse if given) or by amount, with a reason,
// gift card first and then card. A refund never gives back more than was
// paid less the refunds before (ErrRefundExceedsCharge), nor more units of
// a line than were bought and not refunded (ErrRefundLines). Every unit of
// an order not shipping yet refunded leaves nothing to ship: it is
// cancelled, as CancelOrder does, and off the to-ship list. The same key
// again returns the first refund (finishing its card part if that was
// left undone; ErrRefundCard while the gateway still fails).
//
// Cost: a consistent Query of the order's collection, a consistent GetItem
// of the key's refund, (a Query of the warehouses to restock into), one
// TransactWriteItems of 4 items (the day's totals among them) + 1 per line
// (+2 per restocked line, +1 gift card, +1 mail), then for a card part a gateway refund and one
// UpdateItem marking the refund done; each restocked level's low-stock
// check after.
func (s *Store) RefundOrder(ctx context.Context, req OrderRefundRequest, charger Refunder) (Refund, error) {
	req, err := checkRefundRequest(req)
	if err != nil {
		return Refund{}, err
	}
	return s.refund(ctx, req, false, charger)
}

// checkRefundRequest refuses a staff refund that could never be made,
// before anything is read.
func checkRefundRequest(req OrderRefundRequest) (OrderRefundRequest, error) {
	if !ValidID(req.Key) || len(req.Key) > 36 {
		return req, errRefundKey
	}
	req.Reason = strings.TrimSpace(req.Reason)
	if req.Reason == "" {
		return req, errRefundReason
	}
	if len([]rune(req.Reason)) > 500 {
		return req, fmt.Errorf("the reason is longer than 500 characters: %w", ErrBadRefund)
	}
	if len(req.Lines) == 0 && req.Amount.Amount <= 0 && !req.Shipping {
		return req, errRefundNothing
	}
	return req, nil
}

// CancelOrder cancels a customer's order that has not started shipping
// (status placed): all of it is refunded at once, the gift card's part back
// to the gift card and the card's to the card, every unit back into the
// warehouse it was allocated from, the discount code's use given back (the
// order never happened, so it should not use up a limited code), the order
// "cancelled" and off the to-ship list. One transaction, on condition the
// order is still placed: staff creating its shipments at the same moment
// either win (ErrNotCancelable) or find it cancelled. Exactly once per key.
func (s *Store) CancelOrder(ctx context.Context, orderID, customerID, key string, mail func(Refund, Order) *Mail, charger Refunder) (Refund, error) {
	if !ValidID(key) || len(key) > 36 {
		return Refund{}, errRefundKey
	}
	req := OrderRefundRequest{OrderID: orderID, Key: key, Reason: "Cancelled by the customer", By: Customer{ID: customerID}, Mail: mail}
	return s.refund(ctx, req, true, charger)
}

func (s *Store) refund(ctx context.Context, req OrderRefundRequest, cancel bool, charger Refunder) (Refund, error) {
	const attempts = 5
	plannedUnshipped := req.SawPlaced && len(req.Lines) > 0 // an amount restocks nothing either way
	for attempt := 1; ; attempt++ {
		d, err := s.orderDetails(ctx, req.OrderID, true)
		if err != nil {
			return Refund{}, err
		}
		if cancel && d.Order.CustomerID != req.By.ID {
			return Refund{}, fmt.Errorf("order %s: %w", req.OrderID, ErrNotFound) // not theirs: as if absent
		}
		if done, ok := d.Refund(req.Key); ok {
			return s.finishRefund(ctx, d.Order, done, charger)
		}
		if plannedUnshipped && d.Order.Status != OrderPlaced && d.Order.Status != OrderCancelled {
			// Planned as units going back where allocated, which shipping
			// has changed: staff look again rather than get another refund.
			return Refund{}, ErrShippingStarted
		}
		rf, tx, restocked, err := s.refundItems(ctx, d, req, cancel)
		if err != nil {
			return Refund{}, err
		}
		plannedUnshipped = rf.unshipped
		err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx})
		if err == nil {
			s.afterRestock(ctx, restocked)
			return s.finishRefund(ctx, d.Order, rf.Refund, charger)
		}
		reasons := cancellationReasons(err)
		switch {
		case reasons == nil:
			return Refund{}, fmt.Errorf("refund order %s: %w", req.OrderID, err)
		case reasons[0] == reasonConditionFailed:
			continue // a twin with this key was first: the next read finds it
		case cancel && reasons[1] == reasonConditionFailed:
			again, rerr := s.orderDetails(ctx, req.OrderID, true)
			if rerr == nil && again.Order.Status == OrderCancelled {
				continue // cancelled meanwhile by another key: the read tells
			}
			return Refund{}, ErrNotCancelable
		case reasons[len(reasons)-1] == reasonConditionFailed && req.Mail != nil && rf.mailed:
			return Refund{}, fmt.Errorf("refund %s: its mail id was used: %w", req.Key, ErrConflict)
		}
		// Another refund changed the order's sums or lines since they were
		// read: read again and see whether this one still fits.
		if attempt == attempts {
			return Refund{}, fmt.Errorf("the order kept changing while refunding; try again: %w", ErrConflict)
		}
		select {
		case <-ctx.Done():
			return Refund{}, ctx.Err()
		case <-time.After(time.Duration(5<<attempt)*time.Millisecond + rand.N(10*time.Millisecond)):
		}
	}
}

// Refund is the order's refund of the key, if it has one.
func (d OrderDetails) Refund(key string) (Refund, bool) {
	for _, r := range d.Refunds {
		if r.ID == key {
			return r, true
		}
	}
	return Refund{}, false
}

func refundWord(cancel bool) string {
	if cancel {
		return "Cancelled"
	}
	return "Refund"
}

// restockItems are the writes putting n units of an order line back into
// w: its stock level (made if w did not hold the product) and the
// adjustment log's line, as AdjustStock writes them.
func (s *Store) restockItems(it OrderItem, w Warehouse, n int, reason string, by Customer, now time.Time) ([]types.TransactWriteItem, error) {
	expr, err := expression.NewBuilder().WithUpdate(expression.Set(expression.Name("Quantity"), expression.Plus(expression.IfNotExists(expression.Name("Quantity"), expression.Value(0)), expression.Value(n))).
		Set(expression.Name("EntityType"), expression.Value(entityWarehouseItem)).
		Set(expression.Name("ProductName"), expression.Value(it.ProductName)).
		Set(expression.Name("WarehouseName"), expression.Value(w.Name)).
		Set(expression.Name("City"), expression.Value(w.Address.City)).
		Set(expression.Name(attrGSI2PK), expression.Value(warehouseKey(w.ID))).
		Set(expression.Name(attrGSI2SK), expression.Value(productKey(it.ProductID)))).Build()
	if err != nil {
		return nil, err
	}
	level := types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(s.table), Key: itemKey(productKey(it.ProductID), warehouseKey(w.ID)),
		UpdateExpression: expr.Update(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}
	log, err := attributevalue.MarshalMap(adjustmentRecord{
		PK: warehouseKey(w.ID), SK: adjustmentKey(now, NewID()), EntityType: entityAdjustment, ProductID: it.ProductID, ProductName: it.ProductName,
		Delta: n, Reason: reason, StaffID: by.ID, StaffName: by.Buyer().Label(by.ID), At: timestamp(now),
	})
	if err != nil {
		return nil, err
	}
	return []types.TransactWriteItem{level, {Put: &types.Put{TableName: aws.String(s.table), Item: log}}}, nil
}

// afterRestock puts the levels a refund put units into on or off the
// low-stock list; a level whose write failed is put right by its next change.
func (s *Store) afterRestock(ctx context.Context, levels []stockBack) {
	for _, l := range levels {
		s.forgetStock(l.productID)
		if err := s.markLowStock(ctx, l.productID, l.warehouseID, false); err != nil {
			slog.Warn("stock put back, its low mark not updated; its next change does", "product", l.productID, "warehouse", l.warehouseID, "err", err)
		}
	}
}
