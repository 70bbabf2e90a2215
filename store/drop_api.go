package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// An integration's drops, newest first, for GET /api/v1/drops (GSI1:
// GSI1-PK=drops-of#<integration>, GSI1-SK=<created>#<id>). The keys are
// written with the drop and kept when it closes or is cancelled (an
// integration's drop is never on /drops, the other use of GSI1 by drops).

// maxFilteredReads bounds the Queries of one filtered page: a filter that
// keeps few drops answers a short page (even an empty one) with a cursor.
const maxFilteredReads = 4

// IntegrationDrops lists an integration's drops, newest first, each with
// its count (a drop with counters is read whole: one Query more), keeping
// those keep accepts (nil: all). A page may hold fewer than limit drops,
// even none, and still have a Next.
func (s *Store) IntegrationDrops(ctx context.Context, integration string, limit int, cursor string, keep func(Drop) bool) (Page[Drop], error) {
	q := querySpec{key: onGSI1.pkEquals(integrationDropsKey(integration)), backward: true}
	start, err := decodeCursor(cursor, q.key)
	if err != nil {
		return Page[Drop]{}, err
	}
	in, err := s.queryInput(q)
	if err != nil {
		return Page[Drop]{}, err
	}
	attrs := q.key.on.cursorAttrs()
	next := func(item map[string]types.AttributeValue) (string, error) { return encodeCursor(keysOf(item, attrs)) }
	var page Page[Drop]
	var lastKept map[string]types.AttributeValue
	for reads := 1; ; reads++ {
		out, err := s.queryFrom(ctx, in, start, limit)
		if err != nil {
			return Page[Drop]{}, fmt.Errorf("%s: %w", q.what(), err)
		}
		for _, it := range out.Items {
			d, err := s.countedDrop(ctx, it)
			if err != nil {
				return Page[Drop]{}, err
			}
			if keep != nil && !keep(d) {
				continue
			}
			if len(page.Items) == limit { // one more follows the page
				page.Next, err = next(lastKept)
				return page, err
			}
			page.Items, lastKept = append(page.Items, d), it
		}
		switch {
		case out.LastEvaluatedKey == nil:
			return page, nil
		case reads == maxFilteredReads:
			page.Next, err = next(out.LastEvaluatedKey)
			return page, err
		}
		start = out.LastEvaluatedKey
	}
}

// countedDrop is a listed drop's item as a drop with its count.
func (s *Store) countedDrop(ctx context.Context, item map[string]types.AttributeValue) (Drop, error) {
	var r dropRecord
	if err := attributevalue.UnmarshalMap(item, &r); err != nil {
		return Drop{}, fmt.Errorf("unmarshal drop: %w", err)
	}
	d := r.drop()
	if d.Counted() {
		return d, nil
	}
	return s.Drop(ctx, d.ID)
}

// integrationDropsMarker marks a table whose integration drops were all
// given their keys in their integration's list.
const integrationDropsMarker = "drops-of-v1"

// listIntegrationDrops gives every integration's drop made before the
// list its keys in it, once per table: it reads every drop (drops-all).
func (s *Store) listIntegrationDrops(ctx context.Context) error {
	done, err := s.Marked(ctx, integrationDropsMarker)
	if err != nil || done {
		return err
	}
	q := querySpec{key: onGSI2.pkEquals(partitionDrops)}
	listed, cursor := 0, ""
	for {
		page, err := pagedQuery(ctx, s, q, 100, cursor, asRecord[dropRecord])
		if err != nil {
			return fmt.Errorf("list integration drops: %w", err)
		}
		for _, r := range page.Items {
			name, ok := AudienceIntegration(r.audience())
			if !ok || r.GSI1PK != "" {
				continue
			}
			d := r.drop()
			upd := expression.Set(expression.Name(attrGSI1PK), expression.Value(integrationDropsKey(name))).
				Set(expression.Name(attrGSI1SK), expression.Value(createdKey(d.CreatedAt, d.ID)))
			err := s.updateIf(ctx, r.PK, r.SK, upd, expression.AttributeNotExists(expression.Name(attrGSI1PK)))
			switch {
			case isConditionFailed(err): // listed meanwhile
			case err != nil:
				return fmt.Errorf("list integration drop %s: %w", d.ID, err)
			default:
				listed++
			}
		}
		if page.Next == "" {
			break
		}
		cursor = page.Next
	}
	if listed > 0 {
		MigrateLog("integration drops listed by integration", "table", s.table, "drops", listed)
	}
	if err := s.Mark(ctx, integrationDropsMarker); err != nil && !errors.Is(err, ErrConflict) {
		return err
	}
	return nil
}
