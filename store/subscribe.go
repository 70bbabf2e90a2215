package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store/rules"
)

// The subscription item: PK=ACC#<customer>, SK=SUB#<id>#SKU#<product>, as in
// the AWS guide. While a job has something to do with it, it carries the
// keys of the sharded billing-due indexes; the change is in the same write.
type subscriptionRecord struct {
	PK               string       `dynamodbav:"PK"`
	SK               string       `dynamodbav:"SK"`
	EntityType       string       `dynamodbav:"EntityType"`
	SubscriptionID   string       `dynamodbav:"SubscriptionID"`
	AccountID        string       `dynamodbav:"AccountID"`
	SKU              string       `dynamodbav:"SKU"`
	ProductName      string       `dynamodbav:"ProductName"`
	Names            ProductNames `dynamodbav:"Names,omitempty"` // in the shop's other languages
	Category         string       `dynamodbav:"Category,omitempty"`
	Email            string       `dynamodbav:"Email"`
	Lang             string       `dynamodbav:"Lang,omitempty"`
	MonthlyPrice     int64        `dynamodbav:"MonthlyPrice"`
	Quantity         int          `dynamodbav:"Quantity,omitempty"` // units a month; none: 1
	PaymentAmount    int64        `dynamodbav:"PaymentAmount"`      // MonthlyPrice × PeriodMonths, as the jobs charge it
	Shipping         int64        `dynamodbav:"Shipping,omitempty"` // delivery of each payment that sends a parcel
	ShipTo           string       `dynamodbav:"ShipTo,omitempty"`   // the country it was priced to
	Currency         string       `dynamodbav:"Currency"`
	PeriodMonths     int          `dynamodbav:"PeriodMonths"`
	PaymentDay       int          `dynamodbav:"PaymentDay"`
	Status           string       `dynamodbav:"Status"`
	CardToken        string       `dynamodbav:"CardToken"`
	CardBrand        string       `dynamodbav:"CardBrand"`
	CardLast4        string       `dynamodbav:"CardLast4"`
	CardProvider     string       `dynamodbav:"CardProvider,omitempty"` // "": the old gateway's token
	CardExpMonth     int          `dynamodbav:"CardExpMonth,omitempty"`
	CardExpYear      int          `dynamodbav:"CardExpYear,omitempty"`
	CardCustomer     string       `dynamodbav:"CardCustomer,omitempty"`
	NextPaymentDate  string       `dynamodbav:"NextPaymentDate,omitempty"`
	NextReminderDate string       `dynamodbav:"NextReminderDate,omitempty"`
	LastPaymentDate  string       `dynamodbav:"LastPaymentDate,omitempty"`
	LastReminderDate string       `dynamodbav:"LastReminderDate,omitempty"`
	EndsOn           string       `dynamodbav:"EndsOn,omitempty"`
	RetryDate        string       `dynamodbav:"RetryDate,omitempty"`
	PausedOn         string       `dynamodbav:"PausedOn,omitempty"`
	ResumesOn        string       `dynamodbav:"ResumesOn,omitempty"`
	CancelledOn      string       `dynamodbav:"CancelledOn,omitempty"`
	CreatedAt        string       `dynamodbav:"CreatedAt"`
	Version          int          `dynamodbav:"Version"`
	Attempt          int          `dynamodbav:"Attempt,omitempty"`
	IntentPeriod     string       `dynamodbav:"IntentPeriod,omitempty"`
	IntentAttempt    int          `dynamodbav:"IntentAttempt,omitempty"`
	IntentAt         string       `dynamodbav:"IntentAt,omitempty"`
	// The intent's payment at its card provider (billing_provider.go).
	IntentProvider string `dynamodbav:"IntentProvider,omitempty"`
	IntentRef      string `dynamodbav:"IntentRef,omitempty"`
	IntentSession  string `dynamodbav:"IntentSession,omitempty"`
	IntentWaiting  bool   `dynamodbav:"IntentWaiting,omitempty"`
	// The orders of its last paid periods, newest first (a shipping product).
	Orders          []periodOrderDoc `dynamodbav:"Orders,omitempty"`
	NewMonthlyPrice int64            `dynamodbav:"NewMonthlyPrice,omitempty"` // a price change the subscriber was told of
	NewPriceFrom    string           `dynamodbav:"NewPriceFrom,omitempty"`
	couponDoc                        // its discount code's terms, while they cover payments (subscribe_coupon.go)
	TrialEnds       string           `dynamodbav:"TrialEnds,omitempty"` // the first day after its free trial
	// Open payment intents (GSI2, sparse): the reconcile step finds the old ones.
	GSI2PK string `dynamodbav:"GSI2-PK,omitempty"`
	GSI2SK string `dynamodbav:"GSI2-SK,omitempty"`
	// Staff lists by status (GSI1), newest first.
	GSI1PK string `dynamodbav:"GSI1-PK"`
	GSI1SK string `dynamodbav:"GSI1-SK"`
	// Sparse billing-due indexes, sharded REM#n / PAY#n by a hash of the id.
	RemPK string `dynamodbav:"REM-PK,omitempty"`
	RemSK string `dynamodbav:"REM-SK,omitempty"`
	PayPK string `dynamodbav:"PAY-PK,omitempty"`
	PaySK string `dynamodbav:"PAY-SK,omitempty"`
}

