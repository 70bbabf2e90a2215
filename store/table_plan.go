package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// Migrate first works out what the table lacks (tableSteps), then does it:
// the same list is what `shop migrate --dry-run` prints, so the dry run
// cannot tell a different story from the run.

// tableStep is one change to the table's shape or settings.
type tableStep struct {
	about string
	apply func(context.Context) error
}

// oneTimeSteps are the data moves Migrate makes once on an older table,
// each known by the marker it leaves; on a table it creates, each is only
// marked (there is nothing to move).
var oneTimeSteps = []struct{ marker, about string }{
	{listsShardedMarker, "move orders and card checkouts to their list shards"},
	{shipmentsListed, "list older shipments by status"},
	{attentionListed, "count older orders into their days, list orders to ship and low stock"},
	{toPackListed, "put placed orders on the packing queue"},
	{customerFindersMarker, "write every customer's finder items"},
	{dropsToCloseMarker, "list open product drops for closing"},
	{subscriptionTotalsCounted, "count subscriptions into the billing dashboard's totals"},
}

// ErrIndexDiffers: an index on Amazon DynamoDB has other keys or another
// projection than the code's. Migrate never drops one there: an operator
// decides (the index is rebuilt from the whole table, and the shop's
// queries on it fail meanwhile).
var ErrIndexDiffers = errors.New("an index differs from the code's")

// PlanTable says, without changing anything, what Migrate would do: the
// table's changes first, then the one-time data steps still to run.
func (s *Store) PlanTable(ctx context.Context) ([]string, error) {
	steps, created, err := s.tableSteps(ctx)
	if err != nil {
		return nil, err
	}
	var plan []string
	for _, st := range steps {
		plan = append(plan, st.about)
	}
	if created {
		return plan, nil // a new table has no older items to move
	}
	for _, st := range oneTimeSteps {
		done, err := s.Marked(ctx, st.marker)
		if err != nil {
			return nil, err
		}
		if !done {
			plan = append(plan, "once: "+st.about)
		}
	}
	return plan, nil
}

// WritePlan writes what Migrate would change, one step a line (migrate
// --dry-run).
func (s *Store) WritePlan(ctx context.Context, out io.Writer) error {
	plan, err := s.PlanTable(ctx)
	if err != nil {
		return err
	}
	if len(plan) == 0 {
		_, err = fmt.Fprintf(out, "table %s is up to date: migrate would change nothing\n", s.table)
		return err
	}
	fmt.Fprintf(out, "migrate would, on table %s:\n", s.table)
	for _, step := range plan {
		if _, err := fmt.Fprintf(out, "  - %s\n", step); err != nil {
			return err
		}
	}
	return nil
}

// tableSteps lists the changes the table needs; created says the table
// does not exist yet.
func (s *Store) tableSteps(ctx context.Context) (steps []tableStep, created bool, err error) {
	desc, err := s.db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(s.table)})
	var notFound *types.ResourceNotFoundException
	switch {
	case errors.As(err, &notFound):
		created = true
		var names []string
		for _, g := range tableIndexes() {
			names = append(names, aws.ToString(g.IndexName))
		}
		about := fmt.Sprintf("create table %s: on-demand, keys PK and SK, indexes %s", s.table, strings.Join(names, ", "))
		if s.onAWS {
			about += ", deletion protection on"
		}
		steps = append(steps, tableStep{about, s.createTable})
	case err != nil:
		return nil, false, fmt.Errorf("describe table %s: %w", s.table, err)
	default:
		if steps, err = s.indexSteps(desc.Table); err != nil {
			return nil, false, err
		}
	}
	ttlOn, err := s.ttlOn(ctx, created)
	if err != nil {
		return nil, false, err
	}
	if !ttlOn {
		steps = append(steps, tableStep{"turn on TTL on " + attrTTL + " (sessions, receipts, rate limits expire)", s.enableTTL})
	}
	if !s.onAWS {
		return steps, created, nil
	}
	pitr, err := s.recoveryOn(ctx, created)
	if err != nil {
		return nil, false, err
	}
	if !pitr {
		steps = append(steps, tableStep{"turn on point-in-time recovery (35 days of restorable history)", s.enableRecovery})
	}
	if !created && !aws.ToBool(desc.Table.DeletionProtectionEnabled) {
		steps = append(steps, tableStep{"turn on deletion protection", s.protectTable})
	}
	return steps, created, nil
}

