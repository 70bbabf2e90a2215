package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

type markerRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	At         string `dynamodbav:"At"`
}

// Marked reports whether a one-time step (such as loading demo data) ran.
func (s *Store) Marked(ctx context.Context, name string) (bool, error) {
	var r markerRecord
	err := s.getItem(ctx, partitionMeta, "marker#"+name, &r)
	switch {
	case errors.Is(err, ErrNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("get marker %s: %w", name, err)
	}
	return true, nil
}

// Mark records a one-time step; ErrConflict if it was already recorded.
func (s *Store) Mark(ctx context.Context, name string) error {
	item, err := attributevalue.MarshalMap(markerRecord{PK: partitionMeta, SK: "marker#" + name, EntityType: entityMeta, At: timestamp(s.now())})
	if err != nil {
		return err
	}
	cond, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(attrPK))).Build()
	if err != nil {
		return err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.table), Item: item,
		ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(),
	})
	if isConditionFailed(err) {
		return fmt.Errorf("marker %s: %w", name, ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("put marker %s: %w", name, err)
	}
	return nil
}
