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
)

const idempotencyTTL = 24 * time.Hour

type idempotencyRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	OrderID    string `dynamodbav:"OrderID"`
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
// cart, and the idempotency item. If the write fails the charge is voided.
// The same key submitted again (or at once) returns the one order.
func (s *Store) Checkout(ctx context.Context, req CheckoutRequest, charger Charger) (Order, error) {
	if !ValidID(req.Key) || len(req.Key) > 36 {
		return Order{}, ErrBadCheckoutKey
	}
	if o, err := s.orderForKey(ctx, req.Key); err == nil || !errors.Is(err, ErrNotFound) {
		return o, err // placed already (a double submit), or a read error
	}
	q, err := s.QuoteCheckout(ctx, req)
	if err != nil {
		return Order{}, err
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
		if req.Card == nil {
			return Order{}, ErrCardRequired
		}
		chargeID, err = charger.Charge(ctx, req.Card.Token, q.Tender.Card, "checkout-"+req.Key)
		if err != nil {
			return Order{}, fmt.Errorf("charge card: %w", err)
		}
		invoice.Payments = append(invoice.Payments, Payment{Type: req.Card.Brand, Amount: q.Tender.Card, Reference: chargeID + " · ••••" + req.Card.Last4})
	}

	// A stock condition can fail because the allocation was read before a
	// warehouse ran out while another still has enough: read again and
	// allocate afresh, a few times, before telling the customer.
	for attempt := 1; ; attempt++ {
		tx, roles, err := s.checkoutItems(req, q, order, invoice, now)
		if err != nil {
			return Order{}, s.voidAfter(ctx, charger, chargeID, err)
		}
		err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx})
		if err == nil {
			return order, nil
		}
		reasons := cancellationReasons(err)
		if reasons == nil {
			// The outcome is unknown (a timeout, say): the idempotency item tells.
			if o, rerr := s.orderForKey(context.WithoutCancel(ctx), req.Key); rerr == nil {
				return o, nil
			}
			return Order{}, s.voidAfter(ctx, charger, chargeID, fmt.Errorf("place order: %w", err))
		}
		if reasons[0] == reasonConditionFailed {
			// Another submission with this key placed the order, with this same
			// charge: keep the charge and show that order.
			return s.orderForKey(ctx, req.Key)
		}
		cause := s.explainCancel(ctx, reasons, roles)
		if !errors.Is(cause, ErrInsufficientStock) || attempt == 3 {
			return Order{}, s.voidAfter(ctx, charger, chargeID, cause)
		}
		again, err := s.QuoteCheckout(ctx, req)
		if err != nil {
			return Order{}, s.voidAfter(ctx, charger, chargeID, err)
		}
		if again.Tender != q.Tender {
			return Order{}, s.voidAfter(ctx, charger, chargeID, fmt.Errorf("the total changed while ordering; check it and order again: %w", ErrConflict))
		}
		q = again
	}
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
		OrderID: order.ID, ExpiresAt: now.Add(idempotencyTTL).Unix(),
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
			tx = append(tx, types.TransactWriteItem{Delete: &types.Delete{
				TableName: aws.String(s.table), Key: itemKey(cartKey(req.CartOwner), productKey(it.ProductID)),
			}})
			roles = append(roles, itemRole{})
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
		return nil, nil, fmt.Errorf("order needs %d writes, more than one transaction takes: split it", len(tx))
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
			left := 0
			if err == nil {
				for _, l := range levels {
					left += l.Quantity
				}
			}
			return &StockShortError{ProductID: role.productID, ProductName: role.name, Wanted: role.wanted, Available: left}
		case "giftcard":
			return &CodeError{Field: "giftcard", Err: errors.New("the gift card's balance changed; check it and try again")}
		case "discount":
			return &CodeError{Field: "discount", Err: ErrCodeUsedUp}
		}
	}
	return fmt.Errorf("checkout cancelled: %v: %w", reasons, ErrConflict)
}

// voidAfter voids the charge made for a checkout that did not happen and
// returns the checkout's error.
func (s *Store) voidAfter(ctx context.Context, charger Charger, chargeID string, cause error) error {
	if chargeID == "" {
		return cause
	}
	if err := charger.Void(context.WithoutCancel(ctx), chargeID); err != nil {
		slog.Error("void charge after failed checkout", "charge", chargeID, "err", err)
		return errors.Join(cause, fmt.Errorf("void charge %s: %w", chargeID, err))
	}
	return cause
}

// orderForKey is the order a checkout key already placed, ErrNotFound if none.
func (s *Store) orderForKey(ctx context.Context, key string) (Order, error) {
	var r idempotencyRecord
	if err := s.getItem(ctx, idempotencyKey(key), idempotencyKey(key), &r); err != nil {
		if errors.Is(err, ErrNotFound) {
			return Order{}, fmt.Errorf("checkout key: %w", ErrNotFound)
		}
		return Order{}, fmt.Errorf("get checkout key: %w", err)
	}
	d, err := s.OrderDetails(ctx, r.OrderID)
	return d.Order, err
}

func last4(s string) string {
	s = strings.ReplaceAll(s, "-", "")
	if len(s) <= 4 {
		return s
	}
	return s[len(s)-4:]
}
