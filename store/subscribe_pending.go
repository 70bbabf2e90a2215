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

// A subscribe paid through a card provider starts when the provider says
// it was paid (its event, or the reconcile reading the payment): until
// then the subscribe key's item holds what the customer asked and was
// quoted, with the provider's checkout session (a new card) or payment (a
// kept card), listed on GSI2 subscribes-pending for the reconcile. The
// start (StartSubscription) moves it to started in the transaction that
// writes the subscription, once, whoever reports the payment.

// PendingStatus is where a pending subscribe is.
type PendingStatus string

const (
	SubscribePending PendingStatus = "pending"
	SubscribeStarted PendingStatus = "started" // and every key from before pending subscribes
	SubscribeFailed  PendingStatus = "failed"  // declined, or the page expired unpaid: nothing was taken
)

// Errors of pending subscribes.
var (
	// ErrSubscribeSettled: the subscribe was started or failed already (an
	// event twice, or the reconcile beside it); nothing was written.
	ErrSubscribeSettled = errors.New("this subscribe was settled already")
	// errPaymentAmount: the provider took another amount than the quote.
	errPaymentAmount = errors.New("the payment is not the amount quoted")
)

// What a subscription's payment event did (its event item's outcome).
const (
	eventStarted eventOutcome = "subscription started"
	eventFailed  eventOutcome = "subscribe failed"
	eventPaid    eventOutcome = "period paid"
)

// pendingSubscribeTTL is how long a pending subscribe's item is kept: its
// page is open an hour, and the reconcile settles it well within this.
const pendingSubscribeTTL = 7 * 24 * time.Hour

// PendingSubscribe is a subscribe waiting on its first payment.
type PendingSubscribe struct {
	Key            string // the form's key
	CustomerID     string
	SubscriptionID string // the id the subscription will have
	ProductID      string
	ProductName    string
	Names          ProductNames
	Category       string
	MonthlyPrice   Money
	PaymentDay     int
	PeriodMonths   int
	Email          string
	Lang           string
	Today          time.Time // the day it was quoted: the first period is that day's
	NewPrice       Money     // a scheduled price, as quoted
	NewPriceFrom   time.Time
	// Charge is the first payment; zero when the first days are free (a
	// card saved in setup mode, nothing charged).
	Charge   Money
	Provider string
	Session  string // the provider's checkout session: a new card
	Payment  string // the provider's payment: a kept card (Card)
	Card     Card
	// Coupon is the discount code attached, its terms as when checked
	// (Left: the payments it covers, the first among them); its use was
	// counted with the pending write, and a failed subscribe gives it back.
	Coupon *Coupon
	// TrialDays is the product's free trial this subscribe takes (0:
	// none); its marker was written with the pending write.
	TrialDays int
	// Shipping is the delivery of each payment that sends a parcel, as
	// quoted to the country ShipTo (none: the product does not ship).
	Shipping Money
	ShipTo   string
	Status   PendingStatus
	At       time.Time
}

type pendingDoc struct {
	Status       string       `dynamodbav:"Status,omitempty"`
	ProductID    string       `dynamodbav:"ProductID,omitempty"`
	ProductName  string       `dynamodbav:"ProductName,omitempty"`
	Names        ProductNames `dynamodbav:"Names,omitempty"`
	Category     string       `dynamodbav:"Category,omitempty"`
	MonthlyPrice int64        `dynamodbav:"MonthlyPrice,omitempty"`
	Currency     string       `dynamodbav:"Currency,omitempty"`
	PaymentDay   int          `dynamodbav:"PaymentDay,omitempty"`
	PeriodMonths int          `dynamodbav:"PeriodMonths,omitempty"`
	Email        string       `dynamodbav:"Email,omitempty"`
	Lang         string       `dynamodbav:"Lang,omitempty"`
	Today        string       `dynamodbav:"Today,omitempty"`
	NewPrice     int64        `dynamodbav:"NewPrice,omitempty"`
	NewPriceFrom string       `dynamodbav:"NewPriceFrom,omitempty"`
	Charge       int64        `dynamodbav:"Charge,omitempty"`
	Provider     string       `dynamodbav:"Provider,omitempty"`
	Session      string       `dynamodbav:"Session,omitempty"`
	Payment      string       `dynamodbav:"Payment,omitempty"`
	CardToken    string       `dynamodbav:"CardToken,omitempty"`
	CardBrand    string       `dynamodbav:"CardBrand,omitempty"`
	CardLast4    string       `dynamodbav:"CardLast4,omitempty"`
	CardExpMonth int          `dynamodbav:"CardExpMonth,omitempty"`
	CardExpYear  int          `dynamodbav:"CardExpYear,omitempty"`
	CardCustomer string       `dynamodbav:"CardCustomer,omitempty"`
	At           string       `dynamodbav:"At,omitempty"`
	TrialDays    int          `dynamodbav:"TrialDays,omitempty"`
	Shipping     int64        `dynamodbav:"Shipping,omitempty"`
	ShipTo       string       `dynamodbav:"ShipTo,omitempty"`
	couponDoc
	GSI2PK string `dynamodbav:"GSI2-PK,omitempty"` // subscribes-pending while pending
	GSI2SK string `dynamodbav:"GSI2-SK,omitempty"` // <at>#<subscription id>
}

