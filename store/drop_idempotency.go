package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The API's Idempotency-Key on POST /api/v1/drops: the key's item
// (PK=SK=apiidem#<API key id>#<key>, TTL 24 h) is put in the transaction
// that makes the drop, on condition no live one exists, and holds the
// request's hash and the answer given. A repeat finds it in the failed
// condition's old image (ALL_OLD): same hash, the same answer; another
// hash, ErrIdempotencyMismatch. Of many concurrent requests with one key,
// one transaction makes the drop; the others fail on the key's item.

// aPIIdempotencyTTL is how long an Idempotency-Key is kept.
const aPIIdempotencyTTL = 24 * time.Hour

// DropIdempotency makes CreateDrop idempotent under a key.
type DropIdempotency struct {
	Scope string // whose keys: the API key's id
	Key   string
	Hash  string // of the decoded request
	// Answer is the body answered for the drop made: kept to answer a
	// repeat with the same bytes.
	Answer func(Drop) ([]byte, error)
}

// ErrIdempotencyMismatch refuses a key used before with another request.
var ErrIdempotencyMismatch = fmt.Errorf("this Idempotency-Key was used with another request: %w", ErrConflict)

// DropReplay is the answer to a repeat of a request made under the same
// key: the drop made the first time and the body answered then.
type DropReplay struct {
	DropID string
	Body   []byte
}

func (e *DropReplay) Error() string {
	return "drop " + e.DropID + " was made under this Idempotency-Key"
}

type apiIdempotencyRecord struct {
	PK         string `dynamodbav:"PK"` // apiidem#<scope>#<key>
	SK         string `dynamodbav:"SK"` // the same
	EntityType string `dynamodbav:"EntityType"`
	Hash       string `dynamodbav:"Hash"`
	DropID     string `dynamodbav:"DropID"`
	Body       string `dynamodbav:"Body"`
	CreatedAt  string `dynamodbav:"CreatedAt"`
	ExpiresAt  int64  `dynamodbav:"ExpiresAt"` // TTL
}

// outcome is what a live key's record says of a request with hash.
func (r apiIdempotencyRecord) outcome(hash string) error {
	if r.Hash != hash {
		return ErrIdempotencyMismatch
	}
	return &DropReplay{DropID: r.DropID, Body: []byte(r.Body)}
}

// txIdempotency is the put of the key's record for drop d, on condition
// none is live (TTL deletes late: an expired one counts as none).
func (s *Store) txIdempotency(ik *DropIdempotency, d Drop, now time.Time) (types.TransactWriteItem, error) {
	body, err := ik.Answer(d)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	k := apiIdempotencyKey(ik.Scope, ik.Key)
	item, err := attributevalue.MarshalMap(apiIdempotencyRecord{PK: k, SK: k, EntityType: entityAPIIdempotency, Hash: ik.Hash,
		DropID: d.ID, Body: string(body), CreatedAt: timestamp(now), ExpiresAt: now.Add(aPIIdempotencyTTL).Unix()})
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	cond, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(attrPK)).
		Or(expression.Name(attrTTL).LessThanEqual(expression.Value(now.Unix())))).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Put: &types.Put{TableName: aws.String(s.table), Item: item,
		ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(), ExpressionAttributeValues: cond.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}}, nil
}

// idempotencyRefusal is the answer of a creation refused on its key's
// item (item i of the transaction), or nil when the key was not why.
func idempotencyRefusal(err error, i int, hash string) error {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) || i >= len(tce.CancellationReasons) {
		return nil
	}
	r := tce.CancellationReasons[i]
	if aws.ToString(r.Code) != reasonConditionFailed || r.Item == nil {
		return nil
	}
	var rec apiIdempotencyRecord
	if err := attributevalue.UnmarshalMap(r.Item, &rec); err != nil {
		return err
	}
	return rec.outcome(hash)
}

// IdempotentDrop is what a live key says of a request with its hash
// (*DropReplay or ErrIdempotencyMismatch), or ErrNotFound: for a request
// that would be refused now (its opening has passed since the first).
func (s *Store) IdempotentDrop(ctx context.Context, scope, key, hash string) error {
	k := apiIdempotencyKey(scope, key)
	rec, err := getItemConsistent(ctx, s, k, k, "idempotency key", asRecord[apiIdempotencyRecord])
	if err != nil {
		return err
	}
	if rec.ExpiresAt <= s.now().Unix() {
		return fmt.Errorf("idempotency key: expired: %w", ErrNotFound)
	}
	return rec.outcome(hash)
}
