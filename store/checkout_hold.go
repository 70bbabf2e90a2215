package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store/rules"
)

// A card checkout paid on a provider's hosted page is four steps, a file
// each: this one holds the order (everything it takes is taken, the order
// awaits payment until a deadline), checkout_place.go places it when its
// payment is reported, checkout_release.go gives everything back when its
// payment will not come, and payment_event.go applies each provider event
// once, refunds a payment that came too late and lists the holds the
// reconcile step must settle.

// MaxPaymentHold is the longest a held order waits for its payment (a
// Stripe Checkout session expires within 24 hours of its creation).
const MaxPaymentHold = 24 * time.Hour

// minPaymentHold is the shortest: time to type a card on the hosted page.
const minPaymentHold = time.Minute

var (
	ErrBadHold = fmt.Errorf("a payment hold lasts from %v to %v", minPaymentHold, MaxPaymentHold)
	// errBadPayment: a provider's report lacks what applying it needs
	// (provider, payment, amount, a usable event or page id).
	errBadPayment = errors.New("the payment report is incomplete")
	// ErrNotHeld: the order is not one a checkout held for its payment.
	ErrNotHeld = errors.New("the order is not awaiting a card payment")
	// ErrHoldReleased: the order's hold was released (expired) before its
	// payment came. The payment's refund is recorded, pending: the caller
	// makes it at the provider (RetryCardRefund), else the card refunds
	// job does.
	ErrHoldReleased = errors.New("the order expired before its payment came; the payment is refunded")
	// ErrOrderPaid: the order was placed by its payment meanwhile, so its
	// hold cannot be released (a session already complete is settled as
	// paid); or, from PlaceHeldOrder, another payment placed it and this
	// one is refunded.
	ErrOrderPaid = errors.New("the order was paid meanwhile")
	// ErrPaymentMismatch: a payment that does not match what the hold
	// waits for (amount, currency or provider) does not place the order:
	// the hold is released and the payment refunded, for staff to look into.
	ErrPaymentMismatch = errors.New("the payment does not match the order's amount; it is refunded and the order released")
)

// PaymentHold is what a held order waits for, and how it ended.
type PaymentHold struct {
	Until       time.Time // the deadline: the hosted page expires then
	Card        Money     // what the card is to pay (the order's total less the gift card's part)
	CheckoutKey string
	// Provider and SessionID are the hosted page's, once attached
	// (AttachPaymentSession).
	Provider, SessionID string
	// PaymentRef is the provider's payment that placed the order, and
	// PaidAt when it was applied.
	PaymentRef string
	PaidAt     time.Time
	// ReleasedAt and Reason: an expired order's release.
	ReleasedAt time.Time
	Reason     HoldReleaseReason

	// What the hold took besides stock and the ticket (on its items), to
	// make the invoice from or give back.
	giftCard                              Money
	giftCardCode, discountCode, cartOwner string
}

// HoldReleaseReason is why a hold was released.
type HoldReleaseReason string

const (
	ReleaseExpired   HoldReleaseReason = "expired"          // the provider expired the hosted page
	ReleaseCancelled HoldReleaseReason = "cancelled"        // the customer cancelled the pending order
	ReleaseDeadline  HoldReleaseReason = "deadline"         // the reconcile step found it past its deadline
	ReleaseMismatch  HoldReleaseReason = "payment-mismatch" // paid, but not what it waited for (refunded)
)

// holdRecord is the Hold map of a held order's item.
type holdRecord struct {
	Until        string `dynamodbav:"Until"`
	Card         int64  `dynamodbav:"Card"`
	Key          string `dynamodbav:"Key"`
	CartOwner    string `dynamodbav:"CartOwner,omitempty"`
	GiftCard     int64  `dynamodbav:"GiftCard,omitempty"`
	GiftCardCode string `dynamodbav:"GiftCardCode,omitempty"`
	DiscountCode string `dynamodbav:"DiscountCode,omitempty"`
	Provider     string `dynamodbav:"Provider,omitempty"`
	Session      string `dynamodbav:"Session,omitempty"`
	PaymentRef   string `dynamodbav:"PaymentRef,omitempty"`
	PaidAt       string `dynamodbav:"PaidAt,omitempty"`
	ReleasedAt   string `dynamodbav:"ReleasedAt,omitempty"`
	Reason       string `dynamodbav:"Reason,omitempty"`
}

