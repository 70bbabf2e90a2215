// Package payment is how the shop pays by card: its providers (the
// built-in test provider here, Stripe in payment/stripe) and the old test
// gateway that older tables' cards and charges still need, the test ones
// following the well-known test-card conventions. A card number never
// leaves this package: callers keep a token, the brand and the last four
// digits.
package payment

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"shop/store"
)

// Card is what the shop may keep of a card: token, brand, last four.
type Card = store.Card

// Errors about the card as typed: the person can fix these. Each is a
// refusal that says itself at the test payment page's field it is about;
// a page about a kept card says it at the card instead.
var (
	ErrInvalidNumber error = cardRefusal("card_number", "checkout.card.invalid_number", "card number is not valid")
	ErrInvalidExpiry error = cardRefusal("expiry", "checkout.card.invalid_expiry", "expiry is not a valid MM/YY date")
	ErrExpired       error = cardRefusal("expiry", "checkout.card.expired", "card has expired")
	ErrInvalidCVC    error = cardRefusal("cvc", "checkout.card.invalid_cvc", "security code must be 3 or 4 digits")
)

// Errors from the bank: refusals said at the card number, the card the
// bank answered about, under a heading of what happened (declined, or
// not charged). ErrVoided is said as a card that could not be processed:
// nothing was charged, and a new try may go through.
var (
	ErrDeclined          error = bankRefusal("checkout.card.declined", declinedTitle, "card was declined")
	ErrInsufficientFunds error = bankRefusal("checkout.card.insufficient", declinedTitle, "card has insufficient funds")
	ErrProcessing        error = bankRefusal("checkout.card.processing", notChargedTitle, "the card could not be processed; try again")
	ErrVoided            error = bankRefusal("checkout.card.processing", notChargedTitle, "this payment was cancelled; start the payment again")
	// ErrKeyReused stays a plain error, no refusal: the shop sent one key
	// with two amounts, its own bug, which the error page answers 500.
	ErrKeyReused = errors.New("idempotency key reused with another amount")
)

// cardRefusal is a card error as a refusal: what was asked (this card,
// this payment) cannot be done, said by message at field.
func cardRefusal(field, message, words string) *store.Refusal {
	return &store.Refusal{Kind: store.Invalid, Message: message, Field: field, Words: words}
}

// The headings of a form the bank refused.
const (
	declinedTitle   = "checkout.card.declined_title"
	notChargedTitle = "checkout.card.not_charged_title"
)

// bankRefusal is the bank's no as a refusal at the card number, headed by
// title.
func bankRefusal(message, title, words string) *store.Refusal {
	r := cardRefusal("card_number", message, words)
	r.Title = title
	return r
}

// Test card numbers, as the well-known conventions have them.
const (
	CardSucceeds          = "4242424242424242"
	CardSucceedsMC        = "5555555555554444"
	CardDeclined          = "4000000000000002"
	CardInsufficientFunds = "4000000000009995"
	CardProcessingError   = "4000000000000119"
	// Cards whose bank asks the holder to confirm (the test provider's
	// hosted page shows that step; the test gateway has none and charges
	// them as 4242).
	CardAuthenticationRequired = "4000002760003184" // on every payment, off-session too
	CardAuthenticationOnSetup  = "4000002500003155" // on the page; off-session once saved
)

// ParseCardNumber keeps the digits of a typed number (spaces and dashes
// allowed) and checks its length and Luhn digit.
func ParseCardNumber(s string) (string, error) {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == ' ' || r == '-':
		default:
			return "", ErrInvalidNumber
		}
	}
	digits := b.String()
	if len(digits) < 13 || len(digits) > 19 || !store.Luhn(digits) {
		return "", ErrInvalidNumber
	}
	return digits, nil
}

// ParseExpiry reads "MM/YY" or "MM/YYYY" and returns the first moment the
// card is no longer valid (the start of the month after).
func ParseExpiry(s string) (time.Time, error) {
	m, y, ok := strings.Cut(strings.TrimSpace(s), "/")
	m, y = strings.TrimSpace(m), strings.TrimSpace(y)
	if !ok || len(m) < 1 || len(m) > 2 || (len(y) != 2 && len(y) != 4) {
		return time.Time{}, ErrInvalidExpiry
	}
	month, err1 := strconv.Atoi(m)
	year, err2 := strconv.Atoi(y)
	if err1 != nil || err2 != nil || month < 1 || month > 12 || year < 0 || strings.ContainsAny(m+y, "+-") {
		return time.Time{}, ErrInvalidExpiry
	}
	if len(y) == 2 {
		year += 2000
	}
	if year < 2000 || year > 2099 {
		return time.Time{}, ErrInvalidExpiry // "1/0000" is no card's expiry
	}
	return time.Date(year, time.Month(month)+1, 1, 0, 0, 0, 0, time.UTC), nil
}

// typedCard is what the test card rules make of a card as typed: how the
// bank will answer it, never its number.
type typedCard struct {
	Brand   string
	Last4   string
	Outcome string // how every charge to it ends (outcomeOf)
	// Auth is when its bank asks the holder to confirm (authOf); the test
	// gateway has no such step and ignores it.
	Auth    string
	Expires time.Time // the first instant it no longer pays
}

