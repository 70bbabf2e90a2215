package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"golang.org/x/sync/errgroup"
)

// The archive of the books: receipts leave the table six months after
// their charge (TTL), invoices stay, and the books need both for years. A
// month is exported once it has closed; its record here names the files and
// their checksums. The files themselves are kept outside the table
// (store/archive).

// Month is a month of the books, in the shop's time zone.
type Month struct {
	Year  int
	Month time.Month
}

// ParseMonth reads YYYY-MM strictly (years 2000-9999).
func ParseMonth(s string) (Month, error) {
	bad := fmt.Errorf("month %q: want YYYY-MM, like 2026-05", s)
	if len(s) != 7 || s[4] != '-' {
		return Month{}, bad
	}
	for i, c := range s {
		if i != 4 && (c < '0' || c > '9') {
			return Month{}, bad
		}
	}
	y, _ := strconv.Atoi(s[:4])
	m, _ := strconv.Atoi(s[5:])
	if y < 2000 || m < 1 || m > 12 {
		return Month{}, bad
	}
	return Month{Year: y, Month: time.Month(m)}, nil
}

// MonthOf is the month of the books that t falls in, in loc.
func MonthOf(t time.Time, loc *time.Location) Month {
	y, m, _ := t.In(loc).Date()
	return Month{Year: y, Month: m}
}

func (m Month) String() string { return fmt.Sprintf("%04d-%02d", m.Year, int(m.Month)) }

// AddMonths is the month n months on (back if n < 0).
func (m Month) AddMonths(n int) Month {
	t := time.Date(m.Year, m.Month+time.Month(n), 1, 0, 0, 0, 0, time.UTC)
	return Month{Year: t.Year(), Month: t.Month()}
}

// Before tells whether m comes before o.
func (m Month) Before(o Month) bool {
	return m.Year < o.Year || m.Year == o.Year && m.Month < o.Month
}

// Start is the month's first instant in loc.
func (m Month) Start(loc *time.Location) time.Time {
	return time.Date(m.Year, m.Month, 1, 0, 0, 0, 0, loc)
}

// End is the first instant after the month in loc.
func (m Month) End(loc *time.Location) time.Time { return m.AddMonths(1).Start(loc) }

// MonthOfBooks is the month of the books t falls in (the shop's zone).
func (s *Store) MonthOfBooks(t time.Time) Month { return MonthOf(t, s.loc) }

// receiptsMonthShards spreads a month's receipts (and refunds) over this many GSI1
// partitions. Fixed, not the table's list shards: the receipt's writes are
// built without a request to read that count, and 8 partitions take far
// more receipts a second than the payment job writes.
const receiptsMonthShards = 8

// receiptListKeys are a receipt's GSI1 keys in its month's list (the
// archive reads a month's receipts there, never by a scan).
func (s *Store) receiptListKeys(r Receipt) (string, string) {
	return shardKey(receiptsMonthKey(MonthOf(r.ProcessedAt, s.loc)), shardOf(r.Number, receiptsMonthShards)),
		timestamp(r.ProcessedAt) + "#" + r.Number
}

// refundListKeys are an order refund's GSI1 keys in its month's list.
func (s *Store) refundListKeys(orderID, key string, at time.Time) (string, string) {
	return shardKey(refundsMonthKey(MonthOf(at, s.loc)), shardOf(orderID+key, receiptsMonthShards)),
		timestamp(at) + "#" + orderID + "#" + key
}

// ReceiptsOfMonth reads every receipt charged in month, oldest first. A
// receipt past its TTL that DynamoDB has not deleted yet is still in the
// books, so it comes too.
func (s *Store) ReceiptsOfMonth(ctx context.Context, month Month) ([]Receipt, error) {
	out, err := monthList(ctx, s, receiptsMonthKey(month), month, receiptRecord.receipt, func(r Receipt) time.Time { return r.ProcessedAt })
	if err != nil {
		return nil, fmt.Errorf("receipts of %s: %w", month, err)
	}
	slices.SortFunc(out, func(a, b Receipt) int {
		if c := a.ProcessedAt.Compare(b.ProcessedAt); c != 0 {
			return c
		}
		return compareStrings(a.Number, b.Number)
	})
	return out, nil
}

// RefundsOfMonth reads every order refund made in month, oldest first.
func (s *Store) RefundsOfMonth(ctx context.Context, month Month) ([]Refund, error) {
	out, err := monthList(ctx, s, refundsMonthKey(month), month, refundRecord.refund, func(r Refund) time.Time { return r.At })
	if err != nil {
		return nil, fmt.Errorf("refunds of %s: %w", month, err)
	}
	slices.SortFunc(out, func(a, b Refund) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return compareStrings(a.OrderID+a.ID, b.OrderID+b.ID)
	})
	return out, nil
}

