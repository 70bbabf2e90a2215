package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"
)

// StatementLine is one payment on a customer's statement: the receipt of a
// subscription's payment or the invoice of a shop order. Exactly one of
// Receipt and Invoice is set.
type StatementLine struct {
	At      time.Time
	Receipt *Receipt
	Invoice *Invoice
}

// statementList is one of the two queries a statement merges.
type statementList struct {
	name string // "r" receipts, "i" invoices
	q    querySpec
	in   *dynamodb.QueryInput // q's, complete but for Limit and ExclusiveStartKey
	at   func(map[string]types.AttributeValue) time.Time

	// The current fetch.
	start map[string]types.AttributeValue
	items []map[string]types.AttributeValue
	last  map[string]types.AttributeValue // LastEvaluatedKey
	more  bool
	used  int
}

func itemTime(attr string) func(map[string]types.AttributeValue) time.Time {
	return func(it map[string]types.AttributeValue) time.Time {
		if v, ok := it[attr].(*types.AttributeValueMemberS); ok {
			return parseTime(v.Value)
		}
		return time.Time{}
	}
}

// statementRounds bounds the re-reads of a list whose page the TTL filter
// emptied before the merge could tell what comes next.
const statementRounds = 3

// Statement lists what a customer paid in the last six months, newest
// first: the receipts of their subscriptions (pattern 7 of the recurring
// payments guide: PK=ACC#id, SK between REC#<six months ago> and REC#~,
// expired ones filtered out) and the invoices of their shop orders (pattern
// 15: GSI2-PK=c#id, GSI2-SK between i#<six months ago> and i#~), merged.
// One page costs two Queries, run in parallel. The cursor carries each
// list's position and is pinned to this customer's statement: any other is
// ErrBadCursor.
func (s *Store) Statement(ctx context.Context, customerID string, limit int, cursor string) (Page[StatementLine], error) {
	if limit < 1 {
		limit = 1
	}
	queryID := "statement|" + customerID
	pos, err := decodeListsCursor(cursor, queryID)
	if err != nil {
		return Page[StatementLine]{}, err
	}
	lists := statementLists(customerID, s.now())
	open, err := s.openStatementLists(lists, pos)
	if err != nil {
		return Page[StatementLine]{}, err
	}
	if err := s.fetchStatement(ctx, open, limit); err != nil {
		return Page[StatementLine]{}, err
	}
	lines, kinds, err := s.mergeStatement(ctx, open, limit)
	if err != nil {
		return Page[StatementLine]{}, err
	}
	page := Page[StatementLine]{}
	if page.Items, err = statementLines(lines, kinds); err != nil {
		return Page[StatementLine]{}, err
	}
	next := statementCursor(queryID, pos, open)
	if len(next.Done) == len(lists) {
		return page, nil
	}
	page.Next, err = encodeCursor(next)
	return page, err
}

// statementLists are the two lists a customer's statement merges, as of
// now: their receipts (the expired filtered out) and their invoices, each
// of the last six months, newest first.
func statementLists(customerID string, now time.Time) []*statementList {
	since := now.AddDate(0, -ReceiptRetention, 0)
	receiptLo, receiptHi := receiptRange(since)
	invoiceLo, invoiceHi := sinceRange(prefixInvoice, since)
	live := expression.Name(attrTTL).GreaterThan(expression.Value(now.Unix()))
	return []*statementList{
		{name: "r", at: itemTime("ProcessedDate"),
			q: querySpec{key: onTable.pkAndSKBetween(accountKey(customerID), receiptLo, receiptHi), backward: true, filter: &live}},
		{name: "i", at: itemTime("Date"),
			q: querySpec{key: onGSI2.pkAndSKBetween(customerKey(customerID), invoiceLo, invoiceHi), backward: true}},
	}
}

