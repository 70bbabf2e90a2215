package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"
)

// Charger charges a card once per idempotency key and voids a charge; the
// payment gateway implements it.
type Charger interface {
	Charge(ctx context.Context, token string, amount Money, idempotencyKey string) (chargeID string, err error)
	Void(ctx context.Context, chargeID string) error
}

// CardTender is the card that pays what the gift card does not.
type CardTender struct {
	Token string
	Brand string
	Last4 string
}

// CheckoutLine is a product and how many.
type CheckoutLine struct {
	ProductID string
	Quantity  int
}

// CheckoutRequest is one press of "Place order".
type CheckoutRequest struct {
	Key          string // idempotency key from the checkout form
	CustomerID   string
	CartOwner    string // the cart to empty with the order; "" for none
	Lines        []CheckoutLine
	ShipTo       Address
	DiscountCode string // normalized, or ""
	GiftCardCode string // normalized, or ""
	Card         *CardTender
	// ExpectTotal is the total the customer saw; if the order would cost
	// anything else now, nothing is charged (ErrTotalChanged). nil: unchecked.
	ExpectTotal *Money
	// Quote is QuoteCheckout's answer for this very request, if the caller
	// just made it (to show the summary): Checkout then does not read it all
	// again. The transaction's conditions guard what may have moved since.
	Quote *Quote
}

// Quote is what a checkout would take: the lines priced and allocated, the
// codes read, the tender split.
type Quote struct {
	Items    []OrderItem
	Tender   Tender
	Discount *DiscountCode
	GiftCard *GiftCard
}

// CodeError is a problem with a discount code or gift card, by field.
type CodeError struct {
	Field string // "discount" or "giftcard"
	Err   error
}

func (e *CodeError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *CodeError) Unwrap() error { return e.Err }

var (
	ErrEmptyOrder     = errors.New("the cart is empty")
	ErrCardRequired   = errors.New("a card is needed for the rest of the total")
	ErrBadCheckoutKey = errors.New("checkout key must be an id of at most 36 characters")
	ErrMixedCurrency  = errors.New("the order mixes currencies")
	ErrTotalChanged   = errors.New("the total changed since you saw it")
	ErrOrderTooLarge  = errors.New("this order needs more writes than one transaction takes; split it into two orders")
	ErrCartChanged    = errors.New("your cart changed while ordering")
)

const idempotencyTTL = 24 * time.Hour

type idempotencyRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	OrderID    string `dynamodbav:"OrderID"`
	CustomerID string `dynamodbav:"CustomerID"`
	ExpiresAt  int64  `dynamodbav:"ExpiresAt"`
}

