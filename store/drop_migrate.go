package store

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Drops written before /drops was keyed by closing time have the GSI1 sort
// key <opens>#id, which sorts below every closes#… key and so falls out of
// /drops, and their product drops have no entry in the list of drops to
// close; integrations' drops made before GET /api/v1/drops are not in
// their integration's list (drop_api.go). Migrate moves them
// (migrateDrops); every step is idempotent.

// dropsToCloseMarker marks a table whose product drops were all given
// their entry in the list of drops to close (drops-closing).
const dropsToCloseMarker = "drops-closing-v1"

// migrateDrops rekeys published drops of the old shape, which costs one
// Query when there are none (so every Migrate runs it: a replica of the
// previous version may still write one), and once per table lists the
// product drops still open for the reconcile step.
func (s *Store) migrateDrops(ctx context.Context) error {
	if err := s.rekeyPublishedDrops(ctx); err != nil {
		return err
	}
	if err := s.listIntegrationDrops(ctx); err != nil {
		return err
	}
	done, err := s.Marked(ctx, dropsToCloseMarker)
	if err != nil || done {
		return err
	}
	if err := s.listOpenProductDrops(ctx); err != nil {
		return err
	}
	if err := s.Mark(ctx, dropsToCloseMarker); err != nil && !errors.Is(err, ErrConflict) {
		return err
	}
	return nil
}

// rekeyPublishedDrops gives every published drop of the old shape its
// closing-time sort key, or takes one staff closed or cancelled off /drops,
// each on condition its key is still the old one.
func (s *Store) rekeyPublishedDrops(ctx context.Context) error {
	q := querySpec{key: onGSI1.pkAndSKBelow(partitionPublishedDrops, prefixCloses)}
	moved, cursor := 0, ""
	for {
		page, err := pagedQuery(ctx, s, q, 100, cursor, asRecord[dropRecord])
		if err != nil {
			return fmt.Errorf("rekey drops: %w", err)
		}
		for _, r := range page.Items {
			d := r.drop()
			upd := expression.Set(expression.Name(attrGSI1SK), expression.Value(closesKey(d.Closes, d.ID)))
			if d.Status != DropOpen {
				upd = leaveDropLists(d.Status)
			}
			err := s.updateIf(ctx, r.PK, r.SK, upd, expression.Name(attrGSI1SK).Equal(expression.Value(r.GSI1SK)))
			switch {
			case isConditionFailed(err): // rewritten meanwhile
			case err != nil:
				return fmt.Errorf("rekey drop %s: %w", d.ID, err)
			default:
				moved++
			}
		}
		if page.Next == "" {
			break
		}
		cursor = page.Next
	}
	if moved > 0 {
		MigrateLog("published drops keyed by closing time", "table", s.table, "drops", moved)
	}
	return nil
}

// listOpenProductDrops reads every drop once (the staff list) and gives
// each product drop still open its entry in the list of drops to close, on
// condition it is still open: a drop closed meanwhile gets none.
func (s *Store) listOpenProductDrops(ctx context.Context) error {
	listed, cursor := 0, ""
	for {
		page, err := s.AllDrops(ctx, 100, cursor)
		if err != nil {
			return fmt.Errorf("list product drops: %w", err)
		}
		for _, d := range page.Items {
			if d.ProductID == "" || d.Status != DropOpen || len(d.SetAside) == 0 {
				continue
			}
			ok, err := s.putDropClosing(ctx, d)
			if err != nil {
				return err
			}
			if ok {
				listed++
			}
		}
		if page.Next == "" {
			break
		}
		cursor = page.Next
	}
	if listed > 0 {
		MigrateLog("open product drops listed for closing", "table", s.table, "drops", listed)
	}
	return nil
}

// putDropClosing writes a drop's entry in the list of drops to close if the
// drop is still open; false if it is not.
func (s *Store) putDropClosing(ctx context.Context, d Drop) (bool, error) {
	item, err := attributevalue.MarshalMap(newDropClosing(d))
	if err != nil {
		return false, err
	}
	check, err := expression.NewBuilder().WithCondition(expression.Name("Status").Equal(expression.Value(string(DropOpen)))).Build()
	if err != nil {
		return false, err
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String(s.table), Item: item}},
		{ConditionCheck: &types.ConditionCheck{
			TableName: aws.String(s.table), Key: itemKey(dropKey(d.ID), sortKeyDropInfo),
			ConditionExpression: check.Condition(), ExpressionAttributeNames: check.Names(), ExpressionAttributeValues: check.Values(),
		}},
	}})
	if slices.Contains(cancellationReasons(err), reasonConditionFailed) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("list drop %s for closing: %w", d.ID, err)
	}
	return true, nil
}
