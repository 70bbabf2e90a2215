package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Card is what the shop keeps of a card, as the gateway tokenised it: its
// token, the brand and the last four digits. Never the number. A checkout
// pays with one, and a subscription keeps one.
type Card struct {
	Token string
	Brand string
	Last4 string
	// Provider is the card provider that saved it (payment.ProviderTest,
	// payment.ProviderStripe), whose payment method Token then is; "" for
	// a card the old test gateway tokenised, which only it can charge.
	Provider string
	// ExpMonth and ExpYear are the card's expiry as its provider saved it
	// (zero for a gateway card: the gateway knows it).
	ExpMonth, ExpYear int
	// Customer is the provider's customer the card was saved for, whom
	// its off-session payments name.
	Customer string
}

// Saved reports whether a card provider saved the card (a payment
// method of Provider's), as opposed to the old gateway's token.
func (c Card) Saved() bool { return c.Provider != "" }

// Label is how a card is shown: "Visa •••• 4242".
func (c Card) Label() string {
	if c.Last4 == "" {
		return "no card"
	}
	return c.Brand + " •••• " + c.Last4
}

// The test gateway's own records. A real card gateway keeps its cards and
// its ledger on its side; the built-in test gateway keeps them in the
// shop's table so that any process, after any restart, can charge a token
// and a repeated idempotency key returns the first answer. The shop itself
// reads none of this: it keeps a Card (token, brand, last four).

// GatewayCard is the gateway's side of a card: how the test gateway will
// answer a charge to it. No card number is kept.
type GatewayCard struct {
	Token   string
	Brand   string
	Last4   string
	Outcome string // "ok", or the code of the error every charge gets
	Expires time.Time
}

// GatewayCharge is one entry of the gateway's ledger, by idempotency key.
type GatewayCharge struct {
	Key     string
	ID      string // "" for a declined attempt
	Token   string
	Last4   string
	Amount  Money
	At      time.Time
	Outcome string // "ok" or the decline's code
	Voided  bool
	// Refunded is the sum of the charge's refunds so far.
	Refunded Money
	// Provider is the card provider that took it (its payment's id is
	// ID); "" for the old gateway's own charge.
	Provider string
}

// GatewayRefund is one refund in the gateway's ledger, by idempotency key.
type GatewayRefund struct {
	Key      string
	ID       string
	ChargeID string
	Amount   Money
	At       time.Time
}

type gatewayCardRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	Brand      string `dynamodbav:"Brand"`
	Last4      string `dynamodbav:"Last4"`
	Outcome    string `dynamodbav:"Outcome"`
	Expires    string `dynamodbav:"Expires"`
}

type gatewayChargeRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	ChargeID   string `dynamodbav:"ChargeID,omitempty"`
	Token      string `dynamodbav:"Token"`
	Last4      string `dynamodbav:"Last4"`
	Amount     int64  `dynamodbav:"Amount"`
	Currency   string `dynamodbav:"Currency"`
	At         string `dynamodbav:"At"`
	Outcome    string `dynamodbav:"Outcome"`
	Voided     bool   `dynamodbav:"Voided"`
	Refunded   int64  `dynamodbav:"Refunded,omitempty"` // sum of its refunds, raised with each
	GSI1PK     string `dynamodbav:"GSI1-PK,omitempty"`  // gwcharge#<id>: void and refund by id
	GSI1SK     string `dynamodbav:"GSI1-SK,omitempty"`
}

func (r gatewayChargeRecord) charge() GatewayCharge {
	return GatewayCharge{Key: trimPrefix(r.PK, prefixGateway), ID: r.ChargeID, Token: r.Token, Last4: r.Last4,
		Amount: Money{Amount: r.Amount, Currency: r.Currency}, At: parseTime(r.At), Outcome: r.Outcome, Voided: r.Voided,
		Refunded: Money{Amount: r.Refunded, Currency: r.Currency}}
}

// gatewayRefundRecord is a refund in the ledger: PK gw#<key>, SK refund
// (a refund's key lives beside charge keys; the sort key keeps them apart).
type gatewayRefundRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	RefundID   string `dynamodbav:"RefundID"`
	ChargeID   string `dynamodbav:"ChargeID"`
	Amount     int64  `dynamodbav:"Amount"`
	Currency   string `dynamodbav:"Currency"`
	At         string `dynamodbav:"At"`
}

func (r gatewayRefundRecord) refund() GatewayRefund {
	return GatewayRefund{Key: trimPrefix(r.PK, prefixGateway), ID: r.RefundID, ChargeID: r.ChargeID,
		Amount: Money{Amount: r.Amount, Currency: r.Currency}, At: parseTime(r.At)}
}

// PutGatewayCard keeps a card the gateway tokenised.
func (s *Store) PutGatewayCard(ctx context.Context, c GatewayCard) error {
	return s.putNew(ctx, gatewayCardRecord{
		PK: gatewayCardKey(c.Token), SK: sortKeyCard, EntityType: entityGatewayCard,
		Brand: c.Brand, Last4: c.Last4, Outcome: c.Outcome, Expires: timestamp(c.Expires),
	}, "gateway card")
}

// GatewayCard reads a tokenised card; ErrNotFound for an unknown token.
func (s *Store) GatewayCard(ctx context.Context, token string) (GatewayCard, error) {
	return getItem(ctx, s, gatewayCardKey(token), sortKeyCard, "gateway card", func(r gatewayCardRecord) GatewayCard {
		return GatewayCard{Token: token, Brand: r.Brand, Last4: r.Last4, Outcome: r.Outcome, Expires: parseTime(r.Expires)}
	})
}

