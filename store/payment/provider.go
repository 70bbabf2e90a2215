package payment

import (
	"context"
	"errors"
	"time"

	"shop/store"
)

// Provider is a card payment provider as the shop uses it: the card is
// typed on the provider's own hosted page, never on the shop's, and the
// provider reports what happened by signed events (webhooks). Two
// implement it: Stripe (store/payment/stripe) and the built-in test
// provider, which keeps its records in the shop's table and serves its
// hosted page from the shop.
//
// The shop computes every amount. A provider only sees customers, hosted
// checkout sessions (payment or setup mode), payment intents charged
// off-session to a saved method, and refunds.
type Provider interface {
	// Name is what payments, refunds and saved methods record as theirs:
	// "test" or "stripe". A refund goes to the provider that took the money.
	Name() string

	// EnsureCustomer creates the provider's customer for one of the shop's
	// the first time they pay by card; ref is then kept on the customer.
	EnsureCustomer(ctx context.Context, c CustomerRequest) (ref string, err error)
	// DeleteCustomer removes it (erasure). A customer already gone is not
	// an error.
	DeleteCustomer(ctx context.Context, ref string) error

	// StartCheckout creates a hosted page for the customer to pay (or, in
	// setup mode, to save a card) until req.ExpiresAt.
	StartCheckout(ctx context.Context, req CheckoutRequest) (CheckoutSession, error)
	// RetrieveCheckout reads a session by its id (reconcile, when a webhook
	// was missed).
	RetrieveCheckout(ctx context.Context, id string) (CheckoutSession, error)
	// ExpireCheckout ends an open session so that it can no longer be paid.
	// A session already paid answers ErrCheckoutComplete with the session:
	// the caller settles it as paid.
	ExpireCheckout(ctx context.Context, id string) (CheckoutSession, error)

	// CreatePayment creates an unconfirmed payment of a saved method,
	// off-session, with req.Key in its metadata (a provider may keep
	// idempotency keys for a day only, and cannot look a payment up by
	// key: the caller saves the returned id before confirming).
	CreatePayment(ctx context.Context, req PaymentRequest) (PaymentIntent, error)
	// ConfirmPayment charges it. A decline answers ErrDeclined (or
	// ErrInsufficientFunds); a bank asking for authentication answers
	// ErrAuthenticationRequired with the intent (its RedirectURL set when
	// ReturnURL was given). Both come with the intent as it now stands.
	ConfirmPayment(ctx context.Context, id string) (PaymentIntent, error)
	// RetrievePayment reads a payment by id (reconcile).
	RetrievePayment(ctx context.Context, id string) (PaymentIntent, error)

	// Refund gives amount of a payment back, once per idempotency key.
	Refund(ctx context.Context, req RefundRequest) (Refund, error)

	// ParseEvent verifies a webhook's signature over the raw body before
	// reading anything, and returns the event. A bad or missing signature,
	// or one outside the tolerance, is ErrBadSignature.
	ParseEvent(body []byte, signature string) (Event, error)
}

// ProviderTest and ProviderStripe are the providers' names as records keep
// them. A record written before providers had names is the test
// provider's.
const (
	ProviderTest   = "test"
	ProviderStripe = "stripe"
)

// CheckoutMode is what a hosted checkout session is for.
type CheckoutMode string

const (
	ModePayment CheckoutMode = "payment" // pay an amount, optionally saving the card
	ModeSetup   CheckoutMode = "setup"   // save a card, charge nothing
)

// CustomerRequest is the shop's customer as a provider needs it.
type CustomerRequest struct {
	CustomerID string // the shop's id, kept in the provider's metadata
	Email      string
	Name       string
	Key        string // idempotency key
}

// CheckoutRequest is one hosted page to open.
type CheckoutRequest struct {
	Mode        CheckoutMode
	Amount      store.Money // payment mode: what the card pays
	Description string      // what the customer reads on the page
	CustomerRef string      // the provider's customer
	// SaveCard keeps the card for off-session charges (subscriptions).
	SaveCard   bool
	ExpiresAt  time.Time
	SuccessURL string // where the customer returns after paying
	CancelURL  string // where "back" on the page goes
	Key        string // idempotency key
	// Metadata comes back on the session and its events: the order or
	// subscription it pays for.
	Metadata map[string]string
}