func (r *holdRecord) hold(currency string) *PaymentHold {
	if r == nil {
		return nil
	}
	return &PaymentHold{
		Until: parseTime(r.Until), Card: Money{Amount: r.Card, Currency: currency}, CheckoutKey: r.Key,
		Provider: r.Provider, SessionID: r.Session, PaymentRef: r.PaymentRef, PaidAt: parseTime(r.PaidAt),
		ReleasedAt: parseTime(r.ReleasedAt), Reason: HoldReleaseReason(r.Reason),
		giftCard: Money{Amount: r.GiftCard, Currency: currency}, giftCardCode: r.GiftCardCode, discountCode: r.DiscountCode, cartOwner: r.CartOwner,
	}
}

func newHoldRecord(h *PaymentHold) *holdRecord {
	if h == nil {
		return nil
	}
	r := &holdRecord{
		Until: timestamp(h.Until), Card: h.Card.Amount, Key: h.CheckoutKey, CartOwner: h.cartOwner,
		GiftCard: h.giftCard.Amount, GiftCardCode: h.giftCardCode, DiscountCode: h.discountCode,
		Provider: h.Provider, Session: h.SessionID, PaymentRef: h.PaymentRef, Reason: string(h.Reason),
	}
	if !h.PaidAt.IsZero() {
		r.PaidAt = timestamp(h.PaidAt)
	}
	if !h.ReleasedAt.IsZero() {
		r.ReleasedAt = timestamp(h.ReleasedAt)
	}
	return r
}

// tender is what the held order's payment splits into, as its quote did.
func (o Order) heldTender() rules.Tender {
	return rules.Tender{Subtotal: o.Subtotal, Discount: o.Discount, Shipping: o.Shipping, Total: o.Total, GiftCard: o.Hold.giftCard, Card: o.Hold.Card}
}

// HoldCheckout is "Place order" when the card pays on the provider's
// hosted page. It quotes req as Checkout does; if the gift card and the
// discount leave nothing for the card, the order is placed at once, as
// Checkout places it. Otherwise one TransactWriteItems holds the order:
// it takes for real everything the checkout's own transaction takes (the
// stock of each allocated warehouse, the discount code's use, the gift
// card's part, a ticket's redemption, the ordered lines out of the cart,
// each on the same conditions) and writes the order, its number and its
// items as awaiting_payment until now + req.HoldFor, with what the card is
// to pay, listed by that deadline for the reconcile step. No invoice, no
// day's totals, no mail: those come with the payment (PlaceHeldOrder). The
// caller opens the provider's page for the order's Hold.Card, expiring at
// its Hold.Until, and attaches it (AttachPaymentSession).
//
// The checkout key makes it once: the same key again (a double submit,
// or at once) answers the one order, held or placed.
//
// Cost: a consistent GetItem of the key, the quote's reads (unless
// req.Quote), the list shards' count (read once per process), one
// TransactWriteItems, then each stock level's low-stock check.
//
// Its refusals say themselves as the checkout form says them
// (placingRefusal).
func (s *Store) HoldCheckout(ctx context.Context, req CheckoutRequest) (Order, error) {
	o, err := s.holdCheckout(ctx, req)
	return o, placingRefusal(err)
}

func (s *Store) holdCheckout(ctx context.Context, req CheckoutRequest) (Order, error) {
	if !ValidID(req.Key) || len(req.Key) > 36 {
		return Order{}, ErrBadCheckoutKey
	}
	if req.HoldFor < minPaymentHold || req.HoldFor > MaxPaymentHold {
		return Order{}, ErrBadHold
	}
	touched := make([]string, 0, len(req.Lines))
	for _, l := range req.Lines {
		touched = append(touched, l.ProductID)
	}
	defer s.forgetStock(touched...)
	cur, found, err := s.checkoutKeyItem(ctx, req.Key)
	if err != nil {
		return Order{}, err
	}
	if found && (cur.CustomerID != req.CustomerID || cur.placed()) {
		return s.placedOrder(ctx, cur, true, req.CustomerID) // a double submit, or someone else's key
	}
	var q Quote
	if req.Quote != nil {
		q = *req.Quote
	} else if q, err = s.QuoteCheckout(ctx, req); err != nil {
		return Order{}, err
	}
	if err := q.checkShipping(req); err != nil {
		return Order{}, err
	}
	if req.ExpectTotal != nil && q.Tender.Total != *req.ExpectTotal {
		return Order{}, ErrTotalChanged
	}
	if q.Tender.Card.Amount == 0 {
		// Nothing for the card: placed at once, as today.
		return s.placeAtOnce(ctx, req, q)
	}
	if holdWrites(req, q) > maxTransactItems {
		return Order{}, ErrOrderTooLarge
	}
	listShards, err := s.lists.count(ctx, s)
	if err != nil {
		return Order{}, err
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	order, _ := newOrder(req, q, NewID(), "", s.orderNumbers(), now)
	order.Status = OrderAwaitingPayment
	order.Hold = &PaymentHold{Until: now.Add(req.HoldFor), Card: q.Tender.Card, CheckoutKey: req.Key,
		giftCard: q.Tender.GiftCard, cartOwner: req.CartOwner}
	if q.Tender.GiftCard.Amount > 0 {
		order.Hold.giftCardCode = q.GiftCard.Code
	}
	if q.Discount != nil {
		order.Hold.discountCode = q.Discount.Code
	}
	q, err = s.writeCheckout(ctx, req, q, &order, func(q Quote) ([]itemRole, error) {
		tx, roles, err := s.holdItems(req, q, order, now, listShards)
		if err != nil {
			return nil, err
		}
		return roles, s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx})
	})
	if err != nil {
		// Nothing was charged: the key tells whether a twin (or this very
		// write, its answer lost) holds the order.
		return s.orderAfterFailedWrite(ctx, req, err)
	}
	s.markLowAfter(ctx, q)
	return order, nil
}

