package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store/rules"
)

// A price change of a subscribable product is scheduled by staff, never
// immediate: subscribers are told PriceNoticeDays before it applies to them
// (the reminders job mails each once, writing the new price and its first
// day onto the subscription in the same transaction), and each
// subscription pays it from its first payment on or after that day. The
// product's monthly price for new subscribers changes on the day itself;
// who subscribes before it is shown the change on the form and gets it on
// the same day as everyone.

// PriceNoticeDays is how long before a new price applies to a subscriber
// they are told of it.
const PriceNoticeDays = 30

// PriceChange is a product's scheduled monthly price. One item per product
// (PK=p#id, SK=pricechange), listed for staff and the job under GSI1
// price-changes by the day it applies.
type PriceChange struct {
	ProductID   string
	ProductName string
	Old, New    Money // monthly prices
	EffectiveOn time.Time
	ScheduledBy string
	ScheduledAt time.Time
	AnnouncedOn time.Time // the day the job mailed the subscribers; zero before
	Announced   int       // subscriptions told
	AppliedOn   time.Time // the day the product's price changed; zero before
}

// AnnounceOn is the day the subscribers are mailed.
func (c PriceChange) AnnounceOn() time.Time { return c.EffectiveOn.AddDate(0, 0, -PriceNoticeDays) }

// Errors of scheduling a price change, in staff's words; each a refusal
// said at its field of the staff's form. ErrPriceSame (and a price not
// above zero or in another currency, rules.ErrBadMoney) is said with the
// product's current price (priceRefused).
var (
	ErrPriceTooSoon error = &Refusal{Kind: Invalid, Message: "admin.subrefundsx.price_too_soon", Args: []any{"Days", PriceNoticeDays}, Field: "date",
		Words: fmt.Sprintf("a new price applies at least %d days after it is scheduled, so that subscribers hear of it in time", PriceNoticeDays)}
	ErrPriceSame                = errors.New("that is the current monthly price")
	ErrPriceAnnounced     error = Refuse(Conflict, "admin.subrefundsx.price_announced", "subscribers have been told of the scheduled price already; it can no longer be changed")
	ErrPriceNotSubscribed error = &Refusal{Kind: Invalid, Message: "admin.subrefundsx.price_not_subscribed", Field: "product",
		Words: "only a product that can be subscribed to has a monthly price to change"}
)

// priceRefused refuses a new price as no change of current: said at the
// price with the price it must differ from; errors.Is finds why.
func priceRefused(current Money, why error) error {
	return &Refusal{Kind: Invalid, Message: "admin.subrefunds.prices.price_same", Args: []any{"Price", current}, Field: "price",
		Words: why.Error(), Err: why}
}

type priceChangeRecord struct {
	PK          string `dynamodbav:"PK"`
	SK          string `dynamodbav:"SK"`
	EntityType  string `dynamodbav:"EntityType"`
	ProductName string `dynamodbav:"ProductName"`
	OldPrice    int64  `dynamodbav:"OldPrice"`
	NewPrice    int64  `dynamodbav:"NewPrice"`
	Currency    string `dynamodbav:"Currency"`
	EffectiveOn string `dynamodbav:"EffectiveOn"`
	ScheduledBy string `dynamodbav:"ScheduledBy"`
	ScheduledAt string `dynamodbav:"ScheduledAt"`
	AnnouncedOn string `dynamodbav:"AnnouncedOn,omitempty"`
	Announced   int    `dynamodbav:"Announced,omitempty"`
	AppliedOn   string `dynamodbav:"AppliedOn,omitempty"`
	GSI1PK      string `dynamodbav:"GSI1-PK"`
	GSI1SK      string `dynamodbav:"GSI1-SK"`
}

func (r priceChangeRecord) change() PriceChange {
	return PriceChange{
		ProductID: trimPrefix(r.PK, prefixProduct), ProductName: r.ProductName,
		Old: Money{Amount: r.OldPrice, Currency: r.Currency}, New: Money{Amount: r.NewPrice, Currency: r.Currency}, EffectiveOn: parseDate(r.EffectiveOn),
		ScheduledBy: r.ScheduledBy, ScheduledAt: parseTime(r.ScheduledAt), AnnouncedOn: parseDate(r.AnnouncedOn),
		Announced: r.Announced, AppliedOn: parseDate(r.AppliedOn),
	}
}

