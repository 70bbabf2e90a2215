package store

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// Page is one page of a list. Next is an opaque cursor for the page after
// it, empty on the last page.
type Page[T any] struct {
	Items []T
	Next  string
}

func itemKey(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		attrPK: &types.AttributeValueMemberS{Value: pk},
		attrSK: &types.AttributeValueMemberS{Value: sk},
	}
}

// pageQuery describes one paginated Query: in is complete but for Limit and
// ExclusiveStartKey; keyAttrs are the table and index key names a cursor
// carries; partitionAttr/partitionValue pin the cursor to this query so a
// cursor from elsewhere is refused rather than sent to DynamoDB.
type pageQuery struct {
	in             *dynamodb.QueryInput
	keyAttrs       []string
	partitionAttr  string
	partitionValue string
}

// queryPage runs one Query for up to limit items. It asks for one more than
// it shows, so a page that ends the list says so instead of leaving an empty
// page behind a cursor.
func (s *Store) queryPage(ctx context.Context, q pageQuery, limit int, cursor string) ([]map[string]types.AttributeValue, string, error) {
	start, err := decodeCursor(cursor, q.keyAttrs, q.partitionAttr, q.partitionValue)
	if err != nil {
		return nil, "", err
	}
	in := *q.in
	in.Limit = aws.Int32(int32(limit + 1))
	in.ExclusiveStartKey = start
	out, err := s.db.Query(ctx, &in)
	var apiErr smithy.APIError
	if err != nil && start != nil && errors.As(err, &apiErr) && apiErr.ErrorCode() == "ValidationException" {
		// A cursor edited to point outside its query's key condition.
		return nil, "", ErrBadCursor
	}
	if err != nil {
		return nil, "", err
	}
	items := out.Items
	var next map[string]types.AttributeValue
	switch {
	case len(items) > limit:
		items = items[:limit]
		next = items[limit-1]
	case out.LastEvaluatedKey != nil:
		next = out.LastEvaluatedKey
	}
	if next == nil {
		return items, "", nil
	}
	c, err := encodeCursor(next, q.keyAttrs)
	return items, c, err
}

func encodeCursor(item map[string]types.AttributeValue, keyAttrs []string) (string, error) {
	keys := make(map[string]string, len(keyAttrs))
	for _, a := range keyAttrs {
		s, ok := item[a].(*types.AttributeValueMemberS)
		if !ok {
			return "", fmt.Errorf("cursor: item lacks string key %s", a)
		}
		keys[a] = s.Value
	}
	b, err := json.Marshal(keys)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func decodeCursor(cursor string, keyAttrs []string, partitionAttr, partitionValue string) (map[string]types.AttributeValue, error) {
	if cursor == "" {
		return nil, nil
	}
	if len(cursor) > 2048 {
		return nil, ErrBadCursor
	}
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return nil, ErrBadCursor
	}
	var keys map[string]string
	if err := json.Unmarshal(b, &keys); err != nil || len(keys) != len(keyAttrs) {
		return nil, ErrBadCursor
	}
	for _, a := range keyAttrs {
		if v, ok := keys[a]; !ok || v == "" {
			return nil, ErrBadCursor
		}
	}
	if keys[partitionAttr] != partitionValue {
		return nil, ErrBadCursor
	}
	start, err := attributevalue.MarshalMap(keys)
	if err != nil {
		return nil, ErrBadCursor
	}
	return start, nil
}

func unmarshalItems[R any, T any](items []map[string]types.AttributeValue, convert func(R) T) ([]T, error) {
	out := make([]T, 0, len(items))
	for _, it := range items {
		var r R
		if err := attributevalue.UnmarshalMap(it, &r); err != nil {
			return nil, fmt.Errorf("unmarshal item: %w", err)
		}
		out = append(out, convert(r))
	}
	return out, nil
}

// getItem reads one item into rec, ErrNotFound when absent.
func (s *Store) getItem(ctx context.Context, pk, sk string, rec any) error {
	return s.get(ctx, pk, sk, rec, false)
}

// getItemConsistent is getItem with a strongly consistent read.
func (s *Store) getItemConsistent(ctx context.Context, pk, sk string, rec any) error {
	return s.get(ctx, pk, sk, rec, true)
}

func (s *Store) get(ctx context.Context, pk, sk string, rec any, consistent bool) error {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table), Key: itemKey(pk, sk), ConsistentRead: aws.Bool(consistent)})
	if err != nil {
		return err
	}
	if out.Item == nil {
		return ErrNotFound
	}
	return attributevalue.UnmarshalMap(out.Item, rec)
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
