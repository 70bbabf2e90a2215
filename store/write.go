package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// itemKey is the Key of the item pk/sk in a request.
func itemKey(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		attrPK: &types.AttributeValueMemberS{Value: pk},
		attrSK: &types.AttributeValueMemberS{Value: sk},
	}
}

// putItem writes rec as is (seed data, imports, overwrites by design).
func (s *Store) putItem(ctx context.Context, rec any) error {
	item, err := attributevalue.MarshalMap(rec)
	if err != nil {
		return fmt.Errorf("marshal item: %w", err)
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: item})
	return err
}

// putIf writes rec on condition cond; the caller tells a failed condition
// (isConditionFailed) from other errors.
func (s *Store) putIf(ctx context.Context, rec any, cond expression.ConditionBuilder) error {
	item, err := attributevalue.MarshalMap(rec)
	if err != nil {
		return fmt.Errorf("marshal item: %w", err)
	}
	expr, err := expression.NewBuilder().WithCondition(cond).Build()
	if err != nil {
		return err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.table), Item: item, ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	return err
}

// atVersion is the condition of a save over what staff saw: the item
// still at version seen, or absent if they saw it never saved (0).
func atVersion(seen int) expression.ConditionBuilder {
	if seen > 0 {
		return expression.Name("Version").Equal(expression.Value(seen))
	}
	return expression.AttributeNotExists(expression.Name(attrPK))
}

// putNew writes rec on condition that its item does not exist yet;
// ErrConflict if it does.
func (s *Store) putNew(ctx context.Context, rec any, what string) error {
	err := s.putIf(ctx, rec, expression.AttributeNotExists(expression.Name(attrPK)))
	if isConditionFailed(err) {
		return fmt.Errorf("%s: %w", what, ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("create %s: %w", what, err)
	}
	return nil
}

// updateIf applies upd to the item pk/sk on condition cond; the caller tells
// a failed condition (isConditionFailed) from other errors.
func (s *Store) updateIf(ctx context.Context, pk, sk string, upd expression.UpdateBuilder, cond expression.ConditionBuilder) error {
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	if err != nil {
		return err
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table), Key: itemKey(pk, sk),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	return err
}

// txUpdate is a transaction's update of pk/sk on condition cond.
func (s *Store) txUpdate(pk, sk string, upd expression.UpdateBuilder, cond expression.ConditionBuilder) (types.TransactWriteItem, error) {
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(s.table), Key: itemKey(pk, sk), UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}, nil
}

// txDelete is a transaction's delete of pk/sk on condition cond.
func (s *Store) txDelete(pk, sk string, cond expression.ConditionBuilder) (types.TransactWriteItem, error) {
	expr, err := expression.NewBuilder().WithCondition(cond).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Delete: &types.Delete{
		TableName: aws.String(s.table), Key: itemKey(pk, sk), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}, nil
}

// deleteItem deletes the item pk/sk; a missing one is no error.
func (s *Store) deleteItem(ctx context.Context, pk, sk string) error {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.table), Key: itemKey(pk, sk)})
	if err != nil {
		return fmt.Errorf("delete %s/%s: %w", pk, sk, err)
	}
	return nil
}

// batchWriteSize is the most writes one BatchWriteItem takes.
const batchWriteSize = 25

// batchWrite sends the writes 25 a request, sending again what DynamoDB
// leaves unprocessed (after a growing pause: it left them because it was
// busy). For writes that need no condition, such as ending sessions.
func (s *Store) batchWrite(ctx context.Context, writes []types.WriteRequest) error {
	for len(writes) > 0 {
		batch := writes[:min(len(writes), batchWriteSize)]
		writes = writes[len(batch):]
		for attempt := 0; len(batch) > 0; attempt++ {
			if attempt > 0 {
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(time.Duration(10<<min(attempt-1, 6))*time.Millisecond + rand.N(10*time.Millisecond)):
				}
			}
			out, err := s.db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{s.table: batch}})
			if err != nil {
				return err
			}
			batch = out.UnprocessedItems[s.table]
		}
	}
	return nil
}

// txCheck is a transaction's check that pk/sk meets cond, writing nothing.
func (s *Store) txCheck(pk, sk string, cond expression.ConditionBuilder) (types.TransactWriteItem, error) {
	expr, err := expression.NewBuilder().WithCondition(cond).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName: aws.String(s.table), Key: itemKey(pk, sk), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}, nil
}