// Session statuses, as Stripe names them.
const (
	SessionOpen     = "open"
	SessionComplete = "complete"
	SessionExpired  = "expired"
)

// CheckoutSession is a hosted page and where it stands.
type CheckoutSession struct {
	ID     string
	URL    string // the hosted page, while open
	Status string // SessionOpen, SessionComplete or SessionExpired
	// Paid: the money was taken (payment mode) or the card saved (setup).
	Paid        bool
	Amount      store.Money
	PaymentRef  string       // the provider's payment (intent) id, once paid
	Card        *SavedMethod // the card saved, if SaveCard or setup mode
	CustomerRef string
	Metadata    map[string]string
	ExpiresAt   time.Time
}

// SavedMethod is what the shop keeps of a card the provider saved.
type SavedMethod struct {
	Provider string
	Ref      string // the provider's payment method id
	Brand    string
	Last4    string
	ExpMonth int
	ExpYear  int
}

// Card is the saved method as a subscription keeps it, with the provider's
// customer it was saved for (whom its off-session payments name).
func (m SavedMethod) Card(customerRef string) store.Card {
	return store.Card{Token: m.Ref, Brand: m.Brand, Last4: m.Last4, Provider: m.Provider, ExpMonth: m.ExpMonth, ExpYear: m.ExpYear, Customer: customerRef}
}

// PaymentRequest is an off-session charge of a saved method.
type PaymentRequest struct {
	Amount      store.Money
	CustomerRef string
	MethodRef   string
	Description string
	Key         string // idempotency key: subscription, period, attempt
	// ReturnURL is where a bank's authentication page sends the customer
	// back to; with it a payment needing authentication gets a RedirectURL.
	ReturnURL string
	Metadata  map[string]string
}

// Payment statuses, as Stripe names them.
const (
	PaymentRequiresConfirmation = "requires_confirmation"
	PaymentRequiresAction       = "requires_action"
	PaymentRequiresMethod       = "requires_payment_method" // declined: another card may be tried
	PaymentProcessing           = "processing"
	PaymentSucceeded            = "succeeded"
	PaymentCanceled             = "canceled"
)

// PaymentIntent is a payment at the provider and where it stands.
type PaymentIntent struct {
	ID          string
	Status      string
	Amount      store.Money
	RedirectURL string // authentication asked: where to send the customer
	Card        *SavedMethod
	Metadata    map[string]string
	// DeclineCode is the bank's reason for the last failure, if any.
	DeclineCode string
}

// RefundRequest gives part or all of a payment back.
type RefundRequest struct {
	PaymentRef string
	Amount     store.Money
	Key        string // idempotency key
	Metadata   map[string]string
}

// Refund statuses, as Stripe names them.
const (
	RefundPending   = "pending"
	RefundSucceeded = "succeeded"
	RefundFailed    = "failed"
)

// Refund is a refund at the provider.
type Refund struct {
	ID         string
	PaymentRef string
	Status     string
	Amount     store.Money
	Metadata   map[string]string
}

// Event types the shop acts on, named as Stripe names them. Any other type
// is acknowledged and ignored.
const (
	EventCheckoutCompleted = "checkout.session.completed"
	EventCheckoutExpired   = "checkout.session.expired"
	EventPaymentSucceeded  = "payment_intent.succeeded"
	EventPaymentFailed     = "payment_intent.payment_failed"
	EventChargeRefunded    = "charge.refunded"
	EventRefundUpdated     = "refund.updated"
)

// Event is one verified webhook: applied once per ID.
type Event struct {
	ID      string
	Type    string
	Created time.Time
	// One of these, by Type.
	Session *CheckoutSession
	Payment *PaymentIntent
	Refund  *Refund
}

// Provider errors beyond the card errors above.
var (
	ErrAuthenticationRequired = errors.New("the bank asks the card holder to confirm this payment")
	ErrCheckoutComplete       = errors.New("the checkout session was already paid")
	ErrBadSignature           = errors.New("webhook signature is missing or does not match")
	ErrBelowMinimum           = errors.New("the amount is below the smallest charge the provider takes")
	ErrProviderUnavailable    = errors.New("the payment provider could not be reached; try again")
)
