// Package archive keeps the books for years: each closed month's invoices,
// receipts and refunds (and whatever section is added) exported as CSV and JSON to
// a shelf (a directory, or an S3 bucket), with a record in the table that
// names the files and their checksums. Receipts leave the table six months
// after their charge; their month is archived a day after it closes.
package archive

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"shop/store"
)

// Formats of the files, each section in both.
const (
	FormatCSV  = "csv"
	FormatJSON = "json"
)

// Formats are the formats every section is written in.
var Formats = []string{FormatCSV, FormatJSON}

// Grace is how long after its end a month is archived: a payment settled
// by the reconcile step (15 minutes on) or an order finishing at midnight
// still lands in the month it belongs to.
const Grace = 24 * time.Hour

// OverdueAfter is how long after its end an unarchived month is an alarm.
// A daily job that failed once or twice is no alarm; a week is, and five
// months are left before the month's first receipt expires.
const OverdueAfter = 7 * 24 * time.Hour

// Horizon is how many months back the job looks: older receipts are gone
// from the table, so there is nothing left there to save.
const Horizon = store.ReceiptRetention + 1

// Entry is one line of a section: its CSV record (in the order of the
// section's header); the JSON file holds the entry itself.
type Entry interface {
	Record() []string
}

// Section is one part of the books in the archive, as one CSV and one
// JSON file a month. Adding a section (refunds) is one more entry in the
// list Sections returns.
type Section struct {
	Name   string // the file's name: invoices.csv, invoices.json
	Title  string // for staff
	Header []string
	Read   func(ctx context.Context, m store.Month) ([]Entry, error)
}

// Books is what the sections read.
type Books interface {
	InvoicesOfMonth(ctx context.Context, m store.Month) ([]store.Invoice, error)
	ReceiptsOfMonth(ctx context.Context, m store.Month) ([]store.Receipt, error)
	RefundsOfMonth(ctx context.Context, m store.Month) ([]store.Refund, error)
}

// Sections are the sections of the books, in the order staff see them.
func Sections(b Books) []Section {
	return []Section{
		{Name: "invoices", Title: "Invoices", Header: invoiceHeader, Read: func(ctx context.Context, m store.Month) ([]Entry, error) {
			invoices, err := b.InvoicesOfMonth(ctx, m)
			return entries(invoices, invoiceEntry), err
		}},
		{Name: "receipts", Title: "Receipts", Header: receiptHeader, Read: func(ctx context.Context, m store.Month) ([]Entry, error) {
			receipts, err := b.ReceiptsOfMonth(ctx, m)
			return entries(receipts, receiptEntry), err
		}},
		{Name: "refunds", Title: "Refunds", Header: refundHeader, Read: func(ctx context.Context, m store.Month) ([]Entry, error) {
			refunds, err := b.RefundsOfMonth(ctx, m)
			return entries(refunds, refundEntry), err
		}},
	}
}

func entries[T any, E Entry](items []T, convert func(T) E) []Entry {
	out := make([]Entry, 0, len(items))
	for _, it := range items {
		out = append(out, convert(it))
	}
	return out
}

// Store is the archive's records in the table.
type Store interface {
	Now() time.Time
	Location() *time.Location
	ArchivedMonths(ctx context.Context) ([]store.ArchivedMonth, error)
	RecordArchivedMonth(ctx context.Context, a store.ArchivedMonth) (store.ArchivedMonth, error)
}

// Archiver exports months of the books to a shelf and records them.
type Archiver struct {
	Store    Store
	Shelf    Shelf
	Sections []Section
}

// FileName is the shelf's name of a month's file of a section.
func FileName(m store.Month, section, format string) string {
	return "archive/" + m.String() + "/" + section + "." + format
}

// ClosedMonths are the months whose end, and grace, is past at now,
// oldest first, back to the horizon.
func ClosedMonths(now time.Time, loc *time.Location) []store.Month {
	this := store.MonthOf(now, loc)
	var out []store.Month
	for m := this.AddMonths(-Horizon); m.Before(this); m = m.AddMonths(1) {
		if !now.Before(m.End(loc).Add(Grace)) {
			out = append(out, m)
		}
	}
	return out
}

// Due are the closed months not archived yet, oldest first.
func (a *Archiver) Due(ctx context.Context) ([]store.Month, error) {
	done, err := a.Store.ArchivedMonths(ctx)
	if err != nil {
		return nil, err
	}
	var out []store.Month
	for _, m := range ClosedMonths(a.Store.Now(), a.Store.Location()) {
		if !slices.ContainsFunc(done, func(d store.ArchivedMonth) bool { return d.Month == m }) {
			out = append(out, m)
		}
	}
	return out, nil
}

// Overdue is a month not archived a week after its end, with when its
// first receipt leaves the table.
type Overdue struct {
	Month         store.Month
	FirstExpiries time.Time
}

