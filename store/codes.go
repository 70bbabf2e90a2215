package store

import (
	"context"
	"strings"
	"time"

	"shop/store/rules"
)

// GiftCard is a prepaid balance spent at checkout, partly or whole.
type GiftCard struct {
	Code      string
	Balance   Money
	Initial   Money
	CreatedAt time.Time
}

// DiscountKind says how a discount code takes money off (rules.DiscountKind).
type DiscountKind = rules.DiscountKind

const (
	DiscountPercent = rules.DiscountPercent
	DiscountFixed   = rules.DiscountFixed
)

// DiscountCode takes a percentage or a fixed amount off an order, until it
// expires or has been used UsageLimit times.
type DiscountCode struct {
	Code       string
	Kind       DiscountKind
	Percent    int   // 1..100, for DiscountPercent
	Amount     Money // for DiscountFixed
	ExpiresAt  time.Time
	UsageLimit int
	Used       int
	// Payments is how many payments of a subscription it discounts: the
	// first N, or 0 every payment. Codes from before subscriptions took
	// codes read 0: a code staff made as "10 % off" keeps meaning that on
	// every payment, as it did on every order.
	Payments  int
	CreatedAt time.Time
}

// Off is what the code takes off a subtotal: never more than the subtotal.
func (d DiscountCode) Off(subtotal Money) Money {
	return rules.DiscountOff(d.Kind, d.Percent, d.Amount, subtotal)
}

// Usable says why the code cannot be used now, or nil.
func (d DiscountCode) Usable(now time.Time) error {
	switch {
	case !now.Before(d.ExpiresAt):
		return ErrCodeExpired
	case d.Used >= d.UsageLimit:
		return ErrCodeUsedUp
	}
	return nil
}

// Refusals of a code typed at checkout or on the subscribe form, in the
// catalogue's words.
var (
	ErrBadCode      error = Refuse(Invalid, "checkout.code.bad", "codes are 4 to 32 letters, digits and dashes")
	ErrCodeExpired  error = Refuse(Conflict, "checkout.code.expired", "this code has expired")
	ErrCodeUsedUp   error = Refuse(Conflict, "checkout.code.used_up", "this code has been used up")
	ErrGiftCardUsed error = Refuse(Conflict, "checkout.giftcard.empty", "this gift card has no balance left")

	// The refusals of a CodeError whose cause is no refusal of its own:
	// no such code (errors.Is finds ErrNotFound through them), a gift
	// card's balance moved under the order, a code in another currency
	// than the order's (ErrMixedCurrency).
	ErrUnknownDiscount   error = &Refusal{Kind: Invalid, Message: "checkout.discount.unknown", Words: ErrNotFound.Error(), Err: ErrNotFound}
	ErrUnknownGiftCard   error = &Refusal{Kind: Invalid, Message: "checkout.giftcard.unknown", Words: ErrNotFound.Error(), Err: ErrNotFound}
	ErrGiftCardChanged   error = Refuse(Conflict, "checkout.giftcard.changed", "the gift card's balance changed; check it and try again")
	ErrCodeMixesCurrency error = &Refusal{Kind: Invalid, Message: "checkout.code.currency", Words: ErrMixedCurrency.Error(), Err: ErrMixedCurrency}
)

// NormalizeCode is the stored form of a typed code: upper case, no spaces.
func NormalizeCode(s string) (string, error) {
	s = strings.ToUpper(strings.Join(strings.Fields(s), ""))
	if len(s) < 4 || len(s) > 32 {
		return "", ErrBadCode
	}
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
			return "", ErrBadCode
		}
	}
	return s, nil
}

type giftCardRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	Balance    int64  `dynamodbav:"Balance"`
	Initial    int64  `dynamodbav:"Initial"`
	Currency   string `dynamodbav:"Currency"`
	CreatedAt  string `dynamodbav:"CreatedAt"`
	GSI1PK     string `dynamodbav:"GSI1-PK"` // giftcards
	GSI1SK     string `dynamodbav:"GSI1-SK"` // created#code
}

func (r giftCardRecord) giftCard() GiftCard {
	return GiftCard{Code: trimPrefix(r.PK, prefixGiftCard), Balance: Money{Amount: r.Balance, Currency: r.Currency},
		Initial: Money{Amount: r.Initial, Currency: r.Currency}, CreatedAt: parseTime(r.CreatedAt)}
}

type discountRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	Kind       string `dynamodbav:"Kind"`
	Percent    int    `dynamodbav:"Percent"`
	Amount     int64  `dynamodbav:"Amount"`
	Currency   string `dynamodbav:"Currency"`
	ExpiresOn  string `dynamodbav:"ExpiresOn"` // not the TTL: expired codes stay listed
	UsageLimit int    `dynamodbav:"UsageLimit"`
	Used       int    `dynamodbav:"Used"`
	Payments   int    `dynamodbav:"Payments,omitempty"` // of a subscription it covers; 0 every one
	CreatedAt  string `dynamodbav:"CreatedAt"`
	GSI1PK     string `dynamodbav:"GSI1-PK"` // discounts
	GSI1SK     string `dynamodbav:"GSI1-SK"` // created#code
}

func (r discountRecord) discount() DiscountCode {
	return DiscountCode{
		Code: trimPrefix(r.PK, prefixDiscount), Kind: DiscountKind(r.Kind), Percent: r.Percent,
		Amount: Money{Amount: r.Amount, Currency: r.Currency}, ExpiresAt: parseTime(r.ExpiresOn), UsageLimit: r.UsageLimit,
		Used: r.Used, Payments: r.Payments, CreatedAt: parseTime(r.CreatedAt),
	}
}

// CreateGiftCard issues a gift card; ErrConflict if the code exists.
func (s *Store) CreateGiftCard(ctx context.Context, g GiftCard) (GiftCard, error) {
	if g.CreatedAt.IsZero() {
		g.CreatedAt = s.now()
	}
	g.Initial = g.Balance
	err := s.putNew(ctx, newGiftCardRecord(g), "gift card "+g.Code)
	return g, err
}

func newGiftCardRecord(g GiftCard) giftCardRecord {
	return giftCardRecord{
		PK: giftCardKey(g.Code), SK: giftCardKey(g.Code), EntityType: entityGiftCard,
		Balance: g.Balance.Amount, Initial: g.Initial.Amount, Currency: g.Balance.Currency, CreatedAt: timestamp(g.CreatedAt),
		GSI1PK: partitionGiftCards, GSI1SK: createdKey(g.CreatedAt, g.Code),
	}
}

// GiftCard reads a gift card by code.
func (s *Store) GiftCard(ctx context.Context, code string) (GiftCard, error) {
	return getItem(ctx, s, giftCardKey(code), giftCardKey(code), "gift card", giftCardRecord.giftCard)
}

// GiftCards lists gift cards, newest first (GSI1 PK=giftcards).
func (s *Store) GiftCards(ctx context.Context, limit int, cursor string) (Page[GiftCard], error) {
	return pagedQuery(ctx, s, querySpec{key: onGSI1.pkEquals(partitionGiftCards), backward: true}, limit, cursor, giftCardRecord.giftCard)
}

// CreateDiscountCode creates a discount code; ErrConflict if it exists.
func (s *Store) CreateDiscountCode(ctx context.Context, d DiscountCode) (DiscountCode, error) {
	if d.CreatedAt.IsZero() {
		d.CreatedAt = s.now()
	}
	d.Used = 0
	err := s.putNew(ctx, newDiscountRecord(d), "discount code "+d.Code)
	return d, err
}

func newDiscountRecord(d DiscountCode) discountRecord {
	return discountRecord{
		PK: discountKey(d.Code), SK: discountKey(d.Code), EntityType: entityDiscount,
		Kind: string(d.Kind), Percent: d.Percent, Amount: d.Amount.Amount, Currency: d.Amount.Currency,
		ExpiresOn: timestamp(d.ExpiresAt), UsageLimit: d.UsageLimit, Used: d.Used, Payments: d.Payments, CreatedAt: timestamp(d.CreatedAt),
		GSI1PK: partitionDiscounts, GSI1SK: createdKey(d.CreatedAt, d.Code),
	}
}

// DiscountCode reads a discount code.
func (s *Store) DiscountCode(ctx context.Context, code string) (DiscountCode, error) {
	return getItem(ctx, s, discountKey(code), discountKey(code), "discount code", discountRecord.discount)
}

// DiscountCodes lists discount codes, newest first (GSI1 PK=discounts).
func (s *Store) DiscountCodes(ctx context.Context, limit int, cursor string) (Page[DiscountCode], error) {
	return pagedQuery(ctx, s, querySpec{key: onGSI1.pkEquals(partitionDiscounts), backward: true}, limit, cursor, discountRecord.discount)
}
