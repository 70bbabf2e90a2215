package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// CountAttempt adds one to the attempts of subject (an address, an email) in
// scope during the current fixed window and returns the new count. The
// counter lives in the table, so every replica sees the same number, and
// expires by TTL after its window.
func (s *Store) CountAttempt(ctx context.Context, scope, subject string, window time.Duration) (int, error) {
	now := s.now()
	start := now.Truncate(window)
	update := expression.Add(expression.Name("Attempts"), expression.Value(1)).
		Set(expression.Name("EntityType"), expression.Value(entityLimit)).
		Set(expression.Name(attrTTL), expression.Value(start.Add(2*window).Unix()))
	expr, err := expression.NewBuilder().WithUpdate(update).Build()
	if err != nil {
		return 0, err
	}
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:        aws.String(s.table),
		Key:              itemKey(limitKey(scope, subject), limitWindowKey(start)),
		UpdateExpression: expr.Update(), ExpressionAttributeNames: expr.Names(),
		ExpressionAttributeValues: expr.Values(), ReturnValues: types.ReturnValueUpdatedNew,
	})
	if err != nil {
		return 0, fmt.Errorf("count attempt: %w", err)
	}
	var r struct{ Attempts int }
	if err := attributevalue.UnmarshalMap(out.Attributes, &r); err != nil {
		return 0, err
	}
	return r.Attempts, nil
}

// Attempts reads the current window's count without adding to it.
func (s *Store) Attempts(ctx context.Context, scope, subject string, window time.Duration) (int, error) {
	start := s.now().Truncate(window)
	n, err := getItem(ctx, s, limitKey(scope, subject), limitWindowKey(start), "attempts", func(r struct{ Attempts int }) int { return r.Attempts })
	if errors.Is(err, ErrNotFound) {
		return 0, nil
	}
	return n, err
}