// Overdue are the due months past OverdueAfter: an alarm for staff.
func (a *Archiver) Overdue(ctx context.Context) ([]Overdue, error) {
	due, err := a.Due(ctx)
	if err != nil {
		return nil, err
	}
	now, loc := a.Store.Now(), a.Store.Location()
	var out []Overdue
	for _, m := range due {
		if now.After(m.End(loc).Add(OverdueAfter)) {
			out = append(out, Overdue{Month: m, FirstExpiries: m.Start(loc).AddDate(0, store.ReceiptRetention, 1)})
		}
	}
	return out, nil
}

// File is one made file of a month.
type File struct {
	store.ArchiveFile
	Data []byte
}

// Export makes a month's files: every section in every format. The same
// books make the same bytes (entries in a fixed order, no time of making
// inside), so a rerun has the same checksums.
func (a *Archiver) Export(ctx context.Context, m store.Month) ([]File, error) {
	var out []File
	for _, sec := range a.Sections {
		list, err := sec.Read(ctx, m)
		if err != nil {
			return nil, fmt.Errorf("%s of %s: %w", sec.Name, m, err)
		}
		csvData, err := csvFile(sec.Header, list)
		if err != nil {
			return nil, fmt.Errorf("%s of %s: %w", sec.Name, m, err)
		}
		jsonData, err := jsonFile(m, sec.Name, list)
		if err != nil {
			return nil, fmt.Errorf("%s of %s: %w", sec.Name, m, err)
		}
		for format, data := range map[string][]byte{FormatCSV: csvData, FormatJSON: jsonData} {
			sum := sha256.Sum256(data)
			out = append(out, File{ArchiveFile: store.ArchiveFile{
				Name: FileName(m, sec.Name, format), Section: sec.Name, Format: format,
				Entries: len(list), Bytes: len(data), SHA256: hex.EncodeToString(sum[:]),
			}, Data: data})
		}
	}
	slices.SortStableFunc(out, func(x, y File) int { return strings.Compare(x.Name, y.Name) })
	return out, nil
}

// Archive exports a month, puts its files on the shelf and records it.
// Put again, a file is overwritten by the same bytes (a run that crashed
// before its record); the record is written once.
func (a *Archiver) Archive(ctx context.Context, m store.Month, runID string) (store.ArchivedMonth, error) {
	files, err := a.Export(ctx, m)
	if err != nil {
		return store.ArchivedMonth{}, err
	}
	rec := store.ArchivedMonth{Month: m, ArchivedAt: a.Store.Now(), RunID: runID}
	for _, f := range files {
		if err := a.Shelf.Put(ctx, f.Name, contentType(f.Format), f.Data); err != nil {
			return store.ArchivedMonth{}, err
		}
		rec.Files = append(rec.Files, f.ArchiveFile)
	}
	return a.Store.RecordArchivedMonth(ctx, rec)
}

// ContentType is the media type of a format.
func ContentType(format string) string { return contentType(format) }

func contentType(format string) string {
	if format == FormatJSON {
		return "application/json"
	}
	return "text/csv; charset=utf-8"
}