// RecordGatewayCharge writes a ledger entry once per key. If the key is
// already in the ledger, the first entry is returned with ErrConflict
// (read strongly consistent, so a twin in another process is seen).
func (s *Store) RecordGatewayCharge(ctx context.Context, c GatewayCharge) (GatewayCharge, error) {
	rec := gatewayChargeRecord{
		PK: gatewayChargeKey(c.Key), SK: sortKeyCharge, EntityType: entityGatewayCharge,
		ChargeID: c.ID, Token: c.Token, Last4: c.Last4, Amount: c.Amount.Amount, Currency: c.Amount.Currency,
		At: timestamp(c.At), Outcome: c.Outcome,
	}
	if c.ID != "" {
		rec.GSI1PK, rec.GSI1SK = gatewayIDKey(c.ID), gatewayIDKey(c.ID)
	}
	err := s.putNew(ctx, rec, "gateway charge")
	if errors.Is(err, ErrConflict) {
		first, rerr := s.GatewayCharge(ctx, c.Key)
		if rerr != nil {
			return GatewayCharge{}, rerr
		}
		return first, ErrConflict
	}
	return c, err
}

// GatewayCharge reads the ledger entry of an idempotency key (consistent).
func (s *Store) GatewayCharge(ctx context.Context, key string) (GatewayCharge, error) {
	return getItemConsistent(ctx, s, gatewayChargeKey(key), sortKeyCharge, "gateway charge", gatewayChargeRecord.charge)
}

// GatewayChargeByID reads a ledger entry by its charge id (GSI1).
func (s *Store) GatewayChargeByID(ctx context.Context, chargeID string) (GatewayCharge, error) {
	q := querySpec{key: onGSI1.pkAndSKEquals(gatewayIDKey(chargeID), gatewayIDKey(chargeID))}
	return queryOne(ctx, s, q, "charge "+chargeID, gatewayChargeRecord.charge)
}

// RecordGatewayRefund writes a refund once per key, in one transaction with
// the raise of its charge's Refunded, on condition that the charge is not
// voided, is in the refund's currency and keeps Refunded within its amount:
// refunds racing on one charge can never give back more than it took. A
// key already in the ledger returns its first refund with ErrConflict; a
// refund over what is left, ErrRefundExceedsCharge.
func (s *Store) RecordGatewayRefund(ctx context.Context, r GatewayRefund) (GatewayRefund, error) {
	if r.Amount.Amount <= 0 {
		return GatewayRefund{}, fmt.Errorf("a refund gives back more than nothing: %w", ErrBadRefund)
	}
	q := querySpec{key: onGSI1.pkAndSKEquals(gatewayIDKey(r.ChargeID), gatewayIDKey(r.ChargeID))}
	charge, err := queryOne(ctx, s, q, "charge "+r.ChargeID, asRecord[gatewayChargeRecord])
	if err != nil {
		return GatewayRefund{}, err
	}
	if r.Amount.Amount > charge.Amount {
		return GatewayRefund{}, ErrRefundExceedsCharge // not even a first refund could
	}
	put, err := attributevalue.MarshalMap(gatewayRefundRecord{
		PK: gatewayChargeKey(r.Key), SK: sortKeyRefund, EntityType: entityGatewayRefund,
		RefundID: r.ID, ChargeID: r.ChargeID, Amount: r.Amount.Amount, Currency: r.Amount.Currency, At: timestamp(r.At),
	})
	if err != nil {
		return GatewayRefund{}, err
	}
	newKey, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(attrPK))).Build()
	if err != nil {
		return GatewayRefund{}, err
	}
	// Refunded + amount <= Amount, as DynamoDB can say it: Refunded is at
	// most Amount - amount (the charge's amount never changes).
	left := expression.Or(expression.AttributeNotExists(expression.Name("Refunded")),
		expression.Name("Refunded").LessThanEqual(expression.Value(charge.Amount-r.Amount.Amount)))
	raise, err := s.txUpdate(charge.PK, charge.SK,
		expression.Set(expression.Name("Refunded"), expression.Plus(expression.IfNotExists(expression.Name("Refunded"), expression.Value(0)), expression.Value(r.Amount.Amount))),
		left.And(expression.Name("Voided").Equal(expression.Value(false)), expression.Name("Currency").Equal(expression.Value(r.Amount.Currency))))
	if err != nil {
		return GatewayRefund{}, err
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String(s.table), Item: put, ConditionExpression: newKey.Condition(),
			ExpressionAttributeNames: newKey.Names()}},
		raise,
	}})
	switch reasons := cancellationReasons(err); {
	case reasons != nil && reasons[0] == reasonConditionFailed:
		first, rerr := s.GatewayRefund(ctx, r.Key)
		if rerr != nil {
			return GatewayRefund{}, rerr
		}
		return first, ErrConflict
	case reasons != nil && reasons[1] == reasonConditionFailed:
		return GatewayRefund{}, ErrRefundExceedsCharge
	case err != nil:
		return GatewayRefund{}, fmt.Errorf("record refund: %w", err)
	}
	return r, nil
}

// GatewayRefund reads the ledger's refund of an idempotency key (consistent).
func (s *Store) GatewayRefund(ctx context.Context, key string) (GatewayRefund, error) {
	return getItemConsistent(ctx, s, gatewayChargeKey(key), sortKeyRefund, "gateway refund", gatewayRefundRecord.refund)
}
