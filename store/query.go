package store

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// Reads: every Query and GetItem of the store is made here. A Query is a
// querySpec built from a key condition (onTable.pkEquals(...) and the like);
// a list pages with pagedQuery, whose opaque cursor is pinned to its query.

// Page is one page of a list. Next is an opaque cursor for the page after
// it, empty on the last page.
type Page[T any] struct {
	Items []T
	Next  string
}

// keySchema is where a Query reads: the table (index "") or an index, with
// its partition and sort key attributes.
type keySchema struct{ index, pkAttr, skAttr string }

var (
	onTable        = keySchema{"", attrPK, attrSK}
	onGSI1         = keySchema{indexGSI1, attrGSI1PK, attrGSI1SK}
	onGSI2         = keySchema{indexGSI2, attrGSI2PK, attrGSI2SK}
	onRemindersDue = keySchema{indexRemindersDue, attrRemPK, attrRemSK}
	onPaymentsDue  = keySchema{indexPaymentsDue, attrPayPK, attrPaySK}
	onAttention    = keySchema{indexAttention, attrAttnPK, attrAttnSK}
	onShipments    = keySchema{indexShipmentsByStatus, attrShsPK, attrShsSK}
)

// cursorAttrs are the attributes that place an item in a Query's order:
// the table's keys, and the index's.
func (k keySchema) cursorAttrs() []string {
	if k.index == "" {
		return []string{attrPK, attrSK}
	}
	return []string{attrPK, attrSK, k.pkAttr, k.skAttr}
}

// keyCond is the key condition of one Query: where it reads, the one
// partition it reads (a cursor is pinned to it) and the condition.
type keyCond struct {
	on   keySchema
	pk   string
	cond expression.KeyConditionBuilder
}

func (k keySchema) pkEquals(pk string) keyCond {
	return keyCond{on: k, pk: pk, cond: expression.Key(k.pkAttr).Equal(expression.Value(pk))}
}

func (k keySchema) andSK(pk string, sk expression.KeyConditionBuilder) keyCond {
	c := k.pkEquals(pk)
	c.cond = c.cond.And(sk)
	return c
}

func (k keySchema) pkAndSKEquals(pk, sk string) keyCond {
	return k.andSK(pk, expression.Key(k.skAttr).Equal(expression.Value(sk)))
}

func (k keySchema) pkAndSKPrefix(pk, prefix string) keyCond {
	return k.andSK(pk, expression.Key(k.skAttr).BeginsWith(prefix))
}

// pkAndSKBetween takes the sort keys from lo to hi, both included.
func (k keySchema) pkAndSKBetween(pk, lo, hi string) keyCond {
	return k.andSK(pk, expression.Key(k.skAttr).Between(expression.Value(lo), expression.Value(hi)))
}

// pkAndSKBelow takes the sort keys before hi.
func (k keySchema) pkAndSKBelow(pk, hi string) keyCond {
	return k.andSK(pk, expression.Key(k.skAttr).LessThan(expression.Value(hi)))
}

// pkAndSKAbove takes the sort keys after lo.
func (k keySchema) pkAndSKAbove(pk, lo string) keyCond {
	return k.andSK(pk, expression.Key(k.skAttr).GreaterThan(expression.Value(lo)))
}

// pkAndSKUpTo takes the sort keys up to hi, included.
func (k keySchema) pkAndSKUpTo(pk, hi string) keyCond {
	return k.andSK(pk, expression.Key(k.skAttr).LessThanEqual(expression.Value(hi)))
}

// querySpec is one Query but for its page size and start.
type querySpec struct {
	key        keyCond
	backward   bool                         // highest sort key first
	consistent bool                         // strongly consistent: the table only, indexes are not
	filter     *expression.ConditionBuilder // optional: a page may then hold fewer items
}

