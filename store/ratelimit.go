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

// ReturnAttempt gives back an attempt counted in the current window: a
// sign-in that succeeded is no failure. A window that rolled over meanwhile
// is left alone.
func (s *Store) ReturnAttempt(ctx context.Context, scope, subject string, window time.Duration) error {
	start := s.now().Truncate(window)
	err := s.updateIf(ctx, limitKey(scope, subject), limitWindowKey(start),
		expression.Add(expression.Name("Attempts"), expression.Value(-1)),
		expression.Name("Attempts").GreaterThan(expression.Value(0)))
	if err != nil && !isConditionFailed(err) {
		return fmt.Errorf("return attempt: %w", err)
	}
	return nil
}

// WaitError refuses an attempt that came too soon after the last one.
type WaitError struct{ Wait time.Duration }

func (e *WaitError) Error() string { return fmt.Sprintf("too many attempts: wait %s", e.Wait) }

// SpaceAttempt takes an attempt of subject in scope in the current window:
// the first free ones at once, each after that only once twice as long as
// the one before has passed since the last (from a second, up to maxWait),
// else a *WaitError saying how long. It slows guessing spread over many
// addresses without locking the owner out. The count is read, then raised
// on condition it did not change, so parallel attempts take one slot each.
func (s *Store) SpaceAttempt(ctx context.Context, scope, subject string, window time.Duration, free int, maxWait time.Duration) error {
	for range 5 {
		now := s.now()
		start := now.Truncate(window)
		type spaced struct {
			Attempts int
			LastAt   int64 // Unix milliseconds
		}
		cur, err := getItemConsistent(ctx, s, limitKey(scope, subject), limitWindowKey(start), "attempts", func(r spaced) spaced { return r })
		if err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		if cur.Attempts >= free {
			wait := maxWait
			if shift := cur.Attempts - free; shift < 20 {
				wait = min(time.Second<<shift, maxWait)
			}
			if left := time.UnixMilli(cur.LastAt).Add(wait).Sub(now); left > 0 {
				return &WaitError{Wait: left}
			}
		}
		unchanged := expression.Name("Attempts").Equal(expression.Value(cur.Attempts))
		if cur.Attempts == 0 {
			unchanged = expression.AttributeNotExists(expression.Name("Attempts")).Or(unchanged) // none yet, or all given back
		}
		err = s.updateIf(ctx, limitKey(scope, subject), limitWindowKey(start),
			expression.Add(expression.Name("Attempts"), expression.Value(1)).
				Set(expression.Name("LastAt"), expression.Value(now.UnixMilli())).
				Set(expression.Name("EntityType"), expression.Value(entityLimit)).
				Set(expression.Name(attrTTL), expression.Value(start.Add(2*window).Unix())),
			unchanged)
		switch {
		case err == nil:
			return nil
		case !isConditionFailed(err):
			return fmt.Errorf("space attempt: %w", err)
		case cur.Attempts >= free:
			return &WaitError{Wait: time.Second} // another attempt took this slot
		}
	}
	return &WaitError{Wait: time.Second}
}
