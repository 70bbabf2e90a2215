package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"
)

// Finding customers by the start of their name or email, as staff type.
// Each customer has two small finder items in their own partition
// (c#id / find#name and find#email), listed in GSI1 under the one
// partition customer-finder by the folded text (FoldText: case and
// accents ignored) and the id, so a search is one Query with begins_with.
//
// Two items rather than one customer item in two new indexes: GSI1 exists
// and a customer item already has its one GSI1 entry (customers); a
// finder carries only id, name and email into the index (no password
// hash); and no index has to be built on a running table. One partition
// is enough: two writes per sign-up, at the scaling notes' 100,000
// sign-ups a day (12 a second at a tenfold peak), is far below a
// partition's 1,000.

// finderTextMax bounds the folded text in a key (a GSI sort key takes
// 1,024 bytes); nobody types that far.
const finderTextMax = 200

// CustomerMatch is a customer found by the start of their name or email.
type CustomerMatch struct {
	ID    string
	Name  string
	Email string
	// ByEmail: the email matched what was typed (else the name).
	ByEmail bool
}

type finderRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	Name       string `dynamodbav:"Name"`
	Email      string `dynamodbav:"Email"`
	GSI1PK     string `dynamodbav:"GSI1-PK"` // customer-finder
	GSI1SK     string `dynamodbav:"GSI1-SK"` // <folded name or email>#id
}

func (r finderRecord) match() CustomerMatch {
	return CustomerMatch{ID: trimPrefix(r.PK, prefixCustomer), Name: r.Name, Email: r.Email, ByEmail: r.SK == finderEmailKey}
}

// finderText is what a finder's key holds: folded and bounded, cut on a
// whole character.
func finderText(s string) string {
	t := FoldText(s)
	if len(t) > finderTextMax {
		t = strings.ToValidUTF8(t[:finderTextMax], "")
	}
	return t
}

// customerFinders are the Puts of a customer's two finder items, for the
// transaction that writes the customer or changes their name or email.
// They overwrite: the finder's table key does not change, only its GSI1
// sort key.
func (s *Store) customerFinders(c Customer) ([]types.TransactWriteItem, error) {
	recs := s.finderRecords(c)
	out := make([]types.TransactWriteItem, len(recs))
	for i, r := range recs {
		item, err := attributevalue.MarshalMap(r)
		if err != nil {
			return nil, fmt.Errorf("marshal finder: %w", err)
		}
		out[i] = types.TransactWriteItem{Put: &types.Put{TableName: aws.String(s.table), Item: item}}
	}
	return out, nil
}

func (s *Store) finderRecords(c Customer) []finderRecord {
	rec := func(sk, text string) finderRecord {
		return finderRecord{PK: customerKey(c.ID), SK: sk, EntityType: entityCustomerFinder, Name: c.Name, Email: c.Email,
			GSI1PK: partitionCustomerFinder, GSI1SK: finderIndexKey(finderText(text), c.ID)}
	}
	return []finderRecord{rec(finderNameKey, c.Name), rec(finderEmailKey, c.Email)}
}

// FindCustomers lists customers whose name or email starts with typed
// (case and accents ignored), in the order of the matched text, a page at
// a time. A customer whose name and email both match is shown once per
// page (by name); on another page they may come again.
func (s *Store) FindCustomers(ctx context.Context, typed string, limit int, cursor string) (Page[CustomerMatch], error) {
	text := finderText(typed)
	if text == "" {
		return Page[CustomerMatch]{}, nil
	}
	page, err := pagedQuery(ctx, s, querySpec{key: onGSI1.pkAndSKPrefix(partitionCustomerFinder, text)}, limit, cursor, finderRecord.match)
	if err != nil {
		return Page[CustomerMatch]{}, err
	}
	seen := map[string]int{}
	kept := page.Items[:0]
	for _, m := range page.Items {
		if i, ok := seen[m.ID]; ok {
			kept[i].ByEmail = false
			continue
		}
		seen[m.ID] = len(kept)
		kept = append(kept, m)
	}
	page.Items = kept
	return page, nil
}

func isTxConditionFailed(err error) bool {
	for _, r := range cancellationReasons(err) {
		if r == reasonConditionFailed {
			return true
		}
	}
	return false
}

// FinderCounts is what IndexCustomerFinders did.
type FinderCounts struct {
	Customers int `json:"customers"` // customers listed
	Written   int `json:"written"`   // whose finder items were written
	Changed   int `json:"changed"`   // changed while it ran: their change wrote their finders
}

// customerFindersMarker is the one-time step of giving every customer of
// an older table their finder items.
const customerFindersMarker = "customer-finders-v1"

// settleCustomerFinders gives a table made before customers had finder
// items those items, once (a marker records it); a new table has none to
// give.
func (s *Store) settleCustomerFinders(ctx context.Context, created bool) error {
	done, err := s.Marked(ctx, customerFindersMarker)
	if err != nil || done {
		return err
	}
	if !created {
		n, err := s.IndexCustomerFinders(ctx)
		if err != nil {
			return fmt.Errorf("customer finders (%d written): %w", n.Written, err)
		}
		MigrateLog("customers given their finder items", "table", s.table, "customers", n.Customers, "written", n.Written)
	}
	if err := s.Mark(ctx, customerFindersMarker); err != nil && !errors.Is(err, ErrConflict) {
		return err
	}
	return nil
}

// IndexCustomerFinders writes the finder items of every customer, paging
// the customers list (GSI1 customers: a Query, not a scan). It is
// idempotent: each customer's finders are written as the customer reads,
// in a transaction on condition the name and email are still those, so a
// change made meanwhile (which writes its own finders) is never
// overwritten with the old name; that customer is counted as changed.
func (s *Store) IndexCustomerFinders(ctx context.Context) (FinderCounts, error) {
	var n FinderCounts
	var written, changed atomic.Int64
	for cursor := ""; ; {
		page, err := s.Customers(ctx, 100, cursor)
		if err != nil {
			return n, err
		}
		n.Customers += len(page.Items)
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(16)
		for _, c := range page.Items {
			g.Go(func() error {
				ok, err := s.writeFindersIfUnchanged(gctx, c)
				switch {
				case err != nil:
					return err
				case ok:
					written.Add(1)
				default:
					changed.Add(1)
				}
				return nil
			})
		}
		err = g.Wait()
		n.Written, n.Changed = int(written.Load()), int(changed.Load())
		if err != nil {
			return n, err
		}
		if cursor = page.Next; cursor == "" {
			return n, nil
		}
	}
}

// writeFindersIfUnchanged writes c's finders on condition the customer
// still has c's name and email; false if not.
func (s *Store) writeFindersIfUnchanged(ctx context.Context, c Customer) (bool, error) {
	same := expression.Name("Name").Equal(expression.Value(c.Name)).And(expression.Name("Email").Equal(expression.Value(c.Email)))
	expr, err := expression.NewBuilder().WithCondition(same).Build()
	if err != nil {
		return false, err
	}
	check := types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName: aws.String(s.table), Key: itemKey(customerKey(c.ID), customerKey(c.ID)),
		ConditionExpression: expr.Condition(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}
	finders, err := s.customerFinders(c)
	if err != nil {
		return false, err
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: append([]types.TransactWriteItem{check}, finders...)})
	if isTxConditionFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("finders of customer %s: %w", c.ID, err)
	}
	return true, nil
}
