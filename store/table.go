package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Billing-due indexes: sparse (only subscriptions carry their keys) and
// sharded REM#n / PAY#n with the due date as sort key, so a popular day does
// not land on one partition and a job catches up days it missed.
const (
	indexRemindersDue = "RemindersDue"
	indexPaymentsDue  = "PaymentsDue"
	attrRemPK         = "REM-PK"
	attrRemSK         = "REM-SK"
	attrPayPK         = "PAY-PK"
	attrPaySK         = "PAY-SK"
	// The attention index is sparse: only what needs staff now carries its
	// keys (an order waiting to ship, a stock level under its product's
	// threshold), so the console's dashboard queries it instead of scanning.
	indexAttention = "Attention"
	attrAttnPK     = "ATTN-PK"
	attrAttnSK     = "ATTN-SK"
)

// ShipmentsByStatus is the sparse index of every shipment by its status,
// sharded shipments#<status>#n like the other lists every order writes, the
// time it reached the status as sort key (staff's list across warehouses).
const (
	indexShipmentsByStatus = "ShipmentsByStatus"
	attrShsPK              = "SHS-PK"
	attrShsSK              = "SHS-SK"
)

func tableIndexes() []types.GlobalSecondaryIndex {
	all := &types.Projection{ProjectionType: types.ProjectionTypeAll}
	// The billing-due indexes project the whole subscription: the items are
	// small, and a job acts on what it read without reading it again.
	billing := all
	idx := func(name, pk, sk string, p *types.Projection) types.GlobalSecondaryIndex {
		return types.GlobalSecondaryIndex{
			IndexName: aws.String(name),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String(pk), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String(sk), KeyType: types.KeyTypeRange},
			},
			Projection: p,
		}
	}
	return []types.GlobalSecondaryIndex{
		idx(indexGSI1, attrGSI1PK, attrGSI1SK, all),
		idx(indexGSI2, attrGSI2PK, attrGSI2SK, all),
		idx(indexRemindersDue, attrRemPK, attrRemSK, billing),
		idx(indexPaymentsDue, attrPayPK, attrPaySK, billing),
		idx(indexAttention, attrAttnPK, attrAttnSK, all),
		idx(indexShipmentsByStatus, attrShsPK, attrShsSK, all),
	}
}

func attributeDefinitions(names ...string) []types.AttributeDefinition {
	defs := make([]types.AttributeDefinition, len(names))
	for i, n := range names {
		defs[i] = types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS}
	}
	return defs
}

var allKeyAttributes = []string{attrPK, attrSK, attrGSI1PK, attrGSI1SK, attrGSI2PK, attrGSI2SK, attrRemPK, attrRemSK, attrPayPK, attrPaySK, attrAttnPK, attrAttnSK, attrShsPK, attrShsSK}

// Migrate creates the table with its indexes and TTL (on Amazon DynamoDB
// also point-in-time recovery and deletion protection), or adds what an
// older table lacks (table_plan.go), and moves items of an older shape to
// the keys the code reads (drops, drop_migrate.go; orders and checkout
// intents to their list shards, list_shards.go; customers' finder items,
// customer_find.go; API keys to their integrations, apikey.go; placed orders
// onto the packing queue, to_pack_migrate.go; product drop tickets onto the
// list of units to give back, drop_ticket_return_migrate.go). It is
// idempotent and waits until the table is usable.
func (s *Store) Migrate(ctx context.Context) error {
	steps, created, err := s.tableSteps(ctx)
	if err != nil {
		return err
	}
	for _, st := range steps {
		if err := st.apply(ctx); err != nil {
			return err
		}
		MigrateLog(st.about, "table", s.table)
	}
	if _, err := s.billing.settle(ctx, s); err != nil {
		return err
	}
	if err := s.settleCurrency(ctx); err != nil {
		return err
	}
	if err := s.settleListShards(ctx, created); err != nil {
		return err
	}
	if err := s.listShipments(ctx, created); err != nil {
		return err
	}
	if err := s.listWhatNeedsStaff(ctx, created); err != nil {
		return err
	}
	if err := s.listToPack(ctx, created); err != nil {
		return err
	}
	if err := s.settleCustomerFinders(ctx, created); err != nil {
		return err
	}
	if err := s.migrateDrops(ctx); err != nil {
		return err
	}
	if err := s.migrateTicketReturns(ctx, created); err != nil {
		return err
	}
	if err := s.countSubscriptionTotals(ctx, created); err != nil {
		return err
	}
	return s.migrateAPIKeys(ctx)
}