// monthList reads a month's list: a Query per shard, in parallel, each
// paged to its end.
func monthList[R, T any](ctx context.Context, s *Store, list string, month Month, convert func(R) T, at func(T) time.Time) ([]T, error) {
	lo, hi := timestamp(month.Start(s.loc)), timestamp(month.End(s.loc))
	parts := make([][]T, receiptsMonthShards)
	g, gctx := errgroup.WithContext(ctx)
	for n := range receiptsMonthShards {
		g.Go(func() error {
			q := querySpec{key: onGSI1.pkAndSKBetween(shardKey(list, n), lo, hi)}
			cursor := ""
			for {
				page, err := pagedQuery(gctx, s, q, 1000, cursor, convert)
				if err != nil {
					return err
				}
				parts[n] = append(parts[n], page.Items...)
				if cursor = page.Next; cursor == "" {
					return nil
				}
			}
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var out []T
	for _, p := range parts {
		for _, it := range p {
			// hi is the next month's first instant: below it, never at it.
			if at(it).Before(month.End(s.loc)) {
				out = append(out, it)
			}
		}
	}
	return out, nil
}

// invoiceReaders is how many orders' invoices the archive reads at once.
const invoiceReaders = 8

// InvoicesOfMonth reads the invoices of the orders placed in month, oldest
// first: the month's orders a page at a time (OrdersBetween), then each
// order's invoice (pattern 7), a few at once. A batch request per order is
// what the archive job pays once a month; no request path uses it.
func (s *Store) InvoicesOfMonth(ctx context.Context, month Month) ([]Invoice, error) {
	from, to := month.Start(s.loc), month.End(s.loc).Add(-time.Millisecond)
	var out []Invoice
	cursor := ""
	for {
		page, err := s.OrdersBetween(ctx, from, to, 100, cursor)
		if err != nil {
			return nil, fmt.Errorf("orders of %s: %w", month, err)
		}
		invoices := make([][]Invoice, len(page.Items))
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(invoiceReaders)
		for i, o := range page.Items {
			g.Go(func() error {
				inv, err := s.orderInvoices(gctx, o.ID)
				invoices[i] = inv
				return err
			})
		}
		if err := g.Wait(); err != nil {
			return nil, fmt.Errorf("invoices of %s: %w", month, err)
		}
		for _, inv := range invoices {
			out = append(out, inv...)
		}
		if page.Next == "" {
			break
		}
		cursor = page.Next
	}
	slices.SortFunc(out, func(a, b Invoice) int {
		if c := a.Date.Compare(b.Date); c != 0 {
			return c
		}
		return compareStrings(a.ID, b.ID)
	})
	return out, nil
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// ArchiveFile is one file of an archived month.
type ArchiveFile struct {
	Name    string `dynamodbav:"Name"` // on the archive's shelf: archive/2026-05/receipts.csv
	Section string `dynamodbav:"Section"`
	Format  string `dynamodbav:"Format"` // csv or json
	Entries int    `dynamodbav:"Entries"`
	Bytes   int    `dynamodbav:"Bytes"`
	SHA256  string `dynamodbav:"SHA256"` // hex
}

// ArchivedMonth is the record of a month of the books exported for good.
type ArchivedMonth struct {
	Month      Month
	ArchivedAt time.Time
	RunID      string // the job run that archived it
	Files      []ArchiveFile
}

// Entries is how many entries of a section the month holds.
func (a ArchivedMonth) Entries(section string) int {
	for _, f := range a.Files {
		if f.Section == section {
			return f.Entries
		}
	}
	return 0
}

// File is the month's file of a section in a format.
func (a ArchivedMonth) File(section, format string) (ArchiveFile, bool) {
	for _, f := range a.Files {
		if f.Section == section && f.Format == format {
			return f, true
		}
	}
	return ArchiveFile{}, false
}

type archivedMonthRecord struct {
	PK         string        `dynamodbav:"PK"` // archive
	SK         string        `dynamodbav:"SK"` // month#2026-05
	EntityType string        `dynamodbav:"EntityType"`
	ArchivedAt string        `dynamodbav:"ArchivedAt"`
	RunID      string        `dynamodbav:"RunID"`
	Files      []ArchiveFile `dynamodbav:"Files"`
}

func (r archivedMonthRecord) archivedMonth() ArchivedMonth {
	m, _ := ParseMonth(trimPrefix(r.SK, prefixArchivedMonth))
	return ArchivedMonth{Month: m, ArchivedAt: parseTime(r.ArchivedAt), RunID: r.RunID, Files: r.Files}
}

// ErrArchivedOtherwise says a month was archived before with other files.
var ErrArchivedOtherwise = errors.New("the month was archived before with other contents")

// RecordArchivedMonth records a month as archived, once: on condition it
// is not yet. A second run that made the same files (same checksums) is no
// error; one that made others is ErrArchivedOtherwise, and the record
// stays as it was: an archive is never silently replaced.
func (s *Store) RecordArchivedMonth(ctx context.Context, a ArchivedMonth) (ArchivedMonth, error) {
	rec := archivedMonthRecord{
		PK: partitionArchive, SK: prefixArchivedMonth + a.Month.String(), EntityType: entityArchivedMonth,
		ArchivedAt: timestamp(a.ArchivedAt), RunID: a.RunID, Files: a.Files,
	}
	err := s.putNew(ctx, rec, "archived month "+a.Month.String())
	if !errors.Is(err, ErrConflict) {
		return a, err
	}
	before, err := s.ArchivedMonth(ctx, a.Month)
	if err != nil {
		return ArchivedMonth{}, err
	}
	if !sameFiles(before.Files, a.Files) {
		return before, fmt.Errorf("%s: %w", a.Month, ErrArchivedOtherwise)
	}
	return before, nil
}

func sameFiles(a, b []ArchiveFile) bool {
	return slices.EqualFunc(a, b, func(x, y ArchiveFile) bool { return x == y })
}

// ArchivedMonth reads the record of one archived month (consistent: the
// job reads it to decide).
func (s *Store) ArchivedMonth(ctx context.Context, m Month) (ArchivedMonth, error) {
	return getItemConsistent(ctx, s, partitionArchive, prefixArchivedMonth+m.String(), "archived month "+m.String(), archivedMonthRecord.archivedMonth)
}

// ArchivedMonths lists every archived month, newest first (PK=archive):
// twelve items a year.
func (s *Store) ArchivedMonths(ctx context.Context) ([]ArchivedMonth, error) {
	return queryAll(ctx, s, querySpec{key: onTable.pkAndSKPrefix(partitionArchive, prefixArchivedMonth), backward: true}, archivedMonthRecord.archivedMonth)
}
