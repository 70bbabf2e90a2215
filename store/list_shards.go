package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"golang.org/x/sync/errgroup"
)

// DefaultListShards is how many shards a new table gives the lists every
// order writes: a month's orders (GSI1 orders#YYYY-MM#n) and the orders
// held for their payment (GSI1, held_orders.go). At 10,000 orders a
// second each shard takes about 310 writes a second, below a partition's
// 1,000 (docs/design.md, Scaling notes).
const DefaultListShards = 32

// listsShardedMarker is the one-time step of moving a table's orders to
// their list shards.
const listsShardedMarker = "lists-sharded"

// settleListShards fixes the table's list shard count and, on a table
// made before the lists were sharded, moves their items to their shards,
// once (a marker records it). A new table (created) has nothing to move.
func (s *Store) settleListShards(ctx context.Context, created bool) error {
	shards, err := s.lists.settle(ctx, s)
	if err != nil {
		return err
	}
	done, err := s.Marked(ctx, listsShardedMarker)
	if err != nil || done {
		return err
	}
	if !created {
		moved, err := s.moveToListShards(ctx, shards)
		if err != nil {
			return fmt.Errorf("move orders to their shards (moved %d): %w", moved, err)
		}
		MigrateLog("orders moved to their list shards", "table", s.table, "items", moved, "shards", shards)
	}
	if err := s.Mark(ctx, listsShardedMarker); err != nil && !errors.Is(err, ErrConflict) {
		return err
	}
	return nil
}

// moveToListShards gives each order still under its month's unsharded key
// (orders#YYYY-MM) its shard's key. It scans the table once, so it runs
// once per table (Migrate marks it done), and again after a crash part
// way (no mark yet): each move is conditional on the old key, so a rerun
// skips what moved and a write made meanwhile is never overwritten. (Open
// card checkouts of the old in-request charge, under checkout-intents,
// are left where they are: nothing reads them, their TTL ends them.)
func (s *Store) moveToListShards(ctx context.Context, shards int) (int, error) {
	legacyOrder := expression.Name("EntityType").Equal(expression.Value(entityOrder)).
		And(expression.Name(attrGSI1PK).Size().Equal(expression.Value(len(prefixOrdersOf + "2006-01"))))
	expr, err := expression.NewBuilder().WithFilter(legacyOrder).
		WithProjection(expression.NamesList(expression.Name(attrPK), expression.Name(attrSK), expression.Name(attrGSI1PK))).Build()
	if err != nil {
		return 0, err
	}
	scan := dynamodb.NewScanPaginator(s.db, &dynamodb.ScanInput{
		TableName: aws.String(s.table), FilterExpression: expr.Filter(), ProjectionExpression: expr.Projection(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	type keys struct {
		PK     string `dynamodbav:"PK"`
		SK     string `dynamodbav:"SK"`
		GSI1PK string `dynamodbav:"GSI1-PK"`
	}
	moved := 0
	for scan.HasMorePages() {
		out, err := scan.NextPage(ctx)
		if err != nil {
			return moved, fmt.Errorf("scan %s: %w", s.table, err)
		}
		var page []keys
		if err := attributevalue.UnmarshalListOfMaps(out.Items, &page); err != nil {
			return moved, fmt.Errorf("unmarshal scanned keys: %w", err)
		}
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(16)
		for _, k := range page {
			old, id := k.GSI1PK, trimPrefix(k.PK, prefixOrder)
			if !strings.HasPrefix(old, prefixOrdersOf) {
				continue
			}
			g.Go(func() error {
				err := s.updateIf(gctx, k.PK, k.SK, expression.Set(expression.Name(attrGSI1PK), expression.Value(shardKey(old, shardOf(id, shards)))),
					expression.Name(attrGSI1PK).Equal(expression.Value(old)))
				if err != nil && !isConditionFailed(err) { // moved meanwhile
					return fmt.Errorf("move %s/%s to its shard: %w", k.PK, k.SK, err)
				}
				return nil
			})
			moved++
		}
		if err := g.Wait(); err != nil {
			return moved, err
		}
	}
	return moved, nil
}