func (s *Store) createTable(ctx context.Context) error {
	_, err := s.db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(s.table),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: attributeDefinitions(allKeyAttributes...),
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(attrPK), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(attrSK), KeyType: types.KeyTypeRange},
		},
		GlobalSecondaryIndexes:    tableIndexes(),
		DeletionProtectionEnabled: aws.Bool(s.onAWS),
	})
	var inUse *types.ResourceInUseException
	if err != nil && !errors.As(err, &inUse) { // another process may have just created it
		return fmt.Errorf("create table %s: %w", s.table, err)
	}
	return s.waitActive(ctx)
}

// MigrateLog receives what Migrate changed on an existing table.
var MigrateLog = func(msg string, args ...any) {}

// sameIndex compares an index's keys and projection with the code's.
func sameIndex(have types.GlobalSecondaryIndexDescription, want types.GlobalSecondaryIndex) bool {
	if len(have.KeySchema) != len(want.KeySchema) || have.Projection == nil {
		return false
	}
	for i := range want.KeySchema {
		if aws.ToString(have.KeySchema[i].AttributeName) != aws.ToString(want.KeySchema[i].AttributeName) || have.KeySchema[i].KeyType != want.KeySchema[i].KeyType {
			return false
		}
	}
	if have.Projection.ProjectionType != want.Projection.ProjectionType {
		return false
	}
	a, b := slices.Clone(have.Projection.NonKeyAttributes), slices.Clone(want.Projection.NonKeyAttributes)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// dropIndex deletes an index whose keys or projection differ from the
// code's; a later step creates it anew and DynamoDB backfills it.
func (s *Store) dropIndex(ctx context.Context, name string) error {
	_, err := s.db.UpdateTable(ctx, &dynamodb.UpdateTableInput{
		TableName:                   aws.String(s.table),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String(name)}}},
	})
	if err != nil {
		return fmt.Errorf("delete index %s: %w", name, err)
	}
	return s.waitIndexGone(ctx, name)
}

func (s *Store) waitIndexGone(ctx context.Context, name string) error {
	for {
		out, err := s.db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(s.table)})
		if err != nil {
			return fmt.Errorf("describe table %s: %w", s.table, err)
		}
		gone := out.Table.TableStatus == types.TableStatusActive
		for _, g := range out.Table.GlobalSecondaryIndexes {
			gone = gone && aws.ToString(g.IndexName) != name
		}
		if gone {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// addIndex creates one index and waits until DynamoDB has built it: it
// takes one index creation at a time.
func (s *Store) addIndex(ctx context.Context, g types.GlobalSecondaryIndex) error {
	pk, sk := aws.ToString(g.KeySchema[0].AttributeName), aws.ToString(g.KeySchema[1].AttributeName)
	_, err := s.db.UpdateTable(ctx, &dynamodb.UpdateTableInput{
		TableName:            aws.String(s.table),
		AttributeDefinitions: attributeDefinitions(pk, sk),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: g.IndexName, KeySchema: g.KeySchema, Projection: g.Projection,
		}}},
	})
	if err != nil {
		return fmt.Errorf("add index %s: %w", aws.ToString(g.IndexName), err)
	}
	return s.waitActive(ctx)
}

func (s *Store) waitActive(ctx context.Context) error {
	for {
		out, err := s.db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(s.table)})
		if err != nil {
			return fmt.Errorf("describe table %s: %w", s.table, err)
		}
		ready := out.Table.TableStatus == types.TableStatusActive
		for _, g := range out.Table.GlobalSecondaryIndexes {
			ready = ready && g.IndexStatus == types.IndexStatusActive
		}
		if ready {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func (s *Store) enableTTL(ctx context.Context) error {
	out, err := s.db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(s.table)})
	if err != nil {
		return fmt.Errorf("describe TTL: %w", err)
	}
	if d := out.TimeToLiveDescription; d != nil && aws.ToString(d.AttributeName) == attrTTL &&
		(d.TimeToLiveStatus == types.TimeToLiveStatusEnabled || d.TimeToLiveStatus == types.TimeToLiveStatusEnabling) {
		return nil
	}
	_, err = s.db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName:               aws.String(s.table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(attrTTL), Enabled: aws.Bool(true)},
	})
	if err != nil {
		return fmt.Errorf("enable TTL on %s: %w", attrTTL, err)
	}
	return nil
}

// Ping reads one item to prove the table answers; it backs /readyz.
func (s *Store) Ping(ctx context.Context) error {
	_, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.table),
		Key:       itemKey(partitionMeta, partitionMeta),
	})
	return err
}