type periodOrderDoc struct {
	Period  string `dynamodbav:"Period"`
	OrderID string `dynamodbav:"OrderID"`
	Number  string `dynamodbav:"Number"`
}

func parseDate(s string) time.Time {
	d, _ := rules.ParseDate(s)
	return d
}

func (r subscriptionRecord) subscription() Subscription {
	var intent *PaymentIntent
	if r.IntentPeriod != "" {
		intent = &PaymentIntent{Period: parseDate(r.IntentPeriod), Attempt: r.IntentAttempt, At: parseTime(r.IntentAt),
			Provider: r.IntentProvider, Ref: r.IntentRef, Session: r.IntentSession, Waiting: r.IntentWaiting}
	}
	var orders []PeriodOrder
	for _, o := range r.Orders {
		orders = append(orders, PeriodOrder{PeriodStart: parseDate(o.Period), OrderID: o.OrderID, OrderNumber: o.Number})
	}
	return Subscription{Attempt: r.Attempt, Intent: intent, Orders: orders,
		ID: r.SubscriptionID, AccountID: r.AccountID, ProductID: r.SKU, ProductName: r.ProductName, Names: r.Names, Category: r.Category, Email: r.Email, Lang: r.Lang,
		MonthlyPrice: Money{Amount: r.MonthlyPrice, Currency: r.Currency}, Quantity: r.Quantity, PeriodMonths: r.PeriodMonths, PaymentDay: r.PaymentDay,
		Shipping: Money{Amount: r.Shipping, Currency: r.Currency}, ShipTo: r.ShipTo,
		Status: SubscriptionStatus(r.Status), Card: Card{Token: r.CardToken, Brand: r.CardBrand, Last4: r.CardLast4,
			Provider: r.CardProvider, ExpMonth: r.CardExpMonth, ExpYear: r.CardExpYear, Customer: r.CardCustomer},
		NextPaymentDate: parseDate(r.NextPaymentDate), NextReminderDate: parseDate(r.NextReminderDate),
		LastPaymentDate: parseDate(r.LastPaymentDate), LastReminderDate: parseDate(r.LastReminderDate),
		EndsOn: parseDate(r.EndsOn), RetryDate: parseDate(r.RetryDate), PausedOn: parseDate(r.PausedOn), ResumesOn: parseDate(r.ResumesOn),
		CancelledOn: parseDate(r.CancelledOn), CreatedAt: parseTime(r.CreatedAt), Version: r.Version,
		NewPrice: Money{Amount: r.NewMonthlyPrice, Currency: r.Currency}, NewPriceFrom: parseDate(r.NewPriceFrom), Coupon: r.couponDoc.coupon(r.Currency),
		TrialEnds: parseDate(r.TrialEnds),
	}.asStored()
}

