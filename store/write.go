package store

import (
	"context"
	"fmt"

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

// deleteItem deletes the item pk/sk; a missing one is no error.
func (s *Store) deleteItem(ctx context.Context, pk, sk string) error {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.table), Key: itemKey(pk, sk)})
	if err != nil {
		return fmt.Errorf("delete %s/%s: %w", pk, sk, err)
	}
	return nil
}