// holdItems builds the hold's transaction: the checkout key first (its
// failure: a twin holds it already), the order awaiting payment, its
// number, then what it takes (checkoutTakes).
func (s *Store) holdItems(req CheckoutRequest, q Quote, order Order, now time.Time, listShards int) ([]types.TransactWriteItem, []itemRole, error) {
	b := &txItems{s: s}
	notExists := expression.AttributeNotExists(expression.Name(attrPK))
	// The key names its order, as a placed checkout's does: a double
	// submit answers the order, whatever its payment does since.
	key := idempotencyRecord{
		PK: idempotencyKey(req.Key), SK: idempotencyKey(req.Key), EntityType: entityIdempotency, Status: checkoutPlaced,
		OrderID: order.ID, CustomerID: req.CustomerID, ExpiresAt: order.Hold.Until.Add(idempotencyTTL).Unix(),
	}
	keyCond := newCheckoutKey()
	if err := b.put(key, &keyCond, itemRole{}); err != nil {
		return nil, nil, err
	}
	if err := b.put(newOrderRecord(order, q.Items, listShards), &notExists, itemRole{}); err != nil {
		return nil, nil, err
	}
	if err := b.put(newOrderNumberRecord(order), &notExists, itemRole{kind: "number"}); err != nil {
		return nil, nil, err
	}
	if err := s.checkoutTakes(b, req, q, order, now); err != nil {
		return nil, nil, err
	}
	if len(b.tx) > maxTransactItems {
		return nil, nil, ErrOrderTooLarge
	}
	return b.tx, b.roles, nil
}

// holdWrites counts the items of a hold's transaction: the key, the
// order and its number, and what it takes. At most 3 + 78 = 81.
func holdWrites(req CheckoutRequest, q Quote) int { return 3 + takesWrites(req, q) }

// AttachPaymentSession records the provider and the hosted page (its
// session id) that pay a held order, on condition the order still awaits
// payment and has no other page: the reconcile step reads the page by this
// id when a webhook was missed. Attaching the same page again is no error.
// An order expired meanwhile is ErrHoldReleased (the caller expires the
// page); one placed meanwhile is ErrOrderPaid.
//
// Cost: one UpdateItem (and a consistent Query of the order when its
// condition fails).
func (s *Store) AttachPaymentSession(ctx context.Context, held Order, provider, sessionID string) error {
	if provider == "" || sessionID == "" || len(sessionID) > 255 || !ValidID(held.ID) {
		return fmt.Errorf("attach payment session %q of %q to order %s: %w", sessionID, provider, held.ID, errBadPayment)
	}
	session := expression.Name("Hold.Session")
	err := s.updateIf(ctx, orderKey(held.ID), customerKey(held.CustomerID),
		expression.Set(expression.Name("Hold.Provider"), expression.Value(provider)).Set(session, expression.Value(sessionID)),
		expression.Name("Status").Equal(expression.Value(string(OrderAwaitingPayment))).
			And(expression.Or(expression.AttributeNotExists(session), session.Equal(expression.Value(sessionID)))))
	if !isConditionFailed(err) {
		return err
	}
	d, err := s.orderDetails(ctx, held.ID, true)
	switch {
	case err != nil:
		return err
	case d.Order.Hold == nil:
		return ErrNotHeld
	case d.Order.Status == OrderExpired:
		return ErrHoldReleased
	case d.Order.Status != OrderAwaitingPayment:
		return ErrOrderPaid
	}
	return fmt.Errorf("order %s is paid on another page (%s): %w", held.ID, d.Order.Hold.SessionID, ErrConflict)
}
