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

// Cart limits. A checkout writes one transaction of at most 100 items: the
// order, the invoice, the idempotency item, a gift card and a discount code
// (5), and per line an order item, a cart delete and up to one stock
// decrement per warehouse. With 15 lines and 4 warehouses that is
// 5 + 15*(2+4) = 95.
const (
	MaxCartLines   = 15
	MaxLineQty     = 99
	visitorCartTTL = 30 * 24 * time.Hour
)

var (
	ErrCartFull   = fmt.Errorf("a cart holds at most %d different products", MaxCartLines)
	ErrBadQty     = errors.New("quantity must be a whole number from 1 to 99")
	ErrLineTooBig = fmt.Errorf("at most %d of one product per order", MaxLineQty)
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
	UnitPrice   Money
	Quantity    int
	AddedAt     time.Time
}

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

type cartLineRecord struct {
	PK          string `dynamodbav:"PK"` // cart#owner
	SK          string `dynamodbav:"SK"` // p#product
	EntityType  string `dynamodbav:"EntityType"`
	ProductName string `dynamodbav:"ProductName"`
	UnitPrice   int64  `dynamodbav:"UnitPrice"`
	Currency    string `dynamodbav:"Currency"`
	Quantity    int    `dynamodbav:"Quantity"`
	AddedAt     string `dynamodbav:"AddedAt"`
	ExpiresAt   int64  `dynamodbav:"ExpiresAt,omitempty"` // visitors' carts only
}

func (r cartLineRecord) line() CartLine {
	return CartLine{
		ProductID: trimPrefix(r.SK, prefixProduct), ProductName: r.ProductName,
		UnitPrice: Money{r.UnitPrice, r.Currency}, Quantity: r.Quantity, AddedAt: parseTime(r.AddedAt),
	}
}

// Cart reads a cart (one Query of PK=cart#owner).
func (s *Store) Cart(ctx context.Context, owner string) (Cart, error) {
	items, err := s.query(ctx, "", expression.Key(attrPK).Equal(expression.Value(cartKey(owner))), true)
	if err != nil {
		return Cart{}, fmt.Errorf("query cart: %w", err)
	}
	lines, err := unmarshalItems(items, cartLineRecord.line)
	if err != nil {
		return Cart{}, err
	}
	slices.SortStableFunc(lines, func(a, b CartLine) int { return a.AddedAt.Compare(b.AddedAt) })
	return Cart{Owner: owner, Lines: lines}, nil
}

func (s *Store) cartExpiry(owner string) int64 {
	if strings.HasPrefix(owner, prefixVisitor) {
		return s.now().Add(visitorCartTTL).Unix()
	}
	return 0
}

// AddToCart adds qty of a product to a cart, in one UpdateItem: the
// quantity grows atomically and may not pass MaxLineQty.
func (s *Store) AddToCart(ctx context.Context, owner string, p Product, qty int) error {
	if qty < 1 || qty > MaxLineQty {
		return ErrBadQty
	}
	update := expression.Add(expression.Name("Quantity"), expression.Value(qty)).
		Set(expression.Name("EntityType"), expression.Value(entityCartLine)).
		Set(expression.Name("ProductName"), expression.Value(p.Name)).
		Set(expression.Name("UnitPrice"), expression.Value(p.Price.Amount)).
		Set(expression.Name("Currency"), expression.Value(p.Price.Currency)).
		Set(expression.Name("AddedAt"), expression.IfNotExists(expression.Name("AddedAt"), expression.Value(timestamp(s.now()))))
	if exp := s.cartExpiry(owner); exp != 0 {
		update = update.Set(expression.Name(attrTTL), expression.Value(exp))
	}
	cond := expression.Or(
		expression.AttributeNotExists(expression.Name("Quantity")),
		expression.Name("Quantity").LessThanEqual(expression.Value(MaxLineQty-qty)))
	expr, err := expression.NewBuilder().WithUpdate(update).WithCondition(cond).Build()
	if err != nil {
		return err
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table), Key: itemKey(cartKey(owner), productKey(p.ID)),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	if isConditionFailed(err) {
		return ErrLineTooBig
	}
	if err != nil {
		return fmt.Errorf("add to cart: %w", err)
	}
	return nil
}

// SetCartQuantity sets a line's quantity; 0 removes the line. A line that is
// not in the cart is ErrNotFound.
func (s *Store) SetCartQuantity(ctx context.Context, owner, productID string, qty int) error {
	if qty == 0 {
		return s.RemoveFromCart(ctx, owner, productID)
	}
	if qty < 0 || qty > MaxLineQty {
		return ErrBadQty
	}
	expr, err := expression.NewBuilder().
		WithUpdate(expression.Set(expression.Name("Quantity"), expression.Value(qty))).
		WithCondition(expression.AttributeExists(expression.Name(attrPK))).Build()
	if err != nil {
		return err
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table), Key: itemKey(cartKey(owner), productKey(productID)),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	if isConditionFailed(err) {
		return fmt.Errorf("cart line %s: %w", productID, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("set cart quantity: %w", err)
	}
	return nil
}

// RemoveFromCart deletes a line; removing a missing line is not an error.
func (s *Store) RemoveFromCart(ctx context.Context, owner, productID string) error {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(s.table), Key: itemKey(cartKey(owner), productKey(productID)),
	})
	if err != nil {
		return fmt.Errorf("remove from cart: %w", err)
	}
	return nil
}

// MergeCart moves a visitor's cart into a customer's at sign-in, in one
// transaction: quantities of the same product add up (capped at
// MaxLineQty), lines beyond the customer's MaxCartLines are dropped, and the
// visitor's lines are deleted, so a failure leaves both carts as they were.
func (s *Store) MergeCart(ctx context.Context, from, to string) error {
	src, err := s.Cart(ctx, from)
	if err != nil || len(src.Lines) == 0 {
		return err
	}
	dst, err := s.Cart(ctx, to)
	if err != nil {
		return err
	}
	have := map[string]int{}
	for _, l := range dst.Lines {
		have[l.ProductID] = l.Quantity
	}
	var tx []types.TransactWriteItem
	for _, l := range src.Lines {
		tx = append(tx, types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(s.table), Key: itemKey(cartKey(from), productKey(l.ProductID))}})
		if _, exists := have[l.ProductID]; !exists && len(have) >= MaxCartLines {
			continue
		}
		have[l.ProductID] = min(have[l.ProductID]+l.Quantity, MaxLineQty)
		item, err := attributevalue.MarshalMap(cartLineRecord{
			PK: cartKey(to), SK: productKey(l.ProductID), EntityType: entityCartLine,
			ProductName: l.ProductName, UnitPrice: l.UnitPrice.Amount, Currency: l.UnitPrice.Currency,
			Quantity: have[l.ProductID], AddedAt: timestamp(l.AddedAt),
		})
		if err != nil {
			return err
		}
		tx = append(tx, types.TransactWriteItem{Put: &types.Put{TableName: aws.String(s.table), Item: item}})
	}
	// At most 15 visitor lines: 30 items, inside the 100 of a transaction.
	if err := s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx}); err != nil {
		return fmt.Errorf("merge cart: %w", err)
	}
	return nil
}