// SchedulePriceChange schedules p's new monthly price from a day at least
// PriceNoticeDays away. It replaces a change not yet announced (or one
// applied already); an announced one stands (ErrPriceAnnounced).
func (s *Store) SchedulePriceChange(ctx context.Context, p Product, newPrice Money, effective time.Time, by string) (PriceChange, error) {
	today := rules.DateOf(s.now(), s.loc)
	switch {
	case !p.OpenToSubscribers():
		return PriceChange{}, ErrPriceNotSubscribed
	case newPrice.Amount <= 0 || newPrice.Currency != p.MonthlyPrice.Currency:
		return PriceChange{}, priceRefused(p.MonthlyPrice, rules.ErrBadMoney)
	case newPrice == p.MonthlyPrice:
		return PriceChange{}, priceRefused(p.MonthlyPrice, ErrPriceSame)
	case effective.Before(today.AddDate(0, 0, PriceNoticeDays)):
		return PriceChange{}, ErrPriceTooSoon
	}
	c := PriceChange{ProductID: p.ID, ProductName: p.Name, Old: p.MonthlyPrice, New: newPrice, EffectiveOn: effective, ScheduledBy: by, ScheduledAt: s.now()}
	err := s.putIf(ctx, priceChangeRecord{
		PK: productKey(p.ID), SK: sortKeyPriceChange, EntityType: entityPriceChange, ProductName: p.Name,
		OldPrice: c.Old.Amount, NewPrice: c.New.Amount, Currency: c.New.Currency, EffectiveOn: FormatDate(effective),
		ScheduledBy: by, ScheduledAt: timestamp(c.ScheduledAt),
		GSI1PK: partitionPriceChanges, GSI1SK: FormatDate(effective) + "#" + p.ID,
	}, expression.AttributeNotExists(expression.Name("AnnouncedOn")).Or(expression.AttributeExists(expression.Name("AppliedOn"))))
	if isConditionFailed(err) {
		return PriceChange{}, ErrPriceAnnounced
	}
	if err != nil {
		return PriceChange{}, fmt.Errorf("schedule price change of %s: %w", p.ID, err)
	}
	return c, nil
}

// ProductPriceChange is a product's scheduled price change (one GetItem);
// ErrNotFound when none is scheduled.
func (s *Store) ProductPriceChange(ctx context.Context, productID string) (PriceChange, error) {
	return getItem(ctx, s, productKey(productID), sortKeyPriceChange, "price change of "+productID, priceChangeRecord.change)
}

// PriceChanges lists every price change by the day it applies, earliest
// first (GSI1: GSI1-PK=price-changes; a short list: one per product).
func (s *Store) PriceChanges(ctx context.Context) ([]PriceChange, error) {
	return queryAll(ctx, s, querySpec{key: onGSI1.pkEquals(partitionPriceChanges)}, priceChangeRecord.change)
}

// MarkPriceChangeAnnounced records that every subscriber was told.
func (s *Store) MarkPriceChangeAnnounced(ctx context.Context, c PriceChange, day time.Time, told int) error {
	err := s.updateIf(ctx, productKey(c.ProductID), sortKeyPriceChange,
		expression.Set(expression.Name("AnnouncedOn"), expression.Value(FormatDate(day))).Set(expression.Name("Announced"), expression.Value(told)),
		expression.Name("EffectiveOn").Equal(expression.Value(FormatDate(c.EffectiveOn))))
	if isConditionFailed(err) {
		return fmt.Errorf("price change of %s was rescheduled: %w", c.ProductID, ErrConflict)
	}
	return err
}

// ApplyPriceChange makes the new price the product's on its day, for new
// subscribers: the product's monthly price (on condition it is still the
// old one) and the change's applied day, in one transaction.
func (s *Store) ApplyPriceChange(ctx context.Context, c PriceChange, day time.Time) error {
	defer s.forgetProducts(c.ProductID)
	product, err := s.txUpdate(productKey(c.ProductID), productKey(c.ProductID),
		expression.Set(expression.Name("MonthlyPrice"), expression.Value(c.New.Amount)),
		expression.Name("MonthlyPrice").Equal(expression.Value(c.Old.Amount)))
	if err != nil {
		return err
	}
	mark, err := s.txUpdate(productKey(c.ProductID), sortKeyPriceChange,
		expression.Set(expression.Name("AppliedOn"), expression.Value(FormatDate(day))),
		expression.Name("EffectiveOn").Equal(expression.Value(FormatDate(c.EffectiveOn))).And(expression.AttributeNotExists(expression.Name("AppliedOn"))))
	if err != nil {
		return err
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{product, mark}})
	if cancellationReasons(err) != nil {
		return fmt.Errorf("apply price change of %s (the product's price or the change moved): %w", c.ProductID, ErrConflict)
	}
	return err
}

// SubscriptionsOfProduct pages the subscriptions of a product in one
// status: the staff list by status (GSI1 subs#status) filtered on the
// product. It reads every subscription in that status, which is fine once
// per price change; see the scaling notes in docs/design.md.
func (s *Store) SubscriptionsOfProduct(ctx context.Context, productID string, status SubscriptionStatus, limit int, cursor string) (Page[Subscription], error) {
	of := expression.Name("SKU").Equal(expression.Value(productID))
	q := querySpec{key: onGSI1.pkEquals(subscriptionsByStatusKey(status)), filter: &of}
	return pagedQuery(ctx, s, q, limit, cursor, subscriptionRecord.subscription)
}

// AnnouncePrice writes a price change onto a subscription (its new monthly
// price from `from`) with the announcement mail, in one transaction on
// condition of the version read: each subscriber is told once.
func (s *Store) AnnouncePrice(ctx context.Context, sub Subscription, c PriceChange, from time.Time, mail *Mail) (Subscription, error) {
	sub.NewPrice, sub.NewPriceFrom = c.New, from
	return s.writeSubscriptionWithMail(ctx, sub, mail)
}
