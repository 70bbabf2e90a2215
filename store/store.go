// Package store is the shop's single-table DynamoDB store: domain types, key
// builders, the table definition and one file per entity or access-pattern
// group. Records (the item shapes) stay private; callers see domain types.
package store

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"shop/store/rules"
)

// Store reads and writes the shop's one table.
type Store struct {
	db    *dynamodb.Client
	table string
	now   func() time.Time
	// Billing: the shop's time zone (billing dates are its days), the days
	// a reminder goes out before a payment.
	loc          *time.Location
	reminderLead int
	returnDays   int // days after delivery a return may be asked (0: DefaultReturnDays)
	dropMaxDays  int // days after its opening a drop may close at most (0: DefaultDropMaxDays)
	// The shard counts of the billing-due indexes and of the lists every
	// order writes (shards.go).
	billing, lists shardCount

	// dropCounterThreshold: a drop above it splits its quantity over
	// several counter items (0: DefaultCounterThreshold).
	dropCounterThreshold int

	// orderNumbers draws a new order number (newOrderNumber).
	orderNumbers func() string
	// shipmentNumbers draws a new shipment number (newShipmentNumber).
	shipmentNumbers func() string

	// onAWS: the table is on Amazon DynamoDB, where Migrate turns on
	// point-in-time recovery and deletion protection and never drops an
	// index (table_plan.go).
	onAWS bool
	// bookSeries are the series invoices and receipts are numbered in
	// (books.go); none: one series. vat is the rate of each category.
	bookSeries []string
	books      *bookTurns
	// shopHooks says which staff endpoints want the shop's events, and
	// wakes their deliverer (shop_events.go); set by the web app.
	shopHooks *shopHooksBox
	seller    *sellerCache // the seller's details, a short while (seller.go)
	vat       rules.VATRates
	// currency is the one the shop prices in (currency.go).
	currency string

	// providerEraser deletes an erased customer's customers at the card
	// providers (provider_customer.go).
	providerEraser ProviderCustomerEraser

	// sessionsEnded is told of the sessions this process ends (session.go).
	sessionsEnded atomic.Pointer[func(ids ...string)]

	windowOnce sync.Once
	window     *Window // what visitors browse, cached (window.go)
}

// Option changes a Store.
type Option func(*Store)

// WithOrderNumbers replaces how order numbers are drawn, for tests of a
// number drawn twice.
func WithOrderNumbers(draw func() string) Option { return func(s *Store) { s.orderNumbers = draw } }

// WithShipmentNumbers replaces how shipment numbers are drawn, for tests
// of a number drawn twice.
func WithShipmentNumbers(draw func() string) Option {
	return func(s *Store) { s.shipmentNumbers = draw }
}

// OnAmazonDynamoDB says the table lives on Amazon DynamoDB: Migrate keeps
// it safe there (point-in-time recovery, deletion protection, no index
// ever dropped) rather than treat it as a developer's DynamoDB Local.
func OnAmazonDynamoDB() Option { return func(s *Store) { s.onAWS = true } }

// WithClock replaces time.Now, for tests of expiry.
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// WithTimeZone sets the shop's time zone, in which billing dates are days.
func WithTimeZone(loc *time.Location) Option { return func(s *Store) { s.loc = loc } }

// WithReminderLead sets how many days before a payment its reminder goes out.
func WithReminderLead(days int) Option { return func(s *Store) { s.reminderLead = days } }

// WithReturnDays sets how many days after delivery a customer may ask to
// return an order's lines.
func WithReturnDays(days int) Option { return func(s *Store) { s.returnDays = days } }

// WithDropMaxDays sets how many days after its opening a drop may close
// at most.
func WithDropMaxDays(days int) Option { return func(s *Store) { s.dropMaxDays = days } }

// WithBillingShards sets the shard count of the billing-due indexes for a
// table Migrate creates; on an existing table it must match.
func WithBillingShards(n int) Option { return func(s *Store) { s.billing.want = n } }

// WithListShards sets the shard count of the lists every order writes
// (a month's orders, the open card checkouts) for a table that has none
// yet; on an existing table it must match.
func WithListShards(n int) Option { return func(s *Store) { s.lists.want = n } }

// WithDropCounterThreshold sets the quantity above which a drop splits its
// count over several counter items.
func WithDropCounterThreshold(n int) Option { return func(s *Store) { s.dropCounterThreshold = n } }

// WithBookSeries numbers invoices and receipts in several series, one
// per shard of the documents (books.go); nil: one series.
func WithBookSeries(series []string) Option { return func(s *Store) { s.bookSeries = series } }

// WithVATRates sets the VAT rate of each product category.
func WithVATRates(r rules.VATRates) Option { return func(s *Store) { s.vat = r } }

// DefaultReminderLead is the days between a reminder and its payment.
const DefaultReminderLead = 7

// New returns a Store over table.
func New(db *dynamodb.Client, table string, opts ...Option) *Store {
	s := &Store{db: db, table: table, now: time.Now, loc: time.UTC, reminderLead: DefaultReminderLead, orderNumbers: newOrderNumber, shipmentNumbers: newShipmentNumber, vat: rules.DefaultVATRates(), books: &bookTurns{}, seller: &sellerCache{}, shopHooks: &shopHooksBox{}}
	s.billing = shardCount{sortKey: sortKeyBillingShards, what: "billing", def: DefaultBillingShards}
	s.lists = shardCount{sortKey: sortKeyListShards, what: "list", def: DefaultListShards}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Table is the table's name.
func (s *Store) Table() string { return s.table }

// timestamp is the house format: UTC RFC 3339 with milliseconds.
func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// Today is the billing date of now in the shop's time zone.
func (s *Store) Today() time.Time { return rules.DateOf(s.now(), s.loc) }

// VATRates are the VAT rates of the product categories.
func (s *Store) VATRates() rules.VATRates { return s.vat }

// Location is the shop's time zone.
func (s *Store) Location() *time.Location { return s.loc }