func (r subscribeKeyRecord) pending() PendingSubscribe {
	d := r.pendingDoc
	status := PendingStatus(d.Status)
	if status == "" {
		status = SubscribeStarted
	}
	p := PendingSubscribe{
		Key: trimPrefix(trimPrefix(r.PK, prefixIdem), "sub-"+r.CustomerID+"-"), CustomerID: r.CustomerID, SubscriptionID: r.SubscriptionID,
		ProductID: d.ProductID, ProductName: d.ProductName, Names: d.Names, Category: d.Category, MonthlyPrice: Money{Amount: d.MonthlyPrice, Currency: d.Currency},
		PaymentDay: d.PaymentDay, PeriodMonths: d.PeriodMonths, Email: d.Email, Lang: d.Lang, Today: parseDate(d.Today),
		NewPrice: Money{Amount: d.NewPrice, Currency: d.Currency}, NewPriceFrom: parseDate(d.NewPriceFrom), Charge: Money{Amount: d.Charge, Currency: d.Currency},
		Provider: d.Provider, Session: d.Session, Payment: d.Payment, Status: status, At: parseTime(d.At), Coupon: d.coupon(d.Currency),
		TrialDays: d.TrialDays, Shipping: Money{Amount: d.Shipping, Currency: d.Currency}, ShipTo: d.ShipTo,
	}
	if d.CardToken != "" {
		p.Card = Card{Token: d.CardToken, Brand: d.CardBrand, Last4: d.CardLast4, Provider: d.Provider, ExpMonth: d.CardExpMonth, ExpYear: d.CardExpYear,
			Customer: d.CardCustomer}
	}
	return p
}

func (p PendingSubscribe) record() subscribeKeyRecord {
	key := subscribeKey(p.CustomerID, p.Key)
	r := subscribeKeyRecord{PK: idempotencyKey(key), SK: idempotencyKey(key), EntityType: entityIdempotency,
		CustomerID: p.CustomerID, SubscriptionID: p.SubscriptionID, ExpiresAt: p.At.Add(pendingSubscribeTTL).Unix(),
		pendingDoc: pendingDoc{Status: string(p.Status), ProductID: p.ProductID, ProductName: p.ProductName, Names: p.Names, Category: p.Category,
			MonthlyPrice: p.MonthlyPrice.Amount, Currency: p.MonthlyPrice.Currency, PaymentDay: p.PaymentDay, PeriodMonths: p.PeriodMonths,
			Email: p.Email, Lang: p.Lang, Today: FormatDate(p.Today), Charge: p.Charge.Amount, Provider: p.Provider,
			Session: p.Session, Payment: p.Payment, CardToken: p.Card.Token, CardBrand: p.Card.Brand, CardLast4: p.Card.Last4,
			CardExpMonth: p.Card.ExpMonth, CardExpYear: p.Card.ExpYear, CardCustomer: p.Card.Customer, At: timestamp(p.At),
			couponDoc: newCouponDoc(p.Coupon), TrialDays: p.TrialDays, Shipping: p.Shipping.Amount, ShipTo: p.ShipTo}}
	if !p.NewPriceFrom.IsZero() {
		r.NewPrice, r.NewPriceFrom = p.NewPrice.Amount, FormatDate(p.NewPriceFrom)
	}
	if p.Status == SubscribePending {
		r.GSI2PK, r.GSI2SK = partitionSubscribes, createdKey(p.At, p.SubscriptionID)
	}
	return r
}