// QuoteCheckout reads the products, stock and codes of a checkout and works
// out allocation and payment, writing nothing: one Query per line (product
// and stock together) and one GetItem per code, all at once.
func (s *Store) QuoteCheckout(ctx context.Context, req CheckoutRequest) (Quote, error) {
	if len(req.Lines) == 0 {
		return Quote{}, ErrEmptyOrder
	}
	if len(req.Lines) > MaxCartLines {
		return Quote{}, ErrCartFull
	}
	seen := map[string]bool{}
	for _, l := range req.Lines {
		if l.Quantity < 1 || l.Quantity > MaxLineQty {
			return Quote{}, ErrBadQty
		}
		if seen[l.ProductID] {
			return Quote{}, fmt.Errorf("product %s twice in one order", l.ProductID)
		}
		seen[l.ProductID] = true
	}

	products := make([]Product, len(req.Lines))
	stock := make([][]StockLevel, len(req.Lines))
	var gift *GiftCard
	var discount *DiscountCode
	g, gctx := errgroup.WithContext(ctx)
	for i, l := range req.Lines {
		g.Go(func() error {
			p, st, err := s.ProductWithStock(gctx, l.ProductID)
			if errors.Is(err, ErrNotFound) {
				return &StockShortError{ProductID: l.ProductID, ProductName: "A product in your cart", Wanted: l.Quantity}
			}
			products[i], stock[i] = p, st
			return err
		})
	}
	if req.GiftCardCode != "" {
		g.Go(func() error {
			gc, err := s.GiftCard(gctx, req.GiftCardCode)
			switch {
			case errors.Is(err, ErrNotFound):
				return &CodeError{Field: "giftcard", Err: ErrNotFound}
			case err != nil:
				return err
			case gc.Balance.Amount <= 0:
				return &CodeError{Field: "giftcard", Err: ErrGiftCardUsed}
			}
			gift = &gc
			return nil
		})
	}
	if req.DiscountCode != "" {
		g.Go(func() error {
			dc, err := s.DiscountCode(gctx, req.DiscountCode)
			switch {
			case errors.Is(err, ErrNotFound):
				return &CodeError{Field: "discount", Err: ErrNotFound}
			case err != nil:
				return err
			}
			if err := dc.Usable(s.now()); err != nil {
				return &CodeError{Field: "discount", Err: err}
			}
			discount = &dc
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return Quote{}, err
	}

	lines := make([]allocationLine, len(req.Lines))
	subtotal := Money{Currency: products[0].Price.Currency}
	for i, l := range req.Lines {
		p := products[i]
		if p.Price.Currency != subtotal.Currency {
			return Quote{}, ErrMixedCurrency
		}
		lines[i] = allocationLine{ProductID: p.ID, ProductName: p.Name, Quantity: l.Quantity, Stock: stock[i]}
		subtotal.Amount += p.Price.Amount * int64(l.Quantity)
	}
	allocations, err := allocate(lines)
	if err != nil {
		return Quote{}, err
	}
	q := Quote{Discount: discount, GiftCard: gift}
	for i, l := range req.Lines {
		q.Items = append(q.Items, OrderItem{
			CustomerID: req.CustomerID, ProductID: l.ProductID, ProductName: products[i].Name,
			Price: products[i].Price, Quantity: l.Quantity, Allocations: allocations[i],
		})
	}
	off := Money{Currency: subtotal.Currency}
	if discount != nil {
		if discount.Kind == DiscountFixed && discount.Amount.Currency != subtotal.Currency {
			return Quote{}, &CodeError{Field: "discount", Err: ErrMixedCurrency}
		}
		off = discount.Off(subtotal)
	}
	balance := Money{Currency: subtotal.Currency}
	if gift != nil {
		if gift.Balance.Currency != subtotal.Currency {
			return Quote{}, &CodeError{Field: "giftcard", Err: ErrMixedCurrency}
		}
		balance = gift.Balance
	}
	q.Tender = splitTender(subtotal, off, balance)
	return q, nil
}

// Checkout places an order: it charges the card (once per req.Key) and
// writes everything in one TransactWriteItems: stock taken from each
// allocated warehouse on condition of enough stock, the gift card on
// condition of enough balance, the discount code's use counted on condition
// of its limit and expiry, the order, its items, its invoice, the emptied
// cart (on condition it still holds what was ordered), and the idempotency
// item. If the write fails the charge is voided, unless a twin submission
// with the same key placed the order with that same charge. The same key
// submitted again (or at once) returns the one order.
func (s *Store) Checkout(ctx context.Context, req CheckoutRequest, charger Charger) (Order, error) {
	if !ValidID(req.Key) || len(req.Key) > 36 {
		return Order{}, ErrBadCheckoutKey
	}
	o, err := s.OrderForKey(ctx, req.Key, req.CustomerID)
	if !errors.Is(err, ErrNotFound) {
		return o, err // placed already (a double submit), or a read error
	}
	var q Quote
	if req.Quote != nil {
		q = *req.Quote
	} else if q, err = s.QuoteCheckout(ctx, req); err != nil {
		return Order{}, err
	}
	if req.ExpectTotal != nil && q.Tender.Total != *req.ExpectTotal {
		return Order{}, ErrTotalChanged
	}
	if q.Tender.Card.Amount > 0 && req.Card == nil {
		return Order{}, ErrCardRequired
	}
	if checkoutWrites(req, q) > 100 {
		return Order{}, ErrOrderTooLarge // found before any charge
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	order := Order{
		ID: NewID(), CustomerID: req.CustomerID, PlacedAt: now, Status: OrderPlaced,
		Subtotal: q.Tender.Subtotal, Discount: q.Tender.Discount, Total: q.Tender.Total,
		ShipTo: req.ShipTo, Lines: len(q.Items),
	}
	invoice := Invoice{ID: NewID(), OrderID: order.ID, CustomerID: req.CustomerID, Date: now, Amount: q.Tender.Total, Discount: q.Tender.Discount}
	if q.Discount != nil {
		invoice.DiscountCode = q.Discount.Code
	}
	if q.Tender.GiftCard.Amount > 0 {
		invoice.Payments = append(invoice.Payments, Payment{Type: "GiftCard", Amount: q.Tender.GiftCard, Reference: "gift card ••••" + last4(q.GiftCard.Code)})
	}
	var chargeID string
	if q.Tender.Card.Amount > 0 {
		chargeID, err = charger.Charge(ctx, req.Card.Token, q.Tender.Card, "checkout-"+req.Key)
		if err != nil {
			return Order{}, fmt.Errorf("charge card: %w", err)
		}
		invoice.Payments = append(invoice.Payments, Payment{Type: req.Card.Brand, Amount: q.Tender.Card, Reference: chargeID + " · ••••" + req.Card.Last4})
	}
	fail := func(cause error) (Order, error) {
		return s.voidUnlessPlaced(ctx, charger, chargeID, req, cause)
	}

	// A stock condition can fail because the allocation was read before a
	// warehouse ran out while another still has enough: read again and
	// allocate afresh, a few times, before telling the customer.
	for attempt := 1; ; attempt++ {
		tx, roles, err := s.checkoutItems(req, q, order, invoice, now)
		if err != nil {
			return fail(err)
		}
		err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx})
		if err == nil {
			return order, nil
		}
		reasons := cancellationReasons(err)
		if reasons == nil {
			return fail(fmt.Errorf("place order: %w", err)) // outcome unknown: the key tells
		}
		if reasons[0] == reasonConditionFailed {
			return fail(fmt.Errorf("checkout key used meanwhile: %w", ErrConflict)) // finds the twin's order
		}
		cause := s.explainCancel(ctx, reasons, roles)
		var short *StockShortError
		if !errors.As(cause, &short) {
			return fail(cause)
		}
		if attempt == 3 {
			if short.Available >= short.Wanted {
				// There is enough, but it kept moving under us.
				return fail(fmt.Errorf("stock of %s kept changing while ordering; try again: %w", short.ProductName, ErrConflict))
			}
			return fail(cause)
		}
		again, err := s.QuoteCheckout(ctx, req)
		if err != nil {
			return fail(err)
		}
		if again.Tender != q.Tender {
			return fail(ErrTotalChanged)
		}
		q = again
	}
}

// checkoutWrites counts the items of an order's transaction: the
// idempotency item, the order, the invoice, per line its item, its stock
// decrements and its cart delete, and the gift card and discount code.
func checkoutWrites(req CheckoutRequest, q Quote) int {
	n := 3
	for _, it := range q.Items {
		n += 1 + len(it.Allocations)
		if req.CartOwner != "" {
			n++
		}
	}
	if q.Tender.GiftCard.Amount > 0 {
		n++
	}
	if q.Discount != nil {
		n++
	}
	return n
}

// itemRole says what a transaction item guards, to explain a cancellation.
type itemRole struct {
	kind      string // "stock", "giftcard", "discount", or ""
	productID string
	name      string
	wanted    int
}

func (s *Store) checkoutItems(req CheckoutRequest, q Quote, order Order, inv Invoice, now time.Time) ([]types.TransactWriteItem, []itemRole, error) {
	var tx []types.TransactWriteItem
	var roles []itemRole
	notExists := expression.AttributeNotExists(expression.Name(attrPK))
	put := func(rec any, cond *expression.ConditionBuilder, role itemRole) error {
		item, err := attributevalue.MarshalMap(rec)
		if err != nil {
			return err
		}
		p := &types.Put{TableName: aws.String(s.table), Item: item}
		if cond != nil {
			expr, err := expression.NewBuilder().WithCondition(*cond).Build()
			if err != nil {
				return err
			}
			p.ConditionExpression, p.ExpressionAttributeNames, p.ExpressionAttributeValues = expr.Condition(), expr.Names(), expr.Values()
		}
		tx, roles = append(tx, types.TransactWriteItem{Put: p}), append(roles, role)
		return nil
	}
	update := func(pk, sk string, upd expression.UpdateBuilder, cond expression.ConditionBuilder, role itemRole) error {
		expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
		if err != nil {
			return err
		}
		tx = append(tx, types.TransactWriteItem{Update: &types.Update{
			TableName: aws.String(s.table), Key: itemKey(pk, sk),
			UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
			ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		}})
		roles = append(roles, role)
		return nil
	}

	// The idempotency item comes first: its failure means "already placed".
	if err := put(idempotencyRecord{
		PK: idempotencyKey(req.Key), SK: idempotencyKey(req.Key), EntityType: entityIdempotency,
		OrderID: order.ID, CustomerID: req.CustomerID, ExpiresAt: now.Add(idempotencyTTL).Unix(),
	}, &notExists, itemRole{}); err != nil {
		return nil, nil, err
	}
	if err := put(newOrderRecord(order), &notExists, itemRole{}); err != nil {
		return nil, nil, err
	}
	if err := put(newInvoiceRecord(inv), &notExists, itemRole{}); err != nil {
		return nil, nil, err
	}
	for _, it := range q.Items {
		it.OrderID, it.PlacedAt = order.ID, order.PlacedAt
		if err := put(newOrderItemRecord(it), nil, itemRole{}); err != nil {
			return nil, nil, err
		}
		for _, a := range it.Allocations {
			err := update(productKey(it.ProductID), warehouseKey(a.WarehouseID),
				expression.Set(expression.Name("Quantity"), expression.Name("Quantity").Minus(expression.Value(a.Quantity))),
				expression.Name("Quantity").GreaterThanEqual(expression.Value(a.Quantity)),
				itemRole{kind: "stock", productID: it.ProductID, name: it.ProductName, wanted: it.Quantity})
			if err != nil {
				return nil, nil, err
			}
		}
		if req.CartOwner != "" {
			// Only the quantity ordered leaves the cart: a line changed in
			// another tab meanwhile cancels the order instead of vanishing.
			cond, err := expression.NewBuilder().WithCondition(expression.Name("Quantity").Equal(expression.Value(it.Quantity))).Build()
			if err != nil {
				return nil, nil, err
			}
			tx = append(tx, types.TransactWriteItem{Delete: &types.Delete{
				TableName: aws.String(s.table), Key: itemKey(cartKey(req.CartOwner), productKey(it.ProductID)),
				ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(), ExpressionAttributeValues: cond.Values(),
			}})
			roles = append(roles, itemRole{kind: "cart"})
		}
	}
	if amt := q.Tender.GiftCard.Amount; amt > 0 {
		err := update(giftCardKey(q.GiftCard.Code), giftCardKey(q.GiftCard.Code),
			expression.Set(expression.Name("Balance"), expression.Name("Balance").Minus(expression.Value(amt))),
			expression.Name("Balance").GreaterThanEqual(expression.Value(amt)), itemRole{kind: "giftcard"})
		if err != nil {
			return nil, nil, err
		}
	}
	if d := q.Discount; d != nil {
		err := update(discountKey(d.Code), discountKey(d.Code),
			expression.Add(expression.Name("Used"), expression.Value(1)),
			expression.Name("Used").LessThan(expression.Name("UsageLimit")).
				And(expression.Name("ExpiresOn").GreaterThan(expression.Value(timestamp(now)))),
			itemRole{kind: "discount"})
		if err != nil {
			return nil, nil, err
		}
	}
	if len(tx) > 100 {
		return nil, nil, ErrOrderTooLarge
	}
	return tx, roles, nil
}

// explainCancel turns the reasons of a cancelled checkout into the error the
// customer sees; for stock it reads how many are left now.
func (s *Store) explainCancel(ctx context.Context, reasons []string, roles []itemRole) error {
	for i, r := range reasons {
		if r != reasonConditionFailed || i >= len(roles) {
			continue
		}
		switch role := roles[i]; role.kind {
		case "stock":
			levels, err := s.ProductStock(ctx, role.productID)
			if err != nil {
				return fmt.Errorf("read stock after a cancelled checkout: %w", err)
			}
			left := 0
			for _, l := range levels {
				left += max(l.Quantity, 0)
			}
			return &StockShortError{ProductID: role.productID, ProductName: role.name, Wanted: role.wanted, Available: left}
		case "cart":
			return ErrCartChanged
		case "giftcard":
			return &CodeError{Field: "giftcard", Err: errors.New("the gift card's balance changed; check it and try again")}
		case "discount":
			return &CodeError{Field: "discount", Err: ErrCodeUsedUp}
		}
	}
	return fmt.Errorf("checkout cancelled: %v: %w", reasons, ErrConflict)
}

// voidUnlessPlaced ends a checkout that did not write its order. If the
// order exists under the key after all (a twin submission with the same key
// and so the same charge placed it, or a write whose answer was lost did),
// that order is the answer and the charge stands. Otherwise the charge is
// voided and cause returned.
func (s *Store) voidUnlessPlaced(ctx context.Context, charger Charger, chargeID string, req CheckoutRequest, cause error) (Order, error) {
	ctx = context.WithoutCancel(ctx) // a charge must not be left behind because the request ended
	o, err := s.OrderForKey(ctx, req.Key, req.CustomerID)
	switch {
	case err == nil:
		return o, nil
	case !errors.Is(err, ErrNotFound):
		// Unknown whether the order exists: keep the charge rather than void
		// a placed order's payment; the log says which charge to check.
		slog.Error("checkout outcome unknown; charge kept", "charge", chargeID, "key", req.Key, "err", err, "cause", cause)
		return Order{}, errors.Join(cause, err)
	}
	if chargeID == "" {
		return Order{}, cause
	}
	if err := charger.Void(ctx, chargeID); err != nil {
		slog.Error("void charge after failed checkout", "charge", chargeID, "key", req.Key, "err", err)
		return Order{}, errors.Join(cause, fmt.Errorf("void charge %s: %w", chargeID, err))
	}
	return Order{}, cause
}

// OrderForKey is the order a checkout key placed, read strongly
// consistently; ErrNotFound if none. A key belongs to one customer.
func (s *Store) OrderForKey(ctx context.Context, key, customerID string) (Order, error) {
	var r idempotencyRecord
	if err := s.getItemConsistent(ctx, idempotencyKey(key), idempotencyKey(key), &r); err != nil {
		if errors.Is(err, ErrNotFound) {
			return Order{}, fmt.Errorf("checkout key: %w", ErrNotFound)
		}
		return Order{}, fmt.Errorf("get checkout key: %w", err)
	}
	if r.CustomerID != customerID {
		return Order{}, ErrBadCheckoutKey
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