// newSubscriptionRecord is the item of a subscription, with the due-date
// index keys its status calls for: active, the next reminder and payment;
// ending at period end, only the end date (the job cancels then); past due,
// the retry date; paused until a date, that date (the job resumes it then);
// paused until resumed, or cancelled, none.
func newSubscriptionRecord(s Subscription, shards int) subscriptionRecord {
	r := subscriptionRecord{
		PK: accountKey(s.AccountID), SK: subscriptionSortKey(s.ID, s.ProductID), EntityType: entitySubscription,
		SubscriptionID: s.ID, AccountID: s.AccountID, SKU: s.ProductID, ProductName: s.ProductName, Names: s.Names, Category: s.Category, Email: s.Email, Lang: s.Lang,
		MonthlyPrice: s.MonthlyPrice.Amount, Quantity: s.Quantity, PaymentAmount: s.AmountFor(s.NextPaymentDate).Amount, Currency: s.MonthlyPrice.Currency,
		Shipping: s.Shipping.Amount, ShipTo: s.ShipTo,
		PeriodMonths: s.PeriodMonths, PaymentDay: s.PaymentDay, Status: string(s.Status),
		CardToken: s.Card.Token, CardBrand: s.Card.Brand, CardLast4: s.Card.Last4,
		CardProvider: s.Card.Provider, CardExpMonth: s.Card.ExpMonth, CardExpYear: s.Card.ExpYear, CardCustomer: s.Card.Customer,
		NextPaymentDate: FormatDate(s.NextPaymentDate), NextReminderDate: FormatDate(s.NextReminderDate),
		LastPaymentDate: FormatDate(s.LastPaymentDate), LastReminderDate: FormatDate(s.LastReminderDate),
		EndsOn: FormatDate(s.EndsOn), RetryDate: FormatDate(s.RetryDate), PausedOn: FormatDate(s.PausedOn), ResumesOn: FormatDate(s.ResumesOn),
		CancelledOn: FormatDate(s.CancelledOn), CreatedAt: timestamp(s.CreatedAt), Version: s.Version,
		GSI1PK: subscriptionsByStatusKey(s.Status), GSI1SK: createdKey(s.CreatedAt, s.ID),
		Attempt: s.Attempt, couponDoc: newCouponDoc(s.Coupon), TrialEnds: FormatDate(s.TrialEnds),
	}
	for _, o := range s.Orders {
		r.Orders = append(r.Orders, periodOrderDoc{Period: FormatDate(o.PeriodStart), OrderID: o.OrderID, Number: o.OrderNumber})
	}
	if !s.NewPriceFrom.IsZero() {
		r.NewMonthlyPrice, r.NewPriceFrom = s.NewPrice.Amount, FormatDate(s.NewPriceFrom)
	}
	if s.Intent != nil {
		r.IntentPeriod, r.IntentAttempt, r.IntentAt = FormatDate(s.Intent.Period), s.Intent.Attempt, timestamp(s.Intent.At)
		r.IntentProvider, r.IntentRef, r.IntentSession, r.IntentWaiting = s.Intent.Provider, s.Intent.Ref, s.Intent.Session, s.Intent.Waiting
		r.GSI2PK, r.GSI2SK = partitionIntents, createdKey(s.Intent.At, s.ID)
	}
	shard := shardOf(s.ID, shards)
	pay := func(d time.Time) {
		if !d.IsZero() {
			r.PayPK, r.PaySK = dueShardKey(prefixPaymentDue, shard), dueSortKey(d, s.ID)
		}
	}
	switch {
	case s.Ending():
		pay(s.EndsOn)
	case s.Status == SubscriptionActive:
		pay(s.NextPaymentDate)
		if !s.NextReminderDate.IsZero() {
			r.RemPK, r.RemSK = dueShardKey(prefixReminderDue, shard), dueSortKey(s.NextReminderDate, s.ID)
		}
	case s.Status == SubscriptionPastDue:
		pay(s.RetryDate)
	case s.Status == SubscriptionPaused:
		pay(s.ResumesOn)
	}
	return r
}