// readCard checks a typed card (number, MM/YY expiry, security code) at
// now by the test card rules both the test gateway and the test provider
// follow.
func readCard(number, expiry, cvc string, now time.Time) (typedCard, error) {
	digits, err := ParseCardNumber(number)
	if err != nil {
		return typedCard{}, err
	}
	end, err := ParseExpiry(expiry)
	if err != nil {
		return typedCard{}, err
	}
	if !now.Before(end) {
		return typedCard{}, ErrExpired
	}
	cvc = strings.TrimSpace(cvc)
	if len(cvc) < 3 || len(cvc) > 4 || strings.Trim(cvc, "0123456789") != "" {
		return typedCard{}, ErrInvalidCVC
	}
	return typedCard{Brand: brandOf(digits), Last4: digits[len(digits)-4:], Outcome: outcomeOf(digits), Auth: authOf(digits), Expires: end}, nil
}

func brandOf(digits string) string {
	switch {
	case strings.HasPrefix(digits, "4"):
		return "Visa"
	case digits[0] == '5' && digits[1] >= '1' && digits[1] <= '5', strings.HasPrefix(digits, "2"):
		return "Mastercard"
	case strings.HasPrefix(digits, "34"), strings.HasPrefix(digits, "37"):
		return "American Express"
	default:
		return "Card"
	}
}

// Ledger is where the test gateway keeps its cards and charges: the shop's
// table (store.Store), so that every process and every restart sees them.
type Ledger interface {
	PutGatewayCard(ctx context.Context, c store.GatewayCard) error
	GatewayCard(ctx context.Context, token string) (store.GatewayCard, error)
	RecordGatewayCharge(ctx context.Context, c store.GatewayCharge) (store.GatewayCharge, error)
	GatewayCharge(ctx context.Context, key string) (store.GatewayCharge, error)
	RecordGatewayRefund(ctx context.Context, r store.GatewayRefund) (store.GatewayRefund, error)
	GatewayRefund(ctx context.Context, key string) (store.GatewayRefund, error)
}

// OutcomeOK is how a card that pays is kept on the gateway's side.
const OutcomeOK = outcomeOK

// Outcomes a test card gives every charge.
const (
	outcomeOK           = "ok"
	outcomeDeclined     = "declined"
	outcomeInsufficient = "insufficient_funds"
	outcomeProcessing   = "processing_error"
)

// When a test card's bank asks the holder to confirm a payment (3-D
// Secure), as the well-known conventions have it.
const (
	authNever = ""
	// authAlways: every payment, on the page or off-session; an off-session
	// charge is refused until the holder confirms it.
	authAlways = "always"
	// authOnSetup: every payment the holder makes on the page; once the
	// card is saved that way, off-session charges pass without asking.
	authOnSetup = "setup"
)

func authOf(digits string) string {
	switch digits {
	case CardAuthenticationRequired:
		return authAlways
	case CardAuthenticationOnSetup:
		return authOnSetup
	}
	return authNever
}

func outcomeOf(digits string) string {
	switch digits {
	case CardDeclined:
		return outcomeDeclined
	case CardInsufficientFunds:
		return outcomeInsufficient
	case CardProcessingError:
		return outcomeProcessing
	}
	return outcomeOK
}

func errorOf(outcome string) error {
	switch outcome {
	case outcomeOK:
		return nil
	case outcomeInsufficient:
		return ErrInsufficientFunds
	case outcomeProcessing:
		return ErrProcessing
	}
	return ErrDeclined
}

// TestGateway is the gateway the shop charged cards through, in the
// request, before the test provider. It charges no new card now: it renews
// the subscriptions an older table keeps with one of its tokens (in test
// mode) and refunds its charges (ch_…). It keeps, as a real gateway does
// on its side, its cards (token -> brand, last four and how the card's
// number behaved, by the Card* constants; never the number) and its ledger
// of charges in the Ledger. A charge repeated with the same idempotency
// key, from any process, returns the first charge; with another amount it
// is refused. A decline is not kept.
type TestGateway struct {
	Now func() time.Time
	// AfterCharge, if set, runs after a charge is made and its error is
	// returned instead: tests use it to crash between a charge and the
	// shop's write.
	AfterCharge func(ctx context.Context, key string) error

	ledger Ledger

	mu       sync.Mutex
	captured map[string]store.Money // charge id -> amount, made by this process and not voided
	attempts int                    // charges that reached the bank from this process
}

// NewTestGateway returns a test gateway keeping its records in ledger.
func NewTestGateway(ledger Ledger) *TestGateway {
	return &TestGateway{Now: time.Now, ledger: ledger, captured: map[string]store.Money{}}
}