// indexSteps adds the indexes the table lacks. An index whose keys or
// projection changed is dropped and made anew on DynamoDB Local (a
// developer's table); on Amazon DynamoDB that is an error for an operator.
func (s *Store) indexSteps(t *types.TableDescription) ([]tableStep, error) {
	want := map[string]types.GlobalSecondaryIndex{}
	for _, g := range tableIndexes() {
		want[aws.ToString(g.IndexName)] = g
	}
	var steps []tableStep
	have := map[string]bool{}
	for _, g := range t.GlobalSecondaryIndexes {
		name := aws.ToString(g.IndexName)
		w, ok := want[name]
		if !ok || sameIndex(g, w) {
			have[name] = true
			continue
		}
		if s.onAWS {
			return nil, fmt.Errorf("table %s, index %s: %w; Migrate never drops an index on Amazon DynamoDB: delete it yourself (aws dynamodb update-table --table-name %s --global-secondary-index-updates '[{\"Delete\":{\"IndexName\":\"%s\"}}]') and run migrate again to build it",
				s.table, name, ErrIndexDiffers, s.table, name)
		}
		steps = append(steps, tableStep{"drop index " + name + " (its keys or projection differ from the code's) to build it anew", func(ctx context.Context) error {
			return s.dropIndex(ctx, name)
		}})
	}
	for _, g := range tableIndexes() {
		if name := aws.ToString(g.IndexName); !have[name] {
			steps = append(steps, tableStep{"add index " + name + " and wait until it is built", func(ctx context.Context) error {
				return s.addIndex(ctx, g)
			}})
		}
	}
	return steps, nil
}

func (s *Store) ttlOn(ctx context.Context, created bool) (bool, error) {
	if created {
		return false, nil
	}
	out, err := s.db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(s.table)})
	if err != nil {
		return false, fmt.Errorf("describe TTL: %w", err)
	}
	d := out.TimeToLiveDescription
	return d != nil && aws.ToString(d.AttributeName) == attrTTL &&
		(d.TimeToLiveStatus == types.TimeToLiveStatusEnabled || d.TimeToLiveStatus == types.TimeToLiveStatusEnabling), nil
}

// recoveryOn reads the table's point-in-time recovery. An engine that does
// not offer it (DynamoDB Local, in tests of the AWS path) counts as on:
// there is nothing to turn on.
func (s *Store) recoveryOn(ctx context.Context, created bool) (bool, error) {
	if created {
		return !s.offersRecovery(ctx), nil
	}
	out, err := s.db.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(s.table)})
	if unknownOperation(err) {
		MigrateLog("this engine offers no point-in-time recovery", "table", s.table)
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("describe backups of %s: %w", s.table, err)
	}
	d := out.ContinuousBackupsDescription
	return d != nil && d.PointInTimeRecoveryDescription != nil &&
		d.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus == types.PointInTimeRecoveryStatusEnabled, nil
}

// offersRecovery asks the engine, with a table name that cannot exist,
// whether it knows the backup operations at all.
func (s *Store) offersRecovery(ctx context.Context) bool {
	_, err := s.db.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(s.table)})
	return !unknownOperation(err)
}

func unknownOperation(err error) bool {
	var api smithy.APIError
	return errors.As(err, &api) && api.ErrorCode() == "UnknownOperationException"
}

func (s *Store) enableRecovery(ctx context.Context) error {
	_, err := s.db.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{
		TableName:                        aws.String(s.table),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)},
	})
	if err != nil {
		return fmt.Errorf("turn on point-in-time recovery of %s: %w", s.table, err)
	}
	return nil
}

func (s *Store) protectTable(ctx context.Context) error {
	_, err := s.db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(s.table), DeletionProtectionEnabled: aws.Bool(true)})
	if err != nil {
		return fmt.Errorf("turn on deletion protection of %s: %w", s.table, err)
	}
	return s.waitActive(ctx)
}