// SubscribeRequest is one press of "Subscribe".
type SubscribeRequest struct {
	Key          string // idempotency key from the form
	CustomerID   string
	Email        string
	Lang         string // the customer's language, for the subscription's mails
	Product      Product
	PaymentDay   int
	PeriodMonths int
	// PriceChange is the product's scheduled price, if any: the new
	// subscriber pays it from its day, as the form said.
	PriceChange *PriceChange
	// Discount is a discount code to attach, as SubscribeCode read it;
	// nil without one.
	Discount *DiscountCode
	// TrialTaken: the customer had the product's free trial (TrialTaken),
	// so this subscribe is charged as if the product had none.
	TrialTaken bool
	// Delivery is where a product that ships goes and its zone
	// (QuoteDelivery); nil for one that does not ship.
	Delivery *SubscribeDelivery
}

type subscribeKeyRecord struct {
	PK             string `dynamodbav:"PK"`
	SK             string `dynamodbav:"SK"`
	EntityType     string `dynamodbav:"EntityType"`
	CustomerID     string `dynamodbav:"CustomerID"`
	SubscriptionID string `dynamodbav:"SubscriptionID"`
	ExpiresAt      int64  `dynamodbav:"ExpiresAt"`
	pendingDoc            // a subscribe waiting on its first payment (subscribe_pending.go)
}

var ErrBadSubscribeKey error = Refuse(Broken, "error.form_broken", "subscribe key must be an id of at most 36 characters")

// subscriptionItem is the item of sub as this table shards it.
func (s *Store) subscriptionItem(ctx context.Context, sub Subscription) (map[string]types.AttributeValue, error) {
	shards, err := s.billingShards(ctx)
	if err != nil {
		return nil, err
	}
	return attributevalue.MarshalMap(newSubscriptionRecord(sub, shards))
}

// CreateSubscription writes a new subscription on condition that it does
// not exist, with its count in the kept totals (pattern 1 of the guide,
// for imports and seeding: customers subscribe through StartSubscription,
// which writes the same items in its transaction).
func (s *Store) CreateSubscription(ctx context.Context, sub Subscription) error {
	shards, err := s.billingShards(ctx)
	if err != nil {
		return err
	}
	b := &txItems{s: s}
	isNew := expression.AttributeNotExists(expression.Name(attrPK))
	if err := b.put(newSubscriptionRecord(sub, shards), &isNew, itemRole{}); err != nil {
		return err
	}
	totals, err := s.subscriptionTotalsWrites(ctx, Subscription{}, sub)
	if err != nil {
		return err
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: append(b.tx, totals...)})
	if reasons := cancellationReasons(err); len(reasons) > 0 && reasons[0] == reasonConditionFailed {
		return fmt.Errorf("subscription %s: %w", sub.ID, ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("create subscription %s: %w", sub.ID, err)
	}
	return nil
}

// Subscriptions lists a customer's subscriptions (pattern 6: PK=ACC#id,
// SK begins_with SUB#), one Query.
// The read is strongly consistent: the page a customer lands on after a
// change must show it (and its new version).
func (s *Store) Subscriptions(ctx context.Context, customerID string) ([]Subscription, error) {
	q := querySpec{key: onTable.pkAndSKPrefix(accountKey(customerID), prefixSubscription), consistent: true}
	subs, err := queryAll(ctx, s, q, subscriptionRecord.subscription)
	if err != nil {
		return nil, err
	}
	// Newest first: ids sort by creation time.
	for i, j := 0, len(subs)-1; i < j; i, j = i+1, j-1 {
		subs[i], subs[j] = subs[j], subs[i]
	}
	return subs, nil
}