func (s *Store) queryInput(q querySpec) (*dynamodb.QueryInput, error) {
	b := expression.NewBuilder().WithKeyCondition(q.key.cond)
	if q.filter != nil {
		b = b.WithFilter(*q.filter)
	}
	expr, err := b.Build()
	if err != nil {
		return nil, err
	}
	in := &dynamodb.QueryInput{
		TableName: aws.String(s.table), KeyConditionExpression: expr.KeyCondition(), FilterExpression: expr.Filter(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		ScanIndexForward: aws.Bool(!q.backward), ConsistentRead: aws.Bool(q.consistent && q.key.on.index == ""),
	}
	if q.key.on.index != "" {
		in.IndexName = aws.String(q.key.on.index)
	}
	return in, nil
}

// what names the query in errors.
func (q querySpec) what() string { return "query " + q.key.on.index + " " + q.key.pk }

// query runs one Query and returns what it read, unpaged: for collections
// bounded by design (an order, a cart, a drop, an account's
// subscriptions, the categories), never a list that grows.
func (s *Store) query(ctx context.Context, q querySpec) ([]map[string]types.AttributeValue, error) {
	in, err := s.queryInput(q)
	if err != nil {
		return nil, err
	}
	out, err := s.db.Query(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", q.what(), err)
	}
	return out.Items, nil
}

// queryAll is query with every item read as R and converted.
func queryAll[R, T any](ctx context.Context, s *Store, q querySpec, convert func(R) T) ([]T, error) {
	items, err := s.query(ctx, q)
	if err != nil {
		return nil, err
	}
	return unmarshalItems(items, convert)
}

// queryOne is queryAll for the first item; none is an error wrapping
// ErrNotFound that names what.
func queryOne[R, T any](ctx context.Context, s *Store, q querySpec, what string, convert func(R) T) (T, error) {
	all, err := queryAll(ctx, s, q, convert)
	if err != nil {
		var zero T
		return zero, err
	}
	return firstOf(all, what)
}

// firstOf is the first of list; none is an error wrapping ErrNotFound that
// names what.
func firstOf[T any](list []T, what string) (T, error) {
	if len(list) == 0 {
		var zero T
		return zero, fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	return list[0], nil
}

// pagedQuery reads one page of a list: up to limit items after cursor.
func pagedQuery[R, T any](ctx context.Context, s *Store, q querySpec, limit int, cursor string, convert func(R) T) (Page[T], error) {
	start, err := decodeCursor(cursor, q.key)
	if err != nil {
		return Page[T]{}, err
	}
	in, err := s.queryInput(q)
	if err != nil {
		return Page[T]{}, err
	}
	out, err := s.queryFrom(ctx, in, start, limit)
	if errors.Is(err, ErrBadCursor) {
		return Page[T]{}, err
	}
	if err != nil {
		return Page[T]{}, fmt.Errorf("%s: %w", q.what(), err)
	}
	items := out.Items
	var last map[string]types.AttributeValue
	switch {
	case len(items) > limit:
		items = items[:limit]
		last = items[limit-1]
	case out.LastEvaluatedKey != nil:
		last = out.LastEvaluatedKey // DynamoDB stopped at its 1 MB
	}
	page := Page[T]{}
	if page.Items, err = unmarshalItems(items, convert); err != nil {
		return Page[T]{}, err
	}
	if last != nil {
		attrs := q.key.on.cursorAttrs()
		keys := keysOf(last, attrs)
		if len(keys) != len(attrs) {
			return Page[T]{}, fmt.Errorf("%s: cursor: an item lacks a string key of %v", q.what(), attrs)
		}
		page.Next, err = encodeCursor(keys)
	}
	return page, err
}

// queryFrom runs in from start (nil: the top) for up to limit items. It
// asks for one more than it shows, so a page that ends the list says so
// instead of leaving an empty page behind a cursor.
func (s *Store) queryFrom(ctx context.Context, in *dynamodb.QueryInput, start map[string]types.AttributeValue, limit int) (*dynamodb.QueryOutput, error) {
	page := *in
	page.Limit = aws.Int32(int32(limit + 1))
	page.ExclusiveStartKey = start
	out, err := s.db.Query(ctx, &page)
	var apiErr smithy.APIError
	if err != nil && start != nil && errors.As(err, &apiErr) && apiErr.ErrorCode() == "ValidationException" {
		return nil, ErrBadCursor // a cursor edited to point outside its query's key condition
	}
	return out, err
}

// A cursor is the key of the last item a page showed (keysOf), as
// base64 of its JSON. It is pinned to its query by the partition: one from
// another list is ErrBadCursor, never sent to DynamoDB.

const maxCursor = 8192

func encodeCursor(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// readCursor decodes a cursor into v; any flaw is ErrBadCursor.
func readCursor(cursor string, v any) error {
	if len(cursor) > maxCursor {
		return ErrBadCursor
	}
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || json.Unmarshal(b, v) != nil {
		return ErrBadCursor
	}
	return nil
}

// decodeCursor is where a page of the query under key starts: nil for the
// top ("").
func decodeCursor(cursor string, key keyCond) (map[string]types.AttributeValue, error) {
	if cursor == "" {
		return nil, nil
	}
	var keys map[string]string
	if err := readCursor(cursor, &keys); err != nil {
		return nil, err
	}
	return startKey(keys, key)
}

// cursorSortKey is the sort key of the position a cursor of the query
// under key holds ("" for the top), for a list whose lower bound moves with
// time; a cursor of another query is ErrBadCursor.
func cursorSortKey(cursor string, key keyCond) (string, error) {
	start, err := decodeCursor(cursor, key)
	if start == nil || err != nil {
		return "", err
	}
	sk, ok := start[key.on.skAttr].(*types.AttributeValueMemberS)
	if !ok {
		return "", ErrBadCursor
	}
	return sk.Value, nil
}

// startKey is the ExclusiveStartKey of keys, a position read from a
// cursor: every key attribute of the query under key, in its partition.
func startKey(keys map[string]string, key keyCond) (map[string]types.AttributeValue, error) {
	attrs := key.on.cursorAttrs()
	if len(keys) != len(attrs) || keys[key.on.pkAttr] != key.pk {
		return nil, ErrBadCursor
	}
	for _, a := range attrs {
		if keys[a] == "" {
			return nil, ErrBadCursor
		}
	}
	start, err := attributevalue.MarshalMap(keys)
	if err != nil {
		return nil, ErrBadCursor
	}
	return start, nil
}

// keysOf is the position of item in a Query's order: its attrs.
func keysOf(item map[string]types.AttributeValue, attrs []string) map[string]string {
	keys := make(map[string]string, len(attrs))
	for _, a := range attrs {
		if v, ok := item[a].(*types.AttributeValueMemberS); ok {
			keys[a] = v.Value
		}
	}
	return keys
}

// listsCursor is the cursor of a page merged from several lists (the
// shards of a due index, a statement's receipts and invoices): where each
// stands, by name, or that it is done. Query pins it to its listing.
type listsCursor struct {
	Query string                       `json:"q"`
	Done  []string                     `json:"d,omitempty"`
	After map[string]map[string]string `json:"a,omitempty"`
}

// decodeListsCursor reads a cursor of the listing queryID ("" is its top).
func decodeListsCursor(cursor, queryID string) (listsCursor, error) {
	// Decoded into an empty cursor, so that one without its query is refused.
	pos := listsCursor{After: map[string]map[string]string{}}
	if cursor == "" {
		return pos, nil
	}
	if err := readCursor(cursor, &pos); err != nil || pos.Query != queryID {
		return listsCursor{}, ErrBadCursor
	}
	return pos, nil
}

// unmarshalItems reads every item as R and converts it.
func unmarshalItems[R, T any](items []map[string]types.AttributeValue, convert func(R) T) ([]T, error) {
	out := make([]T, 0, len(items))
	for _, it := range items {
		if err := appendItem(&out, it, convert); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// appendItem reads item as R and appends it, converted, to out: for a
// Query whose items are of several kinds.
func appendItem[R, T any](out *[]T, item map[string]types.AttributeValue, convert func(R) T) error {
	var r R
	if err := attributevalue.UnmarshalMap(item, &r); err != nil {
		return fmt.Errorf("unmarshal item: %w", err)
	}
	*out = append(*out, convert(r))
	return nil
}

// getItem reads the item pk/sk as R in one GetItem and converts it. An
// absent item is an error wrapping ErrNotFound that names what.
func getItem[R, T any](ctx context.Context, s *Store, pk, sk, what string, convert func(R) T) (T, error) {
	return readItem(ctx, s, pk, sk, what, false, convert)
}

// getItemConsistent is getItem with a strongly consistent read.
func getItemConsistent[R, T any](ctx context.Context, s *Store, pk, sk, what string, convert func(R) T) (T, error) {
	return readItem(ctx, s, pk, sk, what, true, convert)
}

func readItem[R, T any](ctx context.Context, s *Store, pk, sk, what string, consistent bool, convert func(R) T) (T, error) {
	var zero T
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table), Key: itemKey(pk, sk), ConsistentRead: aws.Bool(consistent)})
	if err != nil {
		return zero, fmt.Errorf("get %s: %w", what, err)
	}
	if out.Item == nil {
		return zero, fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	var r R
	if err := attributevalue.UnmarshalMap(out.Item, &r); err != nil {
		return zero, fmt.Errorf("unmarshal %s: %w", what, err)
	}
	return convert(r), nil
}

// asRecord is the convert of a read that wants the record itself.
func asRecord[R any](r R) R { return r }
