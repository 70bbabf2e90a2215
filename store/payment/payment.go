// Package payment is the card payment gateway the shop talks to, and a test
// gateway that behaves like the well-known test-card conventions. A card
// number never leaves this package: callers keep a token, the brand and the
// last four digits.
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

// Card is what the shop may keep of a card.
type Card struct {
	Token string
	Brand string
	Last4 string
}

// Gateway turns cards into tokens and charges them, once per idempotency key.
type Gateway interface {
	Tokenize(ctx context.Context, number, expiry, cvc string) (Card, error)
	Charge(ctx context.Context, token string, amount store.Money, idempotencyKey string) (chargeID string, err error)
	Void(ctx context.Context, chargeID string) error
}

// Errors about the card as typed: the person can fix these.
var (
	ErrInvalidNumber = errors.New("card number is not valid")
	ErrInvalidExpiry = errors.New("expiry is not a valid MM/YY date")
	ErrExpired       = errors.New("card has expired")
	ErrInvalidCVC    = errors.New("security code must be 3 or 4 digits")
)

// Errors from the bank.
var (
	ErrDeclined          = errors.New("card was declined")
	ErrInsufficientFunds = errors.New("card has insufficient funds")
	ErrProcessing        = errors.New("the card could not be processed; try again")
	ErrVoided            = errors.New("this payment was cancelled; start the payment again")
	ErrKeyReused         = errors.New("idempotency key reused with another amount")
)

// Test card numbers, as the well-known conventions have them.
const (
	CardSucceeds          = "4242424242424242"
	CardSucceedsMC        = "5555555555554444"
	CardDeclined          = "4000000000000002"
	CardInsufficientFunds = "4000000000009995"
	CardProcessingError   = "4000000000000119"
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
	if len(digits) < 13 || len(digits) > 19 || !luhn(digits) {
		return "", ErrInvalidNumber
	}
	return digits, nil
}

func luhn(digits string) bool {
	sum, double := 0, false
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if double {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
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
	return time.Date(year, time.Month(month)+1, 1, 0, 0, 0, 0, time.UTC), nil
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

type charge struct {
	id     string
	amount store.Money
	token  string
	voided bool
}

// TestGateway is an in-process gateway for development and tests. It keeps
// tokens and charges in memory and behaves by card number: see the Card*
// constants; any other valid number succeeds.
type TestGateway struct {
	Now func() time.Time

	mu      sync.Mutex
	tokens  map[string]string  // token -> number
	byKey   map[string]*charge // idempotency key -> charge
	byID    map[string]*charge
	charges int // charge attempts that reached the bank
}

// NewTestGateway returns an empty test gateway.
func NewTestGateway() *TestGateway {
	return &TestGateway{Now: time.Now, tokens: map[string]string{}, byKey: map[string]*charge{}, byID: map[string]*charge{}}
}

func randomID(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// Tokenize checks the card and returns a token for it.
func (g *TestGateway) Tokenize(_ context.Context, number, expiry, cvc string) (Card, error) {
	digits, err := ParseCardNumber(number)
	if err != nil {
		return Card{}, err
	}
	end, err := ParseExpiry(expiry)
	if err != nil {
		return Card{}, err
	}
	if !g.Now().Before(end) {
		return Card{}, ErrExpired
	}
	cvc = strings.TrimSpace(cvc)
	if len(cvc) < 3 || len(cvc) > 4 || strings.Trim(cvc, "0123456789") != "" {
		return Card{}, ErrInvalidCVC
	}
	tok := randomID("tok_")
	g.mu.Lock()
	g.tokens[tok] = digits
	g.mu.Unlock()
	return Card{Token: tok, Brand: brandOf(digits), Last4: digits[len(digits)-4:]}, nil
}

// Charge charges the card once per idempotency key: a repeat with the same
// key returns the same charge without charging again.
func (g *TestGateway) Charge(ctx context.Context, token string, amount store.Money, key string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if c, ok := g.byKey[key]; ok {
		switch {
		case c.amount != amount:
			return "", ErrKeyReused
		case c.voided:
			return "", ErrVoided
		}
		return c.id, nil
	}
	number, ok := g.tokens[token]
	if !ok {
		return "", fmt.Errorf("unknown card token: %w", ErrDeclined)
	}
	g.charges++
	switch number {
	case CardDeclined:
		return "", ErrDeclined
	case CardInsufficientFunds:
		return "", ErrInsufficientFunds
	case CardProcessingError:
		return "", ErrProcessing
	}
	c := &charge{id: randomID("ch_"), amount: amount, token: token}
	g.byKey[key], g.byID[c.id] = c, c
	return c.id, nil
}

// Void cancels a charge; voiding twice is fine.
func (g *TestGateway) Void(_ context.Context, chargeID string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	c, ok := g.byID[chargeID]
	if !ok {
		return fmt.Errorf("no charge %s", chargeID)
	}
	c.voided = true
	return nil
}

// Captured is what the gateway holds: charges not voided and their sum, and
// how many times a card was charged at all.
func (g *TestGateway) Captured() (count int, total int64, attempts int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, c := range g.byID {
		if !c.voided {
			count++
			total += c.amount.Amount
		}
	}
	return count, total, g.charges
}