// Subscription reads one of a customer's subscriptions by id: another
// customer's id is ErrNotFound, as an unknown one is.
func (s *Store) Subscription(ctx context.Context, customerID, id string) (Subscription, error) {
	return s.subscription(ctx, customerID, id, false)
}

func (s *Store) subscription(ctx context.Context, customerID, id string, consistent bool) (Subscription, error) {
	if !ValidID(customerID) || !ValidID(id) {
		return Subscription{}, ErrNotFound
	}
	q := querySpec{key: onTable.pkAndSKPrefix(accountKey(customerID), subscriptionIDPrefix(id)), consistent: consistent}
	return queryOne(ctx, s, q, "subscription "+id, subscriptionRecord.subscription)
}

// UpdateSubscription writes a subscription whole on condition that it is
// still at the version read, and bumps the version (pattern 3). Its due-date
// index keys follow its new state in the same write. ErrConflict if it
// changed or is gone.
func (s *Store) UpdateSubscription(ctx context.Context, sub Subscription) (Subscription, error) {
	writes, next, err := s.subscriptionPut(ctx, sub) // the same conditional write the jobs' transactions make
	if err != nil {
		return Subscription{}, err
	}
	if len(writes) > 1 { // a change the kept totals count: with them, in a transaction
		err := s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: writes})
		if reasons := cancellationReasons(err); len(reasons) > 0 && reasons[0] == reasonConditionFailed {
			return Subscription{}, fmt.Errorf("subscription %s at version %d: %w", sub.ID, sub.Version, ErrConflict)
		}
		if err != nil {
			return Subscription{}, fmt.Errorf("update subscription %s: %w", sub.ID, err)
		}
		return next, nil
	}
	put := writes[0].Put
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: put.TableName, Item: put.Item, ConditionExpression: put.ConditionExpression,
		ExpressionAttributeNames: put.ExpressionAttributeNames, ExpressionAttributeValues: put.ExpressionAttributeValues,
	})
	if isConditionFailed(err) {
		return Subscription{}, fmt.Errorf("subscription %s at version %d: %w", sub.ID, sub.Version, ErrConflict)
	}
	if err != nil {
		return Subscription{}, fmt.Errorf("update subscription %s: %w", sub.ID, err)
	}
	return next, nil
}

// ChangeSubscription applies a customer's change to the subscription as
// their page showed it (version). If it has changed since, or changes
// between the read and the write, nothing is written and a *StaleError
// carries it as it is now.
func (s *Store) ChangeSubscription(ctx context.Context, customerID, id string, version int, change SubscriptionChange) (Subscription, error) {
	cur, err := s.subscription(ctx, customerID, id, true)
	if err != nil {
		return Subscription{}, err
	}
	if cur.Version != version {
		return cur, &StaleError{Current: cur}
	}
	next, err := change(cur, rules.DateOf(s.now(), s.loc), s.reminderLead)
	if err != nil {
		return cur, err
	}
	saved, err := s.saveChange(ctx, cur, next) // a swap of the product moves the item
	if errors.Is(err, ErrConflict) {
		if now, rerr := s.subscription(ctx, customerID, id, true); rerr == nil {
			return now, &StaleError{Current: now}
		}
	}
	return saved, err
}

// SubscriptionsByStatus lists subscriptions in one status, newest first
// (GSI1: GSI1-PK=subs#status), for staff.
func (s *Store) SubscriptionsByStatus(ctx context.Context, status SubscriptionStatus, limit int, cursor string) (Page[Subscription], error) {
	q := querySpec{key: onGSI1.pkEquals(subscriptionsByStatusKey(status)), backward: true}
	return pagedQuery(ctx, s, q, limit, cursor, subscriptionRecord.subscription)
}
