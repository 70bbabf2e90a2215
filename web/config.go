package web

import (
	"io"
	"log/slog"
	"shop/jobs/webhook"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/handlers"
	"shop/jobs"
	"shop/store"
	"shop/store/archive"
	"shop/store/dropgate"
	"shop/store/payment"
	"shop/store/photos"
	"shop/views"
)

// Config wires the app.
type Config struct {
	Store *store.Store
	// LegacyGateway is the test gateway cards were charged through before
	// card providers: refunds of its charges (old tables' ch_… charges)
	// go back through its ledger. Nil: none can be refunded by card.
	LegacyGateway payment.LegacyRefunder
	Log           *slog.Logger
	// RequestLog is the writer Log's handler writes to, when it is slog's
	// TextHandler: the access log's lines are then written to it directly,
	// in the handler's own format, at a seventh of its cost. Nil: they go
	// through Log.
	RequestLog    io.Writer
	Metrics       *Metrics
	SessionKeys   [][]byte
	SecureCookies bool
	// SessionCache is how long a replica answers a session from memory
	// after reading or saving it (default 1 s; negative: every request
	// reads its session). A save changes the cookie's version, so a
	// cached copy never answers the cookie of a later save.
	SessionCache time.Duration
	// WindowPages is how long a catalogue, search or product page (a
	// sessionless visitor's) or a part of one (anyone's) may be kept as
	// rendered, within what the shop window keeps (default 1 s; negative:
	// each is rendered).
	WindowPages    time.Duration
	RequestTimeout time.Duration
	BcryptCost     int
	// ProxyHeader names the header a reverse proxy puts the client address
	// in (X-Forwarded-For); it is believed only from TrustedProxies.
	ProxyHeader    string
	TrustedProxies []string
	// Replica, when set (SHOP_REPLICA), names this process in every
	// answer's X-Shop-Replica header: behind a proxy one can tell which
	// replica served a request. Empty: no header.
	Replica string
	// Jobs is this replica's billing jobs scheduler (a *jobs.Scheduler);
	// nil when it runs none (SHOP_JOBS=false): the jobs pages still show
	// the runs, and "Run now" is refused.
	Jobs handlers.JobScheduler
	// Gate answers drop claims from memory when it can; the customer pages
	// and the API share it (one per process). Nil: New makes one over
	// Store and refreshes it every second until the app shuts down.
	Gate *dropgate.Gate
	// Health is the engine's health (the watcher of the shop's own
	// DynamoDB Local sets it, the store's client reads it): /healthz
	// answers 503 while the shop has no engine, and pages refused while
	// the engine is down say when to retry. Nil: /healthz always answers.
	Health *store.Health
	// ShuttingDown is set when the replica begins to shut down: /healthz
	// and /readyz then answer 503, for a proxy to stop sending it
	// requests, while pages are still served. Nil: never.
	ShuttingDown *atomic.Bool
	// APIKeysEvery is how often the API's key cache reloads the keys
	// (default 3 s): a revoked key stops within about that long.
	APIKeysEvery time.Duration
	// ExtraPages adds routes behind the same middleware as every page
	// (deadline, session, CSRF), after the shop's own. Only the benchmark
	// sets it, for its bare page; the shop never does.
	ExtraPages func(fiber.Router)
	// Shelf keeps the product photos (a directory, or an S3 bucket for
	// more than one replica). Nil: uploads fail and only the drawn
	// pictures are served (tests that need no photos).
	Shelf photos.Shelf
	// BaseURL starts the links in mails the pages write (an order's, a
	// password reset's); default http://localhost.
	BaseURL string
	// Archive is the archive of the books (the files of archived months).
	// Nil: the page shows the records, and a download says the files are
	// not kept on this replica (tests that need no archive).
	Archive *archive.Archiver
	// ArchiveWhere says where the archive's files are, for staff.
	ArchiveWhere views.ArchivePlace
	// TestPayments is the built-in test provider in test mode: its hosted
	// pages (/test-payments/…) and its webhook (/webhooks/test) are
	// served. Nil, or RefundsOnly (Stripe mode), and neither is routed.
	TestPayments *payment.TestProvider
	// PaymentEvents applies the card providers' verified events; nil:
	// Settler does.
	PaymentEvents handlers.PaymentEvents
	// Refunds makes every refund's card part at the provider that took
	// the payment (payment.CardRefunds over the shop's providers and the
	// legacy test gateway). Nil: New makes one of TestPayments (if set)
	// and LegacyGateway.
	Refunds store.Refunder
	// StripeDashboard is the Stripe Dashboard's address for the shop's key,
	// where staff's links to a payment go: https://dashboard.stripe.com/test
	// for a test key; "" is the live one (handlers.StripeDashboard).
	StripeDashboard string
	// MailKeptInOutbox: no mail server is set, the outbox is the delivery;
	// the outbox calls a mail waiting for its first pass kept already.
	MailKeptInOutbox bool
	// SubscriptionPayments moves subscriptions' card payments through the
	// card providers (a new card is typed on the provider's page). Nil:
	// New makes one over Payments, its links to BaseURL.
	SubscriptionPayments *jobs.SubscriptionPayments
	// Payments are the card providers: the active one takes the card on
	// its hosted page (checkout holds the order and sends the customer
	// there), and its webhook is routed (/webhooks/test in test mode,
	// /webhooks/stripe with Stripe). A test provider active and no
	// TestPayments: it is TestPayments. The shop takes no card itself:
	// New refuses a Config without an active provider.
	Payments payment.Providers
	// PaymentHold is how long checkout holds an order for its card
	// payment (SHOP_PAYMENT_HOLD; default 30 minutes).
	PaymentHold time.Duration
	// Settler settles held orders from the providers' events and when a
	// customer cancels one; nil: one over Store and Payments, which hands
	// subscriptions' and refunds' events on (jobs.NewCardPayments).
	Settler *jobs.PaymentSettler
	// Webhooks configures the delivery of the API's webhook events, which
	// every replica runs (SHOP_JOBS=false too): the client's address
	// policy (AllowPrivate: SHOP_WEBHOOK_ALLOW_PRIVATE), how often it
	// polls (default 3 s; woken at once by an event written here), and
	// for tests a resolver, allowed addresses and root CAs.
	Webhooks WebhookConfig
}

// WebhookConfig configures the app's webhook deliverer.
type WebhookConfig struct {
	Client webhook.ClientConfig
	Every  time.Duration
	// Jitter fixes the retries' jitter (tests); nil: random.
	Jitter func() float64
	// Deliverer, when set, receives the app's deliverer (tests drive it).
	Deliverer **webhook.Deliverer
	// StaffMail is where the mail about an endpoint disabled goes.
	StaffMail string
}
