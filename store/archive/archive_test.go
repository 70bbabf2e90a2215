package archive_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/jobs"
	"shop/store"
	"shop/store/archive"
	"shop/store/payment"
	"shop/store/rules"
	"shop/store/shelf"
	"shop/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

var stockholm = mustZone("Europe/Stockholm")

func mustZone(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func eur(c int64) store.Money { return store.Money{Amount: c, Currency: "EUR"} }

// books is a test shop's table, clock and archive on a disk shelf.
type books struct {
	env   storetest.Env
	clock *storetest.Clock
	arch  *archive.Archiver
	dir   string
	sub   store.Subscription
	nth   int // orders written so far, for their numbers
}

func newBooks(t *testing.T, start time.Time) *books {
	clock := storetest.NewClock(start, 0)
	env := storetest.New(t, store.WithClock(clock.Now), store.WithTimeZone(stockholm))
	dir := t.TempDir()
	b := &books{env: env, clock: clock, dir: dir, arch: &archive.Archiver{Store: env.Store, Shelf: shelf.Disk{Dir: dir, What: archive.What}, Sections: archive.Sections(env.Store)}}
	b.sub = store.Subscription{ID: store.NewID(), AccountID: store.NewID(), ProductID: store.NewID(), ProductName: "=Coffee club", Email: "ada@example.com", Card: store.Card{Brand: "Visa", Last4: "4242"}}
	return b
}

// receipt writes a receipt charged at.
func (b *books) receipt(t *testing.T, at time.Time) store.Receipt {
	t.Helper()
	at = at.UTC().Truncate(time.Millisecond)
	r := store.NewReceipt(b.sub, store.GatewayCharge{ID: "ch_" + strconv.FormatInt(at.UnixMilli(), 10), At: at, Amount: eur(1250)}, rules.DateOf(at, stockholm), rules.DateOf(at, stockholm).AddDate(0, 1, 0))
	if err := b.env.Store.PutReceipt(ctxT(t), r); err != nil {
		t.Fatal(err)
	}
	return r
}

// orders writes past orders placed at those times, each with its invoice.
func (b *books) orders(t *testing.T, at ...time.Time) {
	t.Helper()
	var past []store.PastOrder
	for _, when := range at {
		i := b.nth
		b.nth++
		past = append(past, store.PastOrder{
			Number: "FF-" + string("23456789ABCDEFGH"[i%16]) + "2" + string("23456789ABCDEFGH"[(i/16)%16]) + "Q92", CustomerID: b.sub.AccountID,
			Buyer: store.Buyer{Name: "Ada Lovelace", Email: "ada@example.com"}, PlacedAt: when,
			ShipTo: store.Address{Name: "Ada", Street: "Storgatan", Number: "1", ZipCode: "11111", City: "Stockholm", Country: "Sweden"},
			Items:  []store.OrderItem{{ProductID: b.sub.ProductID, ProductName: "Mug", Price: eur(900), Quantity: 1, Allocations: []store.Allocation{{WarehouseID: "w1", Quantity: 1}}}},
			Card:   &store.Card{Brand: "Visa", Last4: "4242"},
		})
	}
	if _, err := b.env.Store.SeedOrders(ctxT(t), past, nil, nil); err != nil {
		t.Fatal(err)
	}
}

func month(t *testing.T, s string) store.Month {
	t.Helper()
	m, err := store.ParseMonth(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func shopTime(s string) time.Time {
	t, err := time.ParseInLocation("2006-01-02 15:04", s, stockholm)
	if err != nil {
		panic(err)
	}
	return t
}

// A month's export holds its invoices and receipts by the shop's month (a
// receipt at 00:30 on the 1st in Stockholm is that month's, though it is
// the day before in UTC), the same bytes each time, and a month with
// nothing in it gives files with a header and no entries.
func TestExportOfAMonth(t *testing.T) {
	b := newBooks(t, shopTime("2026-03-05 12:00"))
	ctx := ctxT(t)
	jan1 := b.receipt(t, shopTime("2026-01-10 09:00"))
	jan2 := b.receipt(t, shopTime("2026-01-31 23:59"))
	feb := b.receipt(t, shopTime("2026-02-01 00:30")) // 2026-01-31 23:30 UTC
	b.orders(t, shopTime("2026-01-12 10:00"), shopTime("2026-02-01 00:10"), shopTime("2026-02-14 18:00"))

	files, err := b.arch.Export(ctx, month(t, "2026-01"))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]archive.File{}
	for _, f := range files {
		byName[f.Name] = f
	}
	if len(files) != 6 {
		t.Fatalf("files %v, want invoices, receipts and refunds in CSV and JSON", slices.Collect(func(yield func(string) bool) {
			for _, f := range files {
				yield(f.Name)
			}
		}))
	}
	rows := readCSV(t, byName["archive/2026-01/receipts.csv"].Data)
	if len(rows) != 3 || rows[1][0] != jan1.Number || rows[2][0] != jan2.Number {
		t.Fatalf("January's receipts CSV:\n%v\nwant %s and %s", rows, jan1.Number, jan2.Number)
	}
	if rows[0][0] != "receipt" || rows[1][5] != "'=Coffee club" || rows[1][8] != "12.50" || rows[1][7] != "EUR" {
		t.Fatalf("a receipt's line: %v (a name that starts like a formula is quoted; amounts are decimals)", rows[1])
	}
	var doc struct {
		Month   string                 `json:"month"`
		Count   int                    `json:"count"`
		Entries []archive.InvoiceEntry `json:"entries"`
	}
	if err := json.Unmarshal(byName["archive/2026-01/invoices.json"].Data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Month != "2026-01" || doc.Count != 1 || len(doc.Entries) != 1 || doc.Entries[0].Amount != "9.00" || len(doc.Entries[0].Payments) != 1 {
		t.Fatalf("January's invoices JSON: %+v", doc)
	}

	febFiles, err := b.arch.Export(ctx, month(t, "2026-02"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range febFiles {
		want := map[string]int{"invoices": 2, "receipts": 1, "refunds": 0}[f.Section]
		if f.Entries != want {
			t.Errorf("February's %s: %d entries, want %d", f.Name, f.Entries, want)
		}
	}
	if rows := readCSV(t, fileNamed(t, febFiles, "archive/2026-02/receipts.csv").Data); rows[1][0] != feb.Number {
		t.Fatalf("February's receipts: %v, want %s (00:30 on the 1st, shop time)", rows, feb.Number)
	}

	// A February order refunded in March is March's refund.
	gift := store.GiftCard{Code: "GIFT-ARCHIVE", Balance: eur(5000), Initial: eur(5000), CreatedAt: shopTime("2026-01-01 00:00")}
	order := store.PastOrder{
		Number: "FF-ZZZZZZ", CustomerID: b.sub.AccountID, Buyer: store.Buyer{Name: "Ada Lovelace", Email: "ada@example.com"},
		PlacedAt: shopTime("2026-02-20 12:00"), GiftCardCode: gift.Code,
		ShipTo: store.Address{Name: "Ada", Street: "Storgatan", Number: "1", ZipCode: "11111", City: "Stockholm", Country: "Sweden"},
		Items:  []store.OrderItem{{ProductID: b.sub.ProductID, ProductName: "Mug", Price: eur(900), Quantity: 1, Allocations: []store.Allocation{{WarehouseID: "w1", Quantity: 1}}}},
	}
	if _, err := b.env.Store.SeedOrders(ctx, []store.PastOrder{order}, []store.GiftCard{gift}, nil); err != nil {
		t.Fatal(err)
	}
	id, err := b.env.Store.OrderIDByNumber(ctx, order.Number)
	if err != nil {
		t.Fatal(err)
	}
	rf, err := b.env.Store.RefundOrder(ctx, store.OrderRefundRequest{OrderID: id, Key: "rf-archive", Amount: eur(300), Reason: "=Chipped",
		By: store.Customer{ID: store.NewID(), Name: "Sam Staff"}}, legacy(payment.NewTestGateway(b.env.Store)))
	if err != nil {
		t.Fatal(err)
	}
	march, err := b.arch.Export(ctx, month(t, "2026-03"))
	if err != nil {
		t.Fatal(err)
	}
	refunds := readCSV(t, fileNamed(t, march, "archive/2026-03/refunds.csv").Data)
	if len(refunds) != 2 || refunds[1][0] != rf.ID || refunds[1][1] != id || refunds[1][4] != "3.00" || refunds[1][5] != "3.00" || refunds[1][10] != "'=Chipped" {
		t.Fatalf("March's refunds: %v", refunds)
	}

	// The same books make the same bytes.
	again, err := b.arch.Export(ctx, month(t, "2026-01"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range files {
		if again[i].SHA256 != files[i].SHA256 || !bytes.Equal(again[i].Data, files[i].Data) {
			t.Fatalf("%s differs on a second export", files[i].Name)
		}
	}

	empty, err := b.arch.Export(ctx, month(t, "2025-12"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range empty {
		if f.Entries != 0 {
			t.Fatalf("%s: %d entries in a month with nothing", f.Name, f.Entries)
		}
		if f.Format == archive.FormatCSV && len(readCSV(t, f.Data)) != 1 {
			t.Fatalf("%s: %q, want the header alone", f.Name, f.Data)
		}
	}
}

// Archive puts the files on the shelf and records the month once; run
// again, the same files and checksums (no error, the record as it was);
// a month whose contents changed since is refused, never replaced.
func TestArchiveRecordsOnceAndRerunsAlike(t *testing.T) {
	b := newBooks(t, shopTime("2026-03-05 12:00"))
	ctx := ctxT(t)
	b.receipt(t, shopTime("2026-02-03 09:00"))
	feb := month(t, "2026-02")
	first, err := b.arch.Archive(ctx, feb, "run1")
	if err != nil {
		t.Fatal(err)
	}
	disk := readShelf(t, b.arch.Shelf, "archive/2026-02/receipts.csv")
	b.clock.Set(shopTime("2026-03-06 12:00"))
	second, err := b.arch.Archive(ctx, feb, "run2")
	if err != nil {
		t.Fatalf("a rerun of the same month: %v", err)
	}
	if second.RunID != "run1" || !second.ArchivedAt.Equal(first.ArchivedAt) || !slices.Equal(second.Files, first.Files) {
		t.Fatalf("the rerun changed the record: %+v, was %+v", second, first)
	}
	if !bytes.Equal(readShelf(t, b.arch.Shelf, "archive/2026-02/receipts.csv"), disk) {
		t.Fatal("the rerun wrote other bytes")
	}
	got, err := b.env.Store.ArchivedMonth(ctx, feb)
	if err != nil || got.Entries("receipts") != 1 || len(got.Files) != 6 {
		t.Fatalf("the record: %+v, %v", got, err)
	}
	for _, f := range got.Files {
		if len(f.SHA256) != 64 || f.Bytes == 0 {
			t.Fatalf("file %+v without its checksum or size", f)
		}
	}

	b.receipt(t, shopTime("2026-02-20 09:00")) // a late write into a closed month
	if _, err := b.arch.Archive(ctx, feb, "run3"); !errors.Is(err, store.ErrArchivedOtherwise) {
		t.Fatalf("archiving a changed month again: %v, want ErrArchivedOtherwise", err)
	}
	if got, _ := b.env.Store.ArchivedMonth(ctx, feb); got.RunID != "run1" {
		t.Fatalf("the record was replaced: %+v", got)
	}
}

// Nothing expires unarchived. The clock moves day by day over ten months;
// receipts are charged in January, February and April (March has none),
// orders placed in January and April; DynamoDB's TTL is played by deleting
// every item past its ExpiresAt each day. The archive job runs at 05:00
// every other day under its lease, except for three weeks in February when the
// shop is down. Each step, every receipt that the next step's TTL could
// delete must be in the archived file of its month, and each month is
// archived within Grace of closing (or, after the outage, on the first
// run). The outage shows as an overdue month once a week has passed.
func TestNothingExpiresUnarchived(t *testing.T) {
	b := newBooks(t, shopTime("2026-01-01 05:00"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	runner := jobs.NewRunner(b.env.Store, nil, jobs.Config{Archive: b.arch, Replica: "r1", LeaseTTL: 30 * time.Second})
	var receipts []store.Receipt
	// Every other day keeps the test short on a busy machine; the run
	// then is every other day too, which the months' grace allows.
	const step = 2
	charged := map[string]bool{"2026-01-03": true, "2026-01-31": true, "2026-02-02": true, "2026-02-28": true, "2026-04-15": true}
	seen := map[store.Month]bool{}
	downFrom, downTo := shopTime("2026-02-02 00:00"), shopTime("2026-02-23 00:00")
	sawOverdue := false
	for day := shopTime("2026-01-01 05:00"); day.Before(shopTime("2026-11-01 05:00")); day = day.AddDate(0, 0, step) {
		b.clock.Set(day)
		ttl(t, b.env, day)
		date := rules.DateOf(day, stockholm)
		if charged[store.FormatDate(date)] {
			receipts = append(receipts, b.receipt(t, day.Add(-3*time.Hour))) // 02:00, before the run
		}
		if store.FormatDate(date) == "2026-01-21" || store.FormatDate(date) == "2026-04-03" {
			b.orders(t, day.Add(-time.Hour))
		}
		down := !day.Before(downFrom) && day.Before(downTo)
		if !down {
			run, err := jobs.RunLeased(ctx, runner, b.env.Store, jobs.JobArchive, date, jobs.TriggerSchedule, nil)
			if err != nil {
				t.Fatalf("%s: the archive run: %v", store.FormatDate(date), err)
			}
			// Once a month, a second replica's run of the same day.
			if m := store.MonthOf(day, stockholm); !seen[m] {
				seen[m] = true
				if _, err := jobs.RunLeased(ctx, runner, b.env.Store, jobs.JobArchive, date, jobs.TriggerSchedule, nil); !errors.Is(err, store.ErrLeaseDone) {
					t.Fatalf("%s: a second replica's run: %v, want ErrLeaseDone (%+v)", store.FormatDate(date), err, run)
				}
			}
		}
		overdue, err := b.arch.Overdue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(overdue) > 0 {
			if !down || overdue[0].Month.String() != "2026-01" {
				t.Fatalf("%s: overdue %+v", store.FormatDate(date), overdue)
			}
			sawOverdue = true
		}
		// The archive as it stands: every closed month past its grace is
		// in it unless the shop was down.
		months, err := b.env.Store.ArchivedMonths(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range archive.ClosedMonths(day, stockholm) {
			if !down && !slices.ContainsFunc(months, func(a store.ArchivedMonth) bool { return a.Month == m }) {
				t.Fatalf("%s: %s closed and not archived after the day's run", store.FormatDate(date), m)
			}
		}
		for _, r := range receipts {
			if day.AddDate(0, 0, step).Before(r.ExpiresAt) {
				continue // not deletable by the next step
			}
			m := store.MonthOf(r.ProcessedAt, stockholm)
			if !slices.ContainsFunc(months, func(a store.ArchivedMonth) bool { return a.Month == m }) {
				t.Fatalf("%s: receipt %s of %s expires on %s unarchived", store.FormatDate(date), r.Number, m, r.ExpiresAt)
			}
			if !archivedReceipt(t, b.arch.Shelf, m, r.Number) {
				t.Fatalf("%s: receipt %s is not in %s's archived file", store.FormatDate(date), r.Number, m)
			}
		}
	}
	if !sawOverdue {
		t.Fatal("three weeks without a run never showed January as overdue")
	}
	months, err := b.env.Store.ArchivedMonths(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	counts := map[string]int{}
	for _, m := range months {
		names = append(names, m.Month.String())
		counts[m.Month.String()] = m.Entries("receipts")*10 + m.Entries("invoices")
	}
	// Back to the horizon before January (empty months), then every month.
	if names[0] != "2026-09" || names[len(names)-1] != "2025-06" || len(names) != 16 {
		t.Fatalf("archived months %v", names)
	}
	want := map[string]int{"2026-01": 21, "2026-02": 20, "2026-03": 0, "2026-04": 11, "2025-12": 0}
	for m, n := range want {
		if counts[m] != n {
			t.Errorf("%s: %d receipts×10+invoices, want %d", m, counts[m], n)
		}
	}
	// By now the table has none of them; the archive has every one.
	if n := b.env.CountEntities(t, "receipt"); n != 0 {
		t.Fatalf("%d receipts left in the table after their TTL", n)
	}
}

// ttl deletes what DynamoDB's TTL would have by now (a test's scan).
func ttl(t *testing.T, env storetest.Env, now time.Time) {
	t.Helper()
	expr, err := expression.NewBuilder().WithFilter(expression.Name("ExpiresAt").LessThanEqual(expression.Value(now.Unix())).
		And(expression.Name("EntityType").Equal(expression.Value("receipt")))).Build()
	if err != nil {
		t.Fatal(err)
	}
	out, err := env.Client.Scan(context.Background(), &dynamodb.ScanInput{
		TableName: aws.String(env.Table), FilterExpression: expr.Filter(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range out.Items {
		if _, err := env.Client.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{
			TableName: aws.String(env.Table), Key: map[string]types.AttributeValue{"PK": it["PK"], "SK": it["SK"]},
		}); err != nil {
			t.Fatal(err)
		}
	}
}

func archivedReceipt(t *testing.T, shelf archive.Shelf, m store.Month, number string) bool {
	t.Helper()
	var doc struct {
		Entries []archive.ReceiptEntry `json:"entries"`
	}
	if err := json.Unmarshal(readShelf(t, shelf, archive.FileName(m, "receipts", archive.FormatJSON)), &doc); err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(doc.Entries, func(e archive.ReceiptEntry) bool { return e.Receipt == number })
}

func readShelf(t *testing.T, shelf archive.Shelf, name string) []byte {
	t.Helper()
	r, _, err := shelf.Open(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func readCSV(t *testing.T, data []byte) [][]string {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func fileNamed(t *testing.T, files []archive.File, name string) archive.File {
	t.Helper()
	for _, f := range files {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("no file %s", name)
	return archive.File{}
}
