package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Checkout is this file (the request, and the checkout key's item),
// checkout_quote.go (reading and pricing), checkout_hold.go (the hold
// while the card is paid on the provider's page), checkout_tx.go (the
// order's transaction when nothing is left for a card, and what a failed
// one answers) and checkout_place.go (the hold placed by its payment).

// CheckoutLine is a product and how many. A line with a DropID is that
// drop's ticket: one unit of the product at the drop's price, and the
// ticket is redeemed by the order.
type CheckoutLine struct {
	ProductID string
	Quantity  int
	DropID    string
}

// ConfirmationMail builds an order's confirmation from what its placing
// transaction writes: the order, its lines and its invoice (its payments,
// its code), so the mail says how the order was paid without a read.
type ConfirmationMail func(Order, []OrderItem, Invoice) Mail

// CheckoutRequest is one press of "Place order".
type CheckoutRequest struct {
	Key          string // idempotency key from the checkout form
	CustomerID   string
	Buyer        Buyer  // the customer's name and email, kept on the order
	CartOwner    string // the cart to empty with the order; "" for none
	Lines        []CheckoutLine
	ShipTo       Address
	DiscountCode string // normalized, or ""
	GiftCardCode string // normalized, or ""
	// ExpectTotal is the total the customer saw, delivery included; if
	// the order would cost anything else now, nothing is held
	// (ErrTotalChanged). nil: unchecked.
	ExpectTotal *Money
	// Quote is QuoteCheckout's answer for this very request, if the caller
	// just made it (to show the summary): HoldCheckout then does not read
	// it all again. The transaction's conditions guard what may have moved since.
	Quote *Quote
	// Confirmation, if set, is the order's confirmation mail, put in the
	// outbox by the order's own transaction (one item more): never an
	// order without its mail, nor a mail without its order.
	Confirmation ConfirmationMail
	// HoldFor is how long HoldCheckout holds the order for its card
	// payment on the provider's page.
	HoldFor time.Duration
}

var (
	ErrEmptyOrder     error = Refuse(Conflict, "checkout.empty", "the cart is empty")
	errCardRequired         = errors.New("a card is needed for the rest of the total")
	ErrBadCheckoutKey error = Refuse(Broken, "checkout.form_broken", "checkout key must be an id of at most 36 characters")
	ErrMixedCurrency        = errors.New("the order mixes currencies")
	ErrTotalChanged   error = Refuse(Conflict, "checkout.total_changed", "the total changed since you saw it")
	ErrOrderTooLarge  error = Refuse(Invalid, "checkout.too_large", "this order needs more writes than one transaction takes; split it into two orders")
	ErrCartChanged    error = Refuse(Conflict, "checkout.cart_changed", "your cart changed while ordering")
)

// placingRefusal is err as the checkout form says a refusal met while
// placing the order, where the customer learns that nothing was charged:
// a ticket that can no longer be used says why and to remove it, and a
// conflict the order met (its items kept changing, its key used
// meanwhile) says to check the order and place it again. Other refusals
// say themselves; errors.Is finds err through either.
func placingRefusal(err error) error {
	if errors.Is(err, ErrTicketNotRedeemable) {
		return &Refusal{Kind: Conflict, Message: "checkout.ticket_refused", Args: []any{"Why", ErrTicketNotRedeemable},
			Words: err.Error(), Err: err}
	}
	if _, ok := RefusalOf(err); !ok && errors.Is(err, ErrConflict) {
		return &Refusal{Kind: Conflict, Message: "checkout.conflict", Words: err.Error(), Err: err}
	}
	return err
}

// checkoutPlaced is the status of a checkout key's item that names its
// order (held or placed). Items an older version left with a card charge
// under way (charging, voiding, voided, abandoned) name no order: nothing
// reads them any more, and their TTL removes them within a week.
const checkoutPlaced = "placed"

// idempotencyTTL is how long a placed checkout key is kept: double submits
// within a day answer the one order.
const idempotencyTTL = 24 * time.Hour

// idempotencyRecord is the item of a checkout key, PK=SK=idem#key. Items
// written before checkouts had a status are placed.
type idempotencyRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	Status     string `dynamodbav:"Status,omitempty"`
	OrderID    string `dynamodbav:"OrderID,omitempty"`
	CustomerID string `dynamodbav:"CustomerID"`
	ExpiresAt  int64  `dynamodbav:"ExpiresAt"`
}

func (r idempotencyRecord) placed() bool { return r.Status == "" || r.Status == checkoutPlaced }

// checkoutKeyItem reads a checkout key's item, strongly consistent.
func (s *Store) checkoutKeyItem(ctx context.Context, key string) (idempotencyRecord, bool, error) {
	r, err := getItemConsistent(ctx, s, idempotencyKey(key), idempotencyKey(key), "checkout key", asRecord[idempotencyRecord])
	if errors.Is(err, ErrNotFound) {
		return r, false, nil
	}
	return r, err == nil, err
}

// OrderForKey is the order a checkout key placed (or holds), read
// strongly consistently; ErrNotFound if none. A key belongs to one
// customer.
func (s *Store) OrderForKey(ctx context.Context, key, customerID string) (Order, error) {
	r, found, err := s.checkoutKeyItem(ctx, key)
	if err != nil {
		return Order{}, err
	}
	return s.placedOrder(ctx, r, found, customerID)
}

func (s *Store) placedOrder(ctx context.Context, r idempotencyRecord, found bool, customerID string) (Order, error) {
	switch {
	case !found:
		return Order{}, fmt.Errorf("checkout key: %w", ErrNotFound)
	case r.CustomerID != customerID:
		return Order{}, ErrBadCheckoutKey
	case !r.placed():
		return Order{}, fmt.Errorf("checkout key %s: %w", r.Status, ErrNotFound)
	}
	d, err := s.orderDetails(ctx, r.OrderID, true)
	return d.Order, err
}

func last4(s string) string {
	s = strings.ReplaceAll(s, "-", "")
	if len(s) <= 4 {
		return s
	}
	return s[len(s)-4:]
}