// PlanSubscribe is what a subscribe comes to today, before anything is
// asked of a card provider: its quote (QuoteSubscription, as the form's
// preview showed it), the charge of its first period and the id its
// subscription will have. Nothing is written.
func (s *Store) PlanSubscribe(req SubscribeRequest) (PendingSubscribe, error) {
	switch {
	case !ValidID(req.Key) || len(req.Key) > 36:
		return PendingSubscribe{}, ErrBadSubscribeKey
	case !req.Product.OpenToSubscribers():
		return PendingSubscribe{}, ErrNotSubscribable
	case !rules.ValidPaymentDay(req.PaymentDay):
		return PendingSubscribe{}, ErrBadPaymentDay
	case !rules.ValidPeriod(req.PeriodMonths):
		return PendingSubscribe{}, ErrBadPeriod
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	today := rules.DateOf(now, s.loc)
	var coupon *Coupon
	if d := req.Discount; d != nil {
		if err := checkSubscribeCode(*d, req.Product.MonthlyPrice.Currency, now); err != nil {
			return PendingSubscribe{}, err
		}
		c := CouponOf(*d)
		coupon = &c
	}
	product := req.Product
	if req.TrialTaken {
		product.TrialDays = 0
	}
	q := QuoteSubscriptionShipped(today, product, req.PaymentDay, req.PeriodMonths, req.PriceChange, coupon,
		req.Delivery.PeriodRate(product.MonthlyPrice, req.PeriodMonths))
	return PendingSubscribe{Coupon: coupon, TrialDays: product.TrialDays, Shipping: q.Shipping, ShipTo: req.Delivery.Country(),
		Key: req.Key, CustomerID: req.CustomerID, SubscriptionID: NewID(), ProductID: req.Product.ID, ProductName: req.Product.Name, Names: req.Product.Names(),
		Category: req.Product.Category, MonthlyPrice: req.Product.MonthlyPrice, PaymentDay: req.PaymentDay, PeriodMonths: req.PeriodMonths,
		Email: req.Email, Lang: req.Lang, Today: today, NewPrice: q.NewPrice, NewPriceFrom: q.NewPriceFrom, Charge: q.First.Charge,
		Status: SubscribePending, At: now,
	}, nil
}

// PendSubscribe writes a planned subscribe with its provider's session or
// payment, on condition its key is new. A key used already answers its
// subscribe as it stands, with ErrConflict (a double submit: the same
// session, or the subscription it started). With a discount code, the
// code's use is counted in the same transaction, on condition of its
// limit and expiry: a code used up or expired meanwhile is a CodeError
// and nothing is written. With a trial, its marker is written in the same
// transaction on condition the customer has none for the product:
// ErrTrialTaken, nothing written.
func (s *Store) PendSubscribe(ctx context.Context, p PendingSubscribe) (PendingSubscribe, error) {
	p.Status = SubscribePending
	var err error
	if p.Coupon != nil || p.TrialDays > 0 {
		err = s.pendWithCode(ctx, p)
	} else {
		err = s.putNew(ctx, p.record(), "subscribe "+p.Key)
	}
	if errors.Is(err, ErrConflict) {
		cur, rerr := s.PendingSubscribe(ctx, p.CustomerID, p.Key)
		if rerr != nil {
			return PendingSubscribe{}, rerr
		}
		return cur, ErrConflict
	}
	return p, err
}

// PendingSubscribe reads a subscribe by its customer and form key
// (consistent: it decides what a payment does).
func (s *Store) PendingSubscribe(ctx context.Context, customerID, key string) (PendingSubscribe, error) {
	if !ValidID(customerID) || !ValidID(key) {
		return PendingSubscribe{}, ErrNotFound
	}
	k := idempotencyKey(subscribeKey(customerID, key))
	r, err := getItemConsistent(ctx, s, k, k, "subscribe "+key, asRecord[subscribeKeyRecord])
	if err != nil {
		return PendingSubscribe{}, err
	}
	if r.CustomerID != customerID {
		return PendingSubscribe{}, ErrNotFound
	}
	return r.pending(), nil
}

// PendingSubscribes lists the subscribes pending since before `before`,
// oldest first, at most limit (GSI2 subscribes-pending, one Query): the
// reconcile reads each one's payment at its provider.
func (s *Store) PendingSubscribes(ctx context.Context, before time.Time, limit int) ([]PendingSubscribe, error) {
	q := querySpec{key: onGSI2.pkAndSKBelow(partitionSubscribes, timestamp(before))}
	p, err := pagedQuery(ctx, s, q, limit, "", subscribeKeyRecord.pending)
	return p.Items, err
}

// FailSubscribe marks a pending subscribe failed (declined, or its page
// expired unpaid), with the event's item if one says so, in one
// transaction; ErrSubscribeSettled if it was settled already.
func (s *Store) FailSubscribe(ctx context.Context, p PendingSubscribe, eventID string) error {
	now := s.now().UTC().Truncate(time.Millisecond)
	p.Status = SubscribeFailed
	b := &txItems{s: s}
	pending := expression.Name("Status").Equal(expression.Value(string(SubscribePending)))
	if err := b.put(p.record(), &pending, itemRole{kind: "key"}); err != nil {
		return err
	}
	if err := s.eventItem(b, ProviderOf(p.Provider), eventID, p.SubscriptionID, eventFailed, now); err != nil {
		return err
	}
	if p.Coupon != nil {
		// The code's use back, in the write that settles it: once.
		if err := giveCodeUseBack(b, p.Coupon.Code); err != nil {
			return err
		}
	}
	if p.TrialDays > 0 {
		// The trial back too: it was never had.
		if err := giveTrialBack(b, p); err != nil {
			return err
		}
	}
	return s.settleWrite(ctx, b.tx, "fail subscribe "+p.Key)
}

// settleWrite writes a settling transaction whose first item is the
// subscribe's key: its condition failing (or an event's item already
// there) says it was settled already.
func (s *Store) settleWrite(ctx context.Context, items []types.TransactWriteItem, what string) error {
	err := s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	if reasons := cancellationReasons(err); len(reasons) > 0 {
		for _, r := range reasons {
			if r == reasonConditionFailed {
				return ErrSubscribeSettled
			}
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
