package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
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
// A number cannot be given before the one before it is written (else a
// cancelled transaction would leave a gap), so a series numbers one
// document per transaction's round trip. Within a process, documents of a
// series take turns (bookTurns): each knows the last number (kept after its
// write), so none reads the counter first and none fails on a number
// another took; only a number another process took costs a cancelled
// transaction and a read. One counter item takes about 1,000 writes a
// second (500 transactional), but the round trip (about 10-20 ms on
// DynamoDB) bounds a series to some 50-100 documents a second first. A shop
// that needs more names several series (WithBookSeries, SHOP_INVOICE_SERIES
// "A,B"): a document goes to the series of a hash of its order's or
// subscription's id, and each series is gapless on its own ("A-2026-000123",
// "B-2026-000077"), which bookkeeping rules allow.

// bookKind is which documents a series numbers.
type bookKind string

const (
	bookInvoices bookKind = "invoice"
	bookReceipts bookKind = "receipt"
	// bookCreditNotes numbers the credit notes of orders' refunds
	// ("CN2026-000001"): a series of its own, as EU invoicing rules ask.
	bookCreditNotes bookKind = "creditnote"
)

// letter is what a kind's numbers carry before the year.
func (k bookKind) letter() string {
	switch k {
	case bookReceipts:
		return "R"
	case bookCreditNotes:
		return "CN"
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

// validBookSeries says whether a series name can prefix numbers: one to
// three capital letters.
func validBookSeries(s string) bool {
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
		if !validBookSeries(p) || seen[p] {
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

// bookTurns lets the documents of each series of this process take their
// numbers one at a time, and keeps the last number each series gave.
type bookTurns struct {
	mu     sync.Mutex
	series map[string]*bookTurn
}

type bookTurn struct {
	turn  chan struct{} // holds one token while a document takes a number
	last  int64
	known bool
}

func (b *bookTurns) of(key string) *bookTurn {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.series == nil {
		b.series = map[string]*bookTurn{}
	}
	t, ok := b.series[key]
	if !ok {
		t = &bookTurn{turn: make(chan struct{}, 1)}
		b.series[key] = t
	}
	return t
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

// numbered runs write with the next numbers of the series, in this
// process's turn of the series, and again with the ones after while
// another process took them first (write returns errBookNumberTaken). The
// counter is read only when this process does not know its last number.
func (s *Store) numbered(ctx context.Context, kind bookKind, id string, at time.Time, count int64, write func(bookNumber) error) error {
	n := bookNumber{kind: kind, series: s.seriesOf(id), year: at.In(s.loc).Year(), count: count}
	t := s.books.of(bookCounterKey(kind, n.series, n.year))
	select {
	case t.turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-t.turn }()
	for attempt := 1; ; attempt++ {
		if !t.known {
			read, err := s.nextBookNumbers(ctx, kind, id, at, count)
			if err != nil {
				return err
			}
			t.last, t.known = read.seq-1, true
		}
		n.seq = t.last + 1
		err := write(n)
		if err == nil {
			t.last = n.seq + n.count - 1
			return nil
		}
		t.known = false // read it again: the write may have happened, or another's
		if !errors.Is(err, errBookNumberTaken) || attempt == maxBookAttempts {
			return err
		}
		if err := sleepCtx(ctx, rand.N(time.Duration(min(attempt, 8))*5*time.Millisecond)); err != nil {
			return err
		}
	}
}

// forgetBookNumbers makes this process read the counters again: after
// numbers were taken outside its turns (seeding).
func (s *Store) forgetBookNumbers() {
	s.books.mu.Lock()
	defer s.books.mu.Unlock()
	for _, t := range s.books.series {
		select {
		case t.turn <- struct{}{}:
			t.known = false
			<-t.turn
		default: // a document is taking a number: it reads again if it must
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