// openStatementLists are the lists the cursor's position has not done
// with, each set to start where the position left it.
func (s *Store) openStatementLists(lists []*statementList, pos listsCursor) ([]*statementList, error) {
	var open []*statementList
	var err error
	for _, l := range lists {
		if slices.Contains(pos.Done, l.name) {
			continue
		}
		if after, ok := pos.After[l.name]; ok {
			if l.start, err = startKey(after, l.q.key); err != nil {
				return nil, err
			}
		}
		if l.in, err = s.queryInput(l.q); err != nil {
			return nil, err
		}
		open = append(open, l)
	}
	return open, nil
}

// mergeStatement merges the fetched lists into one page of up to limit
// items, newest first, with each item's list (kinds). A list that ran out
// of fetched lines but has more stops the page (what it holds next is
// unknown), unless a re-read fills it.
func (s *Store) mergeStatement(ctx context.Context, open []*statementList, limit int) (lines []map[string]types.AttributeValue, kinds []string, err error) {
	for round := 0; len(lines) < limit; {
		var best, dry *statementList
		for _, l := range open {
			switch {
			case l.used < len(l.items):
				if best == nil || l.at(l.items[l.used]).After(best.at(best.items[best.used])) {
					best = l
				}
			case l.more:
				dry = l
			}
		}
		if dry != nil {
			if round++; round > statementRounds {
				break
			}
			dry.start, dry.used = dry.last, 0
			if err := s.fetchStatement(ctx, []*statementList{dry}, limit-len(lines)); err != nil {
				return nil, nil, err
			}
			continue
		}
		if best == nil {
			break
		}
		lines = append(lines, best.items[best.used])
		kinds = append(kinds, best.name)
		best.used++
	}
	return lines, kinds, nil
}

// statementLines are the merged items as the statement's lines: a
// receipt or an invoice, by the list each came from.
func statementLines(lines []map[string]types.AttributeValue, kinds []string) ([]StatementLine, error) {
	out := make([]StatementLine, 0, len(lines))
	for i, it := range lines {
		var line StatementLine
		if kinds[i] == "r" {
			var r receiptRecord
			if err := attributevalue.UnmarshalMap(it, &r); err != nil {
				return nil, fmt.Errorf("unmarshal receipt: %w", err)
			}
			rc := r.receipt()
			line = StatementLine{At: rc.ProcessedAt, Receipt: &rc}
		} else {
			var r invoiceRecord
			if err := attributevalue.UnmarshalMap(it, &r); err != nil {
				return nil, fmt.Errorf("unmarshal invoice: %w", err)
			}
			inv := r.invoice()
			line = StatementLine{At: inv.Date, Invoice: &inv}
		}
		out = append(out, line)
	}
	return out, nil
}

// statementCursor is where the next page starts: each open list after
// the last item shown from it, or done with when all of it was shown.
func statementCursor(queryID string, pos listsCursor, open []*statementList) listsCursor {
	next := listsCursor{Query: queryID, Done: slices.Clone(pos.Done), After: map[string]map[string]string{}}
	for _, l := range open {
		var at map[string]types.AttributeValue
		switch {
		case l.used == len(l.items) && !l.more:
			next.Done = append(next.Done, l.name)
			continue
		case l.used == len(l.items):
			at = l.last // all read lines shown: go on after the last one read
		case l.used > 0:
			at = l.items[l.used-1]
		default:
			at = l.start
		}
		if at == nil {
			continue // nothing shown from it yet: it starts from the top
		}
		next.After[l.name] = keysOf(at, l.q.key.on.cursorAttrs())
	}
	return next
}

// fetchStatement reads the next lines of each list, in parallel.
func (s *Store) fetchStatement(ctx context.Context, lists []*statementList, limit int) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, l := range lists {
		g.Go(func() error {
			out, err := s.queryFrom(gctx, l.in, l.start, limit)
			if errors.Is(err, ErrBadCursor) {
				return err
			}
			if err != nil {
				return fmt.Errorf("statement %s of %s: %w", l.name, l.q.key.pk, err)
			}
			l.items, l.last = out.Items, out.LastEvaluatedKey
			l.more = len(out.Items) > limit || out.LastEvaluatedKey != nil
			return nil
		})
	}
	return g.Wait()
}
