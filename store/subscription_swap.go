package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store/rules"
)

// Swapping a subscription's product and changing its quantity.

var (
	ErrBadQuantity = errors.New("choose a quantity from 1 to 10")
	// ErrOtherCurrency and ErrSwapNotSubscribable refuse the product
	// chosen, at its field (the latter is ErrNotSubscribable to errors.Is).
	ErrOtherCurrency       error = &Refusal{Kind: Invalid, Message: "subs.error.other_currency", Field: "product", Words: "that product is priced in another currency"}
	ErrSwapNotSubscribable error = &Refusal{Kind: Invalid, Message: "subs.error.product_not_subscribable", Field: "product", Words: ErrNotSubscribable.Error(), Err: ErrNotSubscribable}
	ErrPaymentUnderway     error = Refuse(Conflict, "subs.error.payment_underway", "a payment of this subscription is on its way; try again in a minute")
)

// Units is how many units each month pays for: its Quantity, 1 on a
// subscription from before quantities.
func (s Subscription) Units() int { return max(s.Quantity, 1) }

// LineName is what its receipts and staff call it: "2 × Coffee beans", or
// the product's name alone for one unit.
func (s Subscription) LineName() string { return s.lineName(s.ProductName) }

// LineNameIn is LineName with the product named in lang where staff gave
// a name in it.
func (s Subscription) LineNameIn(lang string) string { return s.lineName(s.NameIn(lang)) }

// NameIn is the product's name in lang where staff gave one.
func (s Subscription) NameIn(lang string) string { return s.Names.In(lang, s.ProductName) }

func (s Subscription) lineName(product string) string {
	if s.Units() == 1 {
		return product
	}
	return strconv.Itoa(s.Units()) + " × " + product
}

// lineNames is LineNameIn in each language the product has a name in: a
// receipt's names.
func (s Subscription) lineNames() ProductNames {
	var out ProductNames
	for l := range s.Names {
		if out == nil {
			out = ProductNames{}
		}
		out[l] = s.LineNameIn(l)
	}
	return out
}

// SwapProduct changes the product and the quantity from the next payment
// on: nothing is charged or given back now, the period already paid stays
// as it was (its order, if any, is made), and the next payment (and each
// after it) takes quantity × p's monthly price × the period. A swap to
// another product takes that product's scheduled price change, if any, as
// a new subscriber would; keeping the product keeps the price the
// subscriber was told of. A payment on its way (an intent) or outstanding
// refuses it: the amount of that payment is settled already.
func SwapProduct(p Product, quantity int, change *PriceChange) SubscriptionChange {
	return func(s Subscription, today time.Time, lead int) (Subscription, error) {
		switch {
		case !rules.ValidQuantity(quantity):
			return s, ErrBadQuantity
		case !p.OpenToSubscribers():
			return s, ErrSwapNotSubscribable
		case p.MonthlyPrice.Currency != s.MonthlyPrice.Currency:
			return s, ErrOtherCurrency
		case changeable(s) != nil:
			return s, changeable(s)
		case s.Ending():
			return s, ErrSubscriptionEnding
		case s.Status == SubscriptionPastDue:
			return s, ErrPaymentOutstanding
		case s.Intent != nil:
			return s, ErrPaymentUnderway
		case p.ID == s.ProductID && quantity == s.Units():
			return s, ErrSameValue
		}
		s.Quantity = quantity
		if p.ID == s.ProductID {
			return s, nil
		}
		s.ProductID, s.ProductName, s.Names, s.Category, s.MonthlyPrice = p.ID, p.Name, p.Names(), p.Category, p.MonthlyPrice
		s.NewPrice, s.NewPriceFrom = Money{}, time.Time{}
		if pc := change; pc != nil && pc.ProductID == p.ID && pc.AppliedOn.IsZero() && pc.EffectiveOn.After(today) && pc.New.Currency == p.MonthlyPrice.Currency {
			s.NewPrice, s.NewPriceFrom = pc.New, pc.EffectiveOn
		}
		return s, nil
	}
}

// saveChange writes a customer's change of cur: in place, or, when the
// product changed, under its new key (SUB#<id>#SKU#<product>, keys.go).
func (s *Store) saveChange(ctx context.Context, cur, next Subscription) (Subscription, error) {
	if next.ProductID == cur.ProductID {
		return s.UpdateSubscription(ctx, next)
	}
	return s.moveSubscription(ctx, cur, next)
}

// moveSubscription writes next, whose product differs from cur's, in one
// transaction: the old item deleted on condition of the version read, the
// new one put on condition that no item has its key. The payments job's
// writes go to the key it read, on the same version: a move and a payment
// never both win. ErrConflict if the subscription moved meanwhile.
func (s *Store) moveSubscription(ctx context.Context, cur, next Subscription) (Subscription, error) {
	items, saved, err := s.moveWrites(ctx, cur, next)
	if err != nil {
		return Subscription{}, err
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	if len(cancellationReasons(err)) > 0 {
		return Subscription{}, fmt.Errorf("subscription %s at version %d: %w", cur.ID, cur.Version, ErrConflict)
	}
	if err != nil {
		return Subscription{}, fmt.Errorf("swap the product of subscription %s: %w", cur.ID, err)
	}
	return saved, nil
}

// moveWrites are the items of moveSubscription: the old item's delete
// (first, on condition of the version read), the new item's put, then the
// kept totals' ADDs; and next as they write it.
func (s *Store) moveWrites(ctx context.Context, cur, next Subscription) ([]types.TransactWriteItem, Subscription, error) {
	shards, err := s.billingShards(ctx)
	if err != nil {
		return nil, Subscription{}, err
	}
	next.Version = cur.Version + 1
	item, err := attributevalue.MarshalMap(newSubscriptionRecord(next, shards))
	if err != nil {
		return nil, Subscription{}, err
	}
	same, err := expression.NewBuilder().WithCondition(expression.Name("Version").Equal(expression.Value(cur.Version))).Build()
	if err != nil {
		return nil, Subscription{}, err
	}
	isNew, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(attrPK))).Build()
	if err != nil {
		return nil, Subscription{}, err
	}
	totals, err := s.subscriptionTotalsWrites(ctx, cur, next) // the new product's price moves the MRR
	if err != nil {
		return nil, Subscription{}, err
	}
	return append([]types.TransactWriteItem{
		{Delete: &types.Delete{TableName: aws.String(s.table), Key: itemKey(accountKey(cur.AccountID), subscriptionSortKey(cur.ID, cur.ProductID)),
			ConditionExpression: same.Condition(), ExpressionAttributeNames: same.Names(), ExpressionAttributeValues: same.Values()}},
		{Put: &types.Put{TableName: aws.String(s.table), Item: item,
			ConditionExpression: isNew.Condition(), ExpressionAttributeNames: isNew.Names(), ExpressionAttributeValues: isNew.Values()}},
	}, totals...), next.asStored(), nil
}