func csvFile(header []string, list []Entry) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write(header); err != nil {
		return nil, err
	}
	for _, e := range list {
		if err := w.Write(e.Record()); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// monthFile is the JSON file of a section's month.
type monthFile struct {
	Month   string  `json:"month"`
	Section string  `json:"section"`
	Count   int     `json:"count"`
	Entries []Entry `json:"entries"`
}

func jsonFile(m store.Month, section string, list []Entry) ([]byte, error) {
	data, err := json.MarshalIndent(monthFile{Month: m.String(), Section: section, Count: len(list), Entries: list}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// text guards a free-text cell (a name, an email) against being read as a
// formula by a spreadsheet: one starting = + - @ gets a leading '.
func text(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

var invoiceHeader = []string{"invoice", "order", "date", "customer", "buyer_name", "buyer_email", "currency", "amount", "discount", "discount_code", "payments"}

// InvoiceEntry is an invoice in the archive.
type InvoiceEntry struct {
	Invoice      string         `json:"invoice"`
	Order        string         `json:"order"`
	Date         string         `json:"date"`
	Customer     string         `json:"customer"`
	BuyerName    string         `json:"buyer_name"`
	BuyerEmail   string         `json:"buyer_email"`
	Currency     string         `json:"currency"`
	Amount       string         `json:"amount"`
	Discount     string         `json:"discount"`
	DiscountCode string         `json:"discount_code,omitempty"`
	Payments     []PaymentEntry `json:"payments"`
}

// PaymentEntry is one payment of an invoice.
type PaymentEntry struct {
	Type      string `json:"type"`
	Amount    string `json:"amount"`
	Reference string `json:"reference"`
}

func invoiceEntry(inv store.Invoice) InvoiceEntry {
	e := InvoiceEntry{
		Invoice: inv.ID, Order: inv.OrderID, Date: stamp(inv.Date), Customer: inv.CustomerID,
		BuyerName: inv.Buyer.Name, BuyerEmail: inv.Buyer.Email, Currency: inv.Amount.Currency,
		Amount: inv.Amount.Decimal(), Discount: inv.Discount.Decimal(), DiscountCode: inv.DiscountCode,
		Payments: []PaymentEntry{},
	}
	for _, p := range inv.Payments {
		e.Payments = append(e.Payments, PaymentEntry{Type: p.Type, Amount: p.Amount.Decimal(), Reference: p.Reference})
	}
	return e
}

// Record is the CSV line; the payments in one cell, "type amount reference"
// separated by "; ".
func (e InvoiceEntry) Record() []string {
	var pays []string
	for _, p := range e.Payments {
		pays = append(pays, strings.TrimSpace(p.Type+" "+p.Amount+" "+p.Reference))
	}
	return []string{e.Invoice, e.Order, e.Date, e.Customer, text(e.BuyerName), text(e.BuyerEmail), e.Currency,
		e.Amount, e.Discount, text(e.DiscountCode), text(strings.Join(pays, "; "))}
}

var receiptHeader = []string{"receipt", "date", "account", "subscription", "product", "product_name", "email", "currency", "amount", "card_brand", "card_last4", "charge", "period_start", "period_end"}

// ReceiptEntry is a subscription's receipt in the archive.
type ReceiptEntry struct {
	Receipt      string `json:"receipt"`
	Date         string `json:"date"`
	Account      string `json:"account"`
	Subscription string `json:"subscription"`
	Product      string `json:"product"`
	ProductName  string `json:"product_name"`
	Email        string `json:"email"`
	Currency     string `json:"currency"`
	Amount       string `json:"amount"`
	CardBrand    string `json:"card_brand"`
	CardLast4    string `json:"card_last4"`
	Charge       string `json:"charge"`
	PeriodStart  string `json:"period_start"`
	PeriodEnd    string `json:"period_end"`
}

func receiptEntry(r store.Receipt) ReceiptEntry {
	return ReceiptEntry{
		Receipt: r.Number, Date: stamp(r.ProcessedAt), Account: r.AccountID, Subscription: r.SubscriptionID,
		Product: r.ProductID, ProductName: r.ProductName, Email: r.Email, Currency: r.Amount.Currency,
		Amount: r.Amount.Decimal(), CardBrand: r.Card.Brand, CardLast4: r.Card.Last4, Charge: r.ChargeID,
		PeriodStart: store.FormatDate(r.PeriodStart), PeriodEnd: store.FormatDate(r.PeriodEnd),
	}
}

// Record is the CSV line.
func (e ReceiptEntry) Record() []string {
	return []string{e.Receipt, e.Date, e.Account, e.Subscription, e.Product, text(e.ProductName), text(e.Email), e.Currency,
		e.Amount, e.CardBrand, e.CardLast4, e.Charge, e.PeriodStart, e.PeriodEnd}
}

var refundHeader = []string{"refund", "order", "date", "currency", "amount", "gift_card", "card", "card_refund", "status", "cancel", "reason", "lines", "restock_warehouse", "by"}

// RefundEntry is money given back on an order, in the archive (amounts
// are what went back: positive).
type RefundEntry struct {
	Refund           string            `json:"refund"`
	Order            string            `json:"order"`
	Date             string            `json:"date"`
	Currency         string            `json:"currency"`
	Amount           string            `json:"amount"`
	GiftCard         string            `json:"gift_card"`
	Card             string            `json:"card"`
	CardRefund       string            `json:"card_refund,omitempty"` // the gateway's refund id
	Status           string            `json:"status"`
	Cancel           bool              `json:"cancel"` // the customer's cancellation
	Reason           string            `json:"reason"`
	Lines            []RefundLineEntry `json:"lines"`
	RestockWarehouse string            `json:"restock_warehouse,omitempty"`
	By               string            `json:"by"`
}

// RefundLineEntry is the units of an order line a refund took back.
type RefundLineEntry struct {
	Product     string `json:"product"`
	ProductName string `json:"product_name"`
	Quantity    int    `json:"quantity"`
	Amount      string `json:"amount"`
}

func refundEntry(r store.Refund) RefundEntry {
	e := RefundEntry{
		Refund: r.ID, Order: r.OrderID, Date: stamp(r.At), Currency: r.Amount.Currency, Amount: r.Amount.Decimal(),
		GiftCard: r.GiftCard.Decimal(), Card: r.Card.Decimal(), CardRefund: r.GatewayRefundID, Status: string(r.Status),
		Cancel: r.Cancel, Reason: r.Reason, RestockWarehouse: r.RestockWarehouse, By: r.ByID, Lines: []RefundLineEntry{},
	}
	for _, l := range r.Lines {
		e.Lines = append(e.Lines, RefundLineEntry{Product: l.ProductID, ProductName: l.ProductName, Quantity: l.Quantity, Amount: l.Amount.Decimal()})
	}
	return e
}

// Record is the CSV line; the lines in one cell, "quantity × name amount"
// separated by "; ".
func (e RefundEntry) Record() []string {
	var lines []string
	for _, l := range e.Lines {
		lines = append(lines, strconv.Itoa(l.Quantity)+" × "+l.ProductName+" "+l.Amount)
	}
	return []string{e.Refund, e.Order, e.Date, e.Currency, e.Amount, e.GiftCard, e.Card, e.CardRefund, e.Status,
		strconv.FormatBool(e.Cancel), text(e.Reason), text(strings.Join(lines, "; ")), e.RestockWarehouse, e.By}
}