func randomID(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// CardExpires is the first instant a tokenised card no longer pays;
// ErrNotFound (store's) for an unknown token.
func (g *TestGateway) CardExpires(ctx context.Context, token string) (time.Time, error) {
	c, err := g.ledger.GatewayCard(ctx, token)
	if err != nil {
		return time.Time{}, err
	}
	return c.Expires, nil
}

// Lookup reads the ledger's entry of a key: what the gateway did with it.
func (g *TestGateway) Lookup(ctx context.Context, key string) (store.GatewayCharge, error) {
	return g.ledger.GatewayCharge(ctx, key)
}

// ChargeAt charges a tokenised card once per idempotency key (a repeat
// with the same key returns the same charge without charging again): the
// ledger's entry, its id and its time the same for every repeat of the
// key. Only the renewals of subscriptions an older version kept with a
// gateway token still charge it (the test gateway tokenises no new card:
// new cards are typed on the test provider's page).
func (g *TestGateway) ChargeAt(ctx context.Context, token string, amount store.Money, key string) (store.GatewayCharge, error) {
	c, err := g.charge(ctx, token, amount, key)
	if err == nil && g.AfterCharge != nil {
		err = g.AfterCharge(ctx, key) // a test's crash between the charge and the shop's write
	}
	return c, err
}

func (g *TestGateway) charge(ctx context.Context, token string, amount store.Money, key string) (store.GatewayCharge, error) {
	if err := ctx.Err(); err != nil {
		return store.GatewayCharge{}, err
	}
	if first, err := g.ledger.GatewayCharge(ctx, key); err == nil {
		return answer(first, amount)
	} else if !errors.Is(err, store.ErrNotFound) {
		return store.GatewayCharge{}, err
	}
	c := store.GatewayCharge{Key: key, Token: token, Amount: amount, At: g.Now().UTC().Truncate(time.Millisecond), Outcome: outcomeDeclined}
	card, err := g.ledger.GatewayCard(ctx, token)
	switch {
	case errors.Is(err, store.ErrNotFound):
		// An unknown token (an imported card that was never valid) is declined.
	case err != nil:
		return store.GatewayCharge{}, err
	case !c.At.Before(card.Expires):
		c.Last4 = card.Last4
	default:
		c.Outcome, c.Last4 = card.Outcome, card.Last4
	}
	if c.Outcome != outcomeOK {
		// Not kept: the customer may try again with another card on the
		// same form (and so the same key).
		g.mu.Lock()
		g.attempts++
		g.mu.Unlock()
		return store.GatewayCharge{}, errorOf(c.Outcome)
	}
	c.ID = randomID("ch_")
	recorded, err := g.ledger.RecordGatewayCharge(ctx, c)
	if errors.Is(err, store.ErrConflict) {
		return answer(recorded, amount) // a twin with the same key was first
	}
	if err != nil {
		return store.GatewayCharge{}, fmt.Errorf("record charge: %w", err)
	}
	// The ledger's conditional write is the charge: twins racing on one key
	// reach the bank once.
	g.mu.Lock()
	g.attempts++
	g.captured[c.ID] = amount
	g.mu.Unlock()
	return c, nil
}

// answer is what a repeated key gets: the first answer, if the amount is
// the same.
func answer(first store.GatewayCharge, amount store.Money) (store.GatewayCharge, error) {
	switch {
	case first.Amount != amount:
		return store.GatewayCharge{}, ErrKeyReused
	case first.Voided:
		return store.GatewayCharge{}, ErrVoided
	}
	return first, errorOf(first.Outcome)
}

// Refund gives amount of a charge back to its card, once per idempotency
// key: a repeat returns the first refund's id (with another charge or
// amount it is refused, ErrKeyReused). The ledger's transaction keeps the
// refunds of a charge within it (store.ErrRefundExceedsCharge), whichever
// process refunds.
func (g *TestGateway) Refund(ctx context.Context, chargeID string, amount store.Money, key string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if amount.Amount <= 0 {
		return "", store.ErrBadRefund
	}
	first, err := g.ledger.GatewayRefund(ctx, key)
	if err == nil {
		return refundAnswer(first, chargeID, amount)
	} else if !errors.Is(err, store.ErrNotFound) {
		return "", err
	}
	r := store.GatewayRefund{Key: key, ID: randomID("re_"), ChargeID: chargeID, Amount: amount, At: g.Now().UTC().Truncate(time.Millisecond)}
	recorded, err := g.ledger.RecordGatewayRefund(ctx, r)
	if errors.Is(err, store.ErrConflict) {
		return refundAnswer(recorded, chargeID, amount) // a twin with the same key was first
	}
	if err != nil {
		return "", err
	}
	g.mu.Lock()
	if m, ok := g.captured[chargeID]; ok {
		g.captured[chargeID] = store.Money{Amount: m.Amount - amount.Amount, Currency: m.Currency}
	}
	g.mu.Unlock()
	return r.ID, nil
}

func refundAnswer(first store.GatewayRefund, chargeID string, amount store.Money) (string, error) {
	if first.ChargeID != chargeID || first.Amount != amount {
		return "", ErrKeyReused
	}
	return first.ID, nil
}

// Captured is what this process charged: charges not voided and their sum,
// and how many charges reached the bank at all (repeats by key do not).
func (g *TestGateway) Captured() (count int, total int64, attempts int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, m := range g.captured {
		count++
		total += m.Amount
	}
	return count, total, g.attempts
}
