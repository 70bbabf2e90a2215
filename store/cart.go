package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Cart limits. A cart is one item (PK=cart#owner, SK=cart) whose Lines map
// holds a line per product, so checkout empties it with one write. The
// limits are conditions of the writes themselves: a new line only while
// size(Lines) < MaxCartLines, a line grows only while it stays within
// MaxLineQty. A checkout's transaction then holds at most
// 3 + 15 × (1 + MaxLineWarehouses) + 1 + 2 = 81 items (see checkoutWrites).
const (
	MaxCartLines   = 15
	MaxLineQty     = 99
	visitorCartTTL = 30 * 24 * time.Hour
)

// Refusals of what a cart may hold, in the catalogue's words with their
// limits.
var (
	ErrCartFull error = &Refusal{Kind: Conflict, Message: "cart.full", Args: []any{"Max", MaxCartLines},
		Words: fmt.Sprintf("a cart holds at most %d different products", MaxCartLines)}
	ErrBadQty     error = Refuse(Invalid, "cart.bad_quantity", "quantity must be a whole number from 1 to 99")
	ErrLineTooBig error = &Refusal{Kind: Invalid, Message: "cart.line_too_big", Args: []any{"Max", MaxLineQty},
		Words: fmt.Sprintf("at most %d of one product per order", MaxLineQty)}
)

// ParseQuantity reads a quantity typed by a person.
func ParseQuantity(s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 3 || strings.Trim(s, "0123456789") != "" {
		return 0, ErrBadQty
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > MaxLineQty {
		return 0, ErrBadQty
	}
	return n, nil
}

// CartLine is one product in a cart, with the name and price it had when it
// was added; checkout prices from the product itself.
type CartLine struct {
	ProductID   string
	ProductName string
	Names       ProductNames // the name in the shop's other languages (NameIn)
	UnitPrice   Money
	Quantity    int
	AddedAt     time.Time
	// DropID marks a drop's ticket line: one unit of ProductID at the
	// drop's price (UnitPrice), bought with the ticket.
	DropID string
}

// NameIn is the product's name as added, in lang where staff gave one.
func (l CartLine) NameIn(lang string) string { return l.Names.In(lang, l.ProductName) }

// Key is the line's key in the cart: the product id, or ticket#<drop id>.
func (l CartLine) Key() string { return cartLineKey(l.ProductID, l.DropID) }

// LineTotal is unit price times quantity.
func (l CartLine) LineTotal() Money {
	return Money{Amount: l.UnitPrice.Amount * int64(l.Quantity), Currency: l.UnitPrice.Currency}
}

// Cart is the lines of one owner's cart, oldest first.
type Cart struct {
	Owner string
	Lines []CartLine
}

// Total is the sum of the lines at the prices they were added at.
func (c Cart) Total() Money {
	t := Money{Currency: DefaultCurrency}
	for i, l := range c.Lines {
		if i == 0 {
			t.Currency = l.UnitPrice.Currency
		}
		t.Amount += l.LineTotal().Amount
	}
	return t
}

// Units is the number of items in the cart.
func (c Cart) Units() int {
	n := 0
	for _, l := range c.Lines {
		n += l.Quantity
	}
	return n
}

// cartLineDoc is one line in the cart item's Lines map, keyed by product id.
type cartLineDoc struct {
	ProductName string       `dynamodbav:"ProductName"`
	Names       ProductNames `dynamodbav:"Names,omitempty"`
	UnitPrice   int64        `dynamodbav:"UnitPrice"`
	Currency    string       `dynamodbav:"Currency"`
	Quantity    int          `dynamodbav:"Quantity"`
	AddedAt     string       `dynamodbav:"AddedAt"`
	// A ticket line (key ticket#<drop id>) names its product and drop.
	ProductID string `dynamodbav:"ProductID,omitempty"`
	DropID    string `dynamodbav:"DropID,omitempty"`
}

type cartRecord struct {
	PK         string                 `dynamodbav:"PK"` // cart#owner
	SK         string                 `dynamodbav:"SK"` // cart
	EntityType string                 `dynamodbav:"EntityType"`
	Lines      map[string]cartLineDoc `dynamodbav:"Lines"`
	Version    int64                  `dynamodbav:"Version"`             // bumped by every write
	ExpiresAt  int64                  `dynamodbav:"ExpiresAt,omitempty"` // visitors' carts only
}

func (r cartRecord) cart(owner string) Cart {
	c := Cart{Owner: owner}
	for id, l := range r.Lines {
		line := CartLine{ProductID: id, ProductName: l.ProductName, Names: l.Names,
			UnitPrice: Money{Amount: l.UnitPrice, Currency: l.Currency}, Quantity: l.Quantity, AddedAt: parseTime(l.AddedAt)}
		if l.DropID != "" {
			line.ProductID, line.DropID = l.ProductID, l.DropID
		}
		c.Lines = append(c.Lines, line)
	}
	slices.SortFunc(c.Lines, func(a, b CartLine) int {
		if n := a.AddedAt.Compare(b.AddedAt); n != 0 {
			return n
		}
		return strings.Compare(a.Key(), b.Key())
	})
	return c
}

func (r *cartRecord) has(productID string) bool {
	if r == nil {
		return false
	}
	_, ok := r.Lines[productID]
	return ok
}

// Cart reads a cart: one Query of PK=cart#owner (the cart item, and any
// lines of the old shape, which are then migrated; see loadCart).
func (s *Store) Cart(ctx context.Context, owner string) (Cart, error) {
	rec, _, err := s.loadCart(ctx, owner, false)
	if err != nil {
		return Cart{}, err
	}
	return rec.cart(owner), nil
}

func (s *Store) newCart(owner string) cartRecord {
	return cartRecord{PK: cartKey(owner), SK: sortKeyCart, EntityType: entityCart, Lines: map[string]cartLineDoc{},
		Version: 1, ExpiresAt: s.cartExpiry(owner)}
}

// cartPut writes rec whole: on condition there is no cart item (exists
// false) or that the one there is at version read.
func (s *Store) cartPut(rec cartRecord, exists bool, read int64) (types.TransactWriteItem, error) {
	item, err := attributevalue.MarshalMap(rec)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	cond := expression.AttributeNotExists(expression.Name(attrPK))
	if exists {
		cond = expression.Name("Version").Equal(expression.Value(read))
	}
	expr, err := expression.NewBuilder().WithCondition(cond).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Put: &types.Put{TableName: aws.String(s.table), Item: item,
		ConditionExpression: expr.Condition(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values()}}, nil
}

func (s *Store) cartExpiry(owner string) int64 {
	if isVisitorOwner(owner) {
		return s.now().Add(visitorCartTTL).Unix()
	}
	return 0
}

// errCartCondition is a cart write's failed condition (internal).
var errCartCondition = errors.New("cart condition failed")

// updateCart runs one UpdateItem on the cart item, bumping its version and
// a visitor's expiry. On a failed condition it returns errCartCondition and
// the item as it was then (nil if there was none), from the same request.
func (s *Store) updateCart(ctx context.Context, owner string, upd expression.UpdateBuilder, cond expression.ConditionBuilder) (*cartRecord, error) {
	upd = upd.Add(expression.Name("Version"), expression.Value(1))
	if exp := s.cartExpiry(owner); exp != 0 {
		upd = upd.Set(expression.Name(attrTTL), expression.Value(exp))
	}
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	if err != nil {
		return nil, err
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table), Key: itemKey(cartKey(owner), sortKeyCart),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		return nil, err
	}
	if len(ccf.Item) == 0 {
		return nil, errCartCondition
	}
	var rec cartRecord
	if err := attributevalue.UnmarshalMap(ccf.Item, &rec); err != nil {
		return nil, fmt.Errorf("unmarshal cart: %w", err)
	}
	return &rec, errCartCondition
}

// AddToCart adds qty of a product to a cart. A new line is one UpdateItem
// on condition the line is not there and size(Lines) < MaxCartLines; if the
// line is there (the failed update returns the cart), a second UpdateItem
// grows it on condition it stays within MaxLineQty. The first line of a
// cart creates the item (on condition there is none).
func (s *Store) AddToCart(ctx context.Context, owner string, p Product, qty int) error {
	if qty < 1 || qty > MaxLineQty {
		return ErrBadQty
	}
	if !ValidID(p.ID) {
		return fmt.Errorf("product %q: %w", p.ID, ErrNotFound)
	}
	path := cartLinePath(p.ID)
	line := cartLineDoc{ProductName: p.Name, Names: p.Names(), UnitPrice: p.Price.Amount, Currency: p.Price.Currency, Quantity: qty, AddedAt: timestamp(s.now())}
	for range 8 {
		cur, err := s.updateCart(ctx, owner, expression.Set(expression.Name(path), expression.Value(line)),
			expression.AttributeNotExists(expression.Name(path)).
				And(expression.Size(expression.Name("Lines")).LessThan(expression.Value(MaxCartLines))))
		switch {
		case err == nil:
			return nil
		case !errors.Is(err, errCartCondition):
			return fmt.Errorf("add to cart: %w", err)
		case cur == nil:
			// No cart item: migrate an old-shape cart, or make the cart.
			_, found, err := s.loadCart(ctx, owner, true)
			if err != nil {
				return err
			}
			if found {
				continue
			}
			rec := s.newCart(owner)
			rec.Lines[p.ID] = line
			err = s.putNew(ctx, rec, "cart")
			if errors.Is(err, ErrConflict) {
				continue // made meanwhile
			}
			return err
		case cur.has(p.ID):
			qtyPath := expression.Name(path + ".Quantity")
			cur, err = s.updateCart(ctx, owner, expression.Set(qtyPath, qtyPath.Plus(expression.Value(qty))).
				Set(expression.Name(path+".ProductName"), expression.Value(p.Name)).
				Set(expression.Name(path+".Names"), expression.Value(p.Names())).
				Set(expression.Name(path+".UnitPrice"), expression.Value(p.Price.Amount)).
				Set(expression.Name(path+".Currency"), expression.Value(p.Price.Currency)),
				qtyPath.LessThanEqual(expression.Value(MaxLineQty-qty)))
			switch {
			case err == nil:
				return nil
			case !errors.Is(err, errCartCondition):
				return fmt.Errorf("add to cart: %w", err)
			case cur.has(p.ID):
				return ErrLineTooBig
			}
			// The line (or the cart) went meanwhile: start over.
		case len(cur.Lines) >= MaxCartLines:
			return ErrCartFull
		}
	}
	return fmt.Errorf("add to cart: the cart kept changing: %w", ErrConflict)
}

// SetCartQuantity sets a line's quantity; 0 removes the line. A line that is
// not in the cart is ErrNotFound. One UpdateItem on condition the line is
// there.
func (s *Store) SetCartQuantity(ctx context.Context, owner, productID string, qty int) error {
	if qty == 0 {
		return s.RemoveFromCart(ctx, owner, productID)
	}
	if qty < 0 || qty > MaxLineQty {
		return ErrBadQty
	}
	missing := fmt.Errorf("cart line %s: %w", productID, ErrNotFound)
	if !ValidID(productID) {
		return missing
	}
	path := cartLinePath(productID)
	for range 3 {
		cur, err := s.updateCart(ctx, owner, expression.Set(expression.Name(path+".Quantity"), expression.Value(qty)),
			expression.AttributeExists(expression.Name(path)))
		switch {
		case err == nil:
			return nil
		case !errors.Is(err, errCartCondition):
			return fmt.Errorf("set cart quantity: %w", err)
		case cur != nil:
			return missing
		}
		if _, found, err := s.loadCart(ctx, owner, true); err != nil || !found {
			if err != nil {
				return err
			}
			return missing
		}
	}
	return fmt.Errorf("set cart quantity: %w", ErrConflict)
}

// RemoveFromCart takes a line out (one UpdateItem); removing a missing line
// is not an error.
func (s *Store) RemoveFromCart(ctx context.Context, owner, productID string) error {
	if !ValidID(productID) {
		return nil
	}
	return s.removeLine(ctx, owner, productID)
}

// removeLine takes the line of key out of the cart (one UpdateItem).
func (s *Store) removeLine(ctx context.Context, owner, key string) error {
	path := cartLinePath(key)
	for range 3 {
		cur, err := s.updateCart(ctx, owner, expression.Remove(expression.Name(path)), expression.AttributeExists(expression.Name(path)))
		switch {
		case err == nil:
			return nil
		case !errors.Is(err, errCartCondition):
			return fmt.Errorf("remove from cart: %w", err)
		case cur != nil:
			return nil
		}
		if _, found, err := s.loadCart(ctx, owner, true); err != nil || !found {
			return err
		}
	}
	return fmt.Errorf("remove from cart: %w", ErrConflict)
}
