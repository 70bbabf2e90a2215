package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// MergeCart moves a visitor's cart into a customer's at sign-in, in one
// transaction on condition of both carts' versions as read: quantities of
// the same product add up (capped at MaxLineQty), lines beyond the
// customer's MaxCartLines are dropped, and the visitor's cart is deleted, so
// a failure leaves both carts as they were. Moved meanwhile, it reads again.
// It returns the customer's cart as it is now (for the count in the
// header): with nothing to move, that is one more Query.
func (s *Store) MergeCart(ctx context.Context, from, to string) (Cart, error) {
	for range 5 {
		src, srcFound, err := s.loadCart(ctx, from, true)
		if err != nil {
			return Cart{}, err
		}
		dst, dstFound, err := s.loadCart(ctx, to, srcFound && len(src.Lines) > 0)
		if err != nil || !srcFound || len(src.Lines) == 0 {
			return dst.cart(to), err
		}
		merged := s.newCart(to)
		if dstFound {
			merged.Version = dst.Version + 1
			for id, l := range dst.Lines {
				merged.Lines[id] = l
			}
		}
		for _, l := range src.cart(from).Lines {
			have, exists := merged.Lines[l.Key()]
			if !exists && len(merged.Lines) >= MaxCartLines {
				continue
			}
			line := src.Lines[l.Key()]
			line.Quantity = min(have.Quantity+line.Quantity, MaxLineQty)
			if l.DropID != "" {
				line.Quantity = 1
			}
			merged.Lines[l.Key()] = line
		}
		put, err := s.cartPut(merged, dstFound, dst.Version)
		if err != nil {
			return Cart{}, err
		}
		cond, err := expression.NewBuilder().WithCondition(expression.Name("Version").Equal(expression.Value(src.Version))).Build()
		if err != nil {
			return Cart{}, err
		}
		err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{put, {Delete: &types.Delete{
			TableName: aws.String(s.table), Key: itemKey(cartKey(from), sortKeyCart),
			ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(), ExpressionAttributeValues: cond.Values(),
		}}}})
		if err == nil {
			return merged.cart(to), nil
		}
		if cancellationReasons(err) == nil {
			return Cart{}, fmt.Errorf("merge cart: %w", err)
		}
	}
	return Cart{}, fmt.Errorf("merge cart: %w", ErrConflict)
}
