package store

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Reading a cart, and migrating carts of the old shape on first read.

// cartLineRecord is a line of the old shape: one item per line, SK=p#id.
type cartLineRecord struct {
	PK          string `dynamodbav:"PK"` // cart#owner
	SK          string `dynamodbav:"SK"` // p#product
	EntityType  string `dynamodbav:"EntityType"`
	ProductName string `dynamodbav:"ProductName"`
	UnitPrice   int64  `dynamodbav:"UnitPrice"`
	Currency    string `dynamodbav:"Currency"`
	Quantity    int    `dynamodbav:"Quantity"`
	AddedAt     string `dynamodbav:"AddedAt"`
}

// loadCart reads the cart item of owner, and whether there is one.
//
// Carts written before the cart became one item kept one item per line
// (SK=p#id). They are migrated on first read, here: when the partition holds
// no cart item but old lines, one transaction writes the cart item (on
// condition there is none yet) from the oldest MaxCartLines lines, each
// capped at MaxLineQty, and deletes the old items (the first 99: a
// transaction holds 100; no cart of the old shape came near that). If
// another request migrated or made the cart first, it is read again. Every
// write that finds no cart item comes here first, so no old line is lost
// behind a new cart item.
func (s *Store) loadCart(ctx context.Context, owner string, consistent bool) (cartRecord, bool, error) {
	for range 3 {
		items, err := s.query(ctx, querySpec{key: onTable.pkEquals(cartKey(owner)), consistent: consistent})
		if err != nil {
			return cartRecord{}, false, err
		}
		var rec cartRecord
		var legacy []cartLineRecord
		found := false
		for _, it := range items {
			sk, _ := it[attrSK].(*types.AttributeValueMemberS)
			switch {
			case sk == nil:
			case sk.Value == sortKeyCart:
				if err := attributevalue.UnmarshalMap(it, &rec); err != nil {
					return cartRecord{}, false, fmt.Errorf("unmarshal cart: %w", err)
				}
				found = true
			case strings.HasPrefix(sk.Value, legacyCartLinePrefix):
				var l cartLineRecord
				if err := attributevalue.UnmarshalMap(it, &l); err != nil {
					return cartRecord{}, false, fmt.Errorf("unmarshal cart line: %w", err)
				}
				legacy = append(legacy, l)
			}
		}
		if found || len(legacy) == 0 {
			return rec, found, nil
		}
		rec, err = s.migrateCart(ctx, owner, legacy)
		if err == nil {
			return rec, true, nil
		}
		if cancellationReasons(err) == nil {
			return cartRecord{}, false, fmt.Errorf("migrate cart: %w", err)
		}
		consistent = true // migrated or made meanwhile: read what is there now
	}
	return cartRecord{}, false, fmt.Errorf("migrate cart: %w", ErrConflict)
}

func (s *Store) migrateCart(ctx context.Context, owner string, legacy []cartLineRecord) (cartRecord, error) {
	slices.SortStableFunc(legacy, func(a, b cartLineRecord) int { return parseTime(a.AddedAt).Compare(parseTime(b.AddedAt)) })
	rec := s.newCart(owner)
	var tx []types.TransactWriteItem
	for _, l := range legacy {
		if len(tx) < 99 {
			tx = append(tx, types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(s.table), Key: itemKey(l.PK, l.SK)}})
		}
		id := trimPrefix(l.SK, legacyCartLinePrefix)
		if !ValidID(id) || l.Quantity < 1 || len(rec.Lines) >= MaxCartLines {
			continue
		}
		rec.Lines[id] = cartLineDoc{ProductName: l.ProductName, UnitPrice: l.UnitPrice, Currency: l.Currency,
			Quantity: min(l.Quantity, MaxLineQty), AddedAt: l.AddedAt}
	}
	put, err := s.cartPut(rec, false, 0)
	if err != nil {
		return rec, err
	}
	return rec, s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: append([]types.TransactWriteItem{put}, tx...)})
}
