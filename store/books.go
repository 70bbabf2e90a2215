package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Numbers for the books: invoices and receipts are numbered per year
// without gaps ("2026-000123"; receipts "R2026-000045"), as bookkeeping
// rules ask. Each series and year has a counter item holding the last
// number given; a document's transaction sets it to the next on condition
// it still holds the one read, so a number is given once, and a cancelled
// transaction (declined, out of stock, another writer first) gives none.
//
// One counter takes about 1,000 writes a second (500 transactional); a shop
// that needs more names several series (WithBookSeries, SHOP_INVOICE_SERIES
// "A,B"): a document goes to the series of a hash of its order's or
// subscription's id, and each series is gapless on its own ("A-2026-000123",
// "B-2026-000077"), which bookkeeping rules allow.

// bookKind is which documents a series numbers.
type bookKind string

const (
	bookInvoices bookKind = "invoice"
	bookReceipts bookKind = "receipt"
)

// letter is what a kind's numbers carry before the year.
func (k bookKind) letter() string {
	if k == bookReceipts {
		return "R"
	}
	return ""
}

// bookNumber is one number of a series: seq of the year, and how many
// numbers its write takes from there (a seeded subscription's receipts are
// numbered together).
type bookNumber struct {
	kind   bookKind
	series string // "" unless the shop has several
	year   int
	seq    int64
	count  int64
}

// String is the number as printed: [series-][R]YYYY-NNNNNN.
func (n bookNumber) String() string { return n.nth(0) }

// nth is the number i after n, of the same write.
func (n bookNumber) nth(i int64) string {
	s := fmt.Sprintf("%s%04d-%06d", n.kind.letter(), n.year, n.seq+i)
	if n.series != "" {
		s = n.series + "-" + s
	}
	return s
}

type bookCounterRecord struct {
	PK         string `dynamodbav:"PK"` // books#kind#[series#]year
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	Last       int64  `dynamodbav:"Last"` // the last number given
}

func bookCounterKey(kind bookKind, series string, year int) string {
	if series != "" {
		return fmt.Sprintf("%s%s#%s#%04d", prefixBooks, kind, series, year)
	}
	return fmt.Sprintf("%s%s#%04d", prefixBooks, kind, year)
}

var errBookNumberTaken = errors.New("book number taken meanwhile")

// ValidBookSeries says whether a series name can prefix numbers: one to
// three capital letters.
func ValidBookSeries(s string) bool {
	if len(s) == 0 || len(s) > 3 {
		return false
	}
	for _, c := range s {
		if c < 'A' || c > 'Z' {
			return false
		}
	}
	return true
}

// ParseBookSeries reads SHOP_INVOICE_SERIES: "" (one series), or names
// separated by commas ("A,B").
func ParseBookSeries(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []string
	seen := map[string]bool{}
	for part := range strings.SplitSeq(s, ",") {
		p := strings.TrimSpace(part)
		if !ValidBookSeries(p) || seen[p] {
			return nil, fmt.Errorf("invoice series %q: each one to three capital letters, once (like A,B,C)", part)
		}
		seen[p] = true
		out = append(out, p)
	}
	return out, nil
}

// seriesOf is the series a document of the order or subscription id goes to.
func (s *Store) seriesOf(id string) string {
	if len(s.bookSeries) == 0 {
		return ""
	}
	return s.bookSeries[shardOf(id, len(s.bookSeries))]
}

// nextBookNumbers reads the counter of the series of id for the year of at
// (in the shop's zone) and returns the count numbers after its last: one
// strongly consistent GetItem.
func (s *Store) nextBookNumbers(ctx context.Context, kind bookKind, id string, at time.Time, count int64) (bookNumber, error) {
	n := bookNumber{kind: kind, series: s.seriesOf(id), year: at.In(s.loc).Year(), count: count}
	last, err := getItemConsistent(ctx, s, bookCounterKey(kind, n.series, n.year), sortKeyBooks, "book counter", func(r bookCounterRecord) int64 { return r.Last })
	if err != nil && !errors.Is(err, ErrNotFound) {
		return bookNumber{}, err
	}
	n.seq = last + 1
	return n, nil
}

// bookCounterWrite is the counter's update in the document's transaction:
// from the last number read to the last one n takes.
func (s *Store) bookCounterWrite(n bookNumber) (types.TransactWriteItem, error) {
	pk := bookCounterKey(n.kind, n.series, n.year)
	cond := expression.Name("Last").Equal(expression.Value(n.seq - 1))
	if n.seq == 1 {
		cond = expression.AttributeNotExists(expression.Name(attrPK))
	}
	upd := expression.Set(expression.Name("Last"), expression.Value(n.seq+n.count-1)).
		Set(expression.Name("EntityType"), expression.Value(entityBookCounter))
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(s.table), Key: itemKey(pk, sortKeyBooks),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}, nil
}

// bookNumberTaken says whether a transaction was cancelled at its counter
// (item i): another document took the number first, or holds the counter.
func bookNumberTaken(err error, i int) bool {
	reasons := cancellationReasons(err)
	return i < len(reasons) && (reasons[i] == reasonConditionFailed || reasons[i] == reasonTransactionConflict)
}

// maxBookAttempts bounds how often a document reads its series' counter
// again after another took the number: each round one writer wins, so a
// burst of this many at once on one series still numbers them all.
const maxBookAttempts = 64

// numbered runs write with the next numbers of the series, and again with
// the ones after while another document took them first (write returns
// errBookNumberTaken).
func (s *Store) numbered(ctx context.Context, kind bookKind, id string, at time.Time, count int64, write func(bookNumber) error) error {
	for attempt := 1; ; attempt++ {
		n, err := s.nextBookNumbers(ctx, kind, id, at, count)
		if err != nil {
			return err
		}
		err = write(n)
		if !errors.Is(err, errBookNumberTaken) || attempt == maxBookAttempts {
			return err
		}
		if err := sleepCtx(ctx, rand.N(time.Duration(min(attempt, 8))*5*time.Millisecond)); err != nil {
			return err
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
